// Leaves: functions that take a handler and complete it without async calls
// of their own (synchronously, from a queue, or by storing it).
#include "corpus.h"

#include <deque>
#include <stdexcept>

using namespace corpus;

// Parses synchronously; every path completes.
void parse_port(std::string text, callback<int> cb) {
  if (text.empty())
    return cb(error("empty port"));
  int port = std::stoi(text);
  if (port <= 0 || port > 65535)
    return cb(error("port out of range"));
  cb({}, port);
}

// Forgets the in-range case.
void parse_flag(std::string text, callback<bool> cb) { // expect: asyncshift-callback-not-called
  if (text == "yes")
    return cb({}, true);
  if (text == "no")
    return cb({}, false);
}

// A work queue: handlers are stored and completed later.
class work_queue {
public:
  void submit(std::function<int()> job, callback<int> cb) { jobs_.push_back({std::move(job), std::move(cb)}); }

  void run_one() {
    if (jobs_.empty())
      return;
    auto job = std::move(jobs_.front());
    jobs_.pop_front();
    try {
      job.cb({}, job.fn());
    } catch (const std::exception &e) {
      job.cb(error(e.what()));
    }
  }

private:
  struct entry {
    std::function<int()> fn;
    callback<int> cb;
  };
  std::deque<entry> jobs_;
};

// Reports every item, but it is the completion handler.
void report_all(std::vector<int> items, callback<int> cb) {
  for (int item : items)
    cb({}, item); // expect: asyncshift-callback-called-twice
}

// Throws instead of completing when the input is bad: not a hang.
void strict_parse(std::string text, callback<int> cb) {
  if (text.empty())
    throw std::invalid_argument("empty");
  cb({}, std::stoi(text));
}
