// Generic helpers over callback-style operations.
#include "corpus.h"

using namespace corpus;

// Retries any operation; `op` takes a callback<>.
template <class Op> void with_retry(Op op, int attempts, callback<> done) {
  op([=](error err) {
    if (!err || attempts <= 1)
      return done(err);
    with_retry(op, attempts - 1, done);
  });
}

// Maps an operation's value.
template <class F> void then_map(std::string path, F f, callback<std::string> done) {
  read_file(path, [=](error err, std::string data) {
    if (err)
      return done(err);
    done({}, f(data));
  });
}

// Runs an operation and ignores how it went.
template <class Op> void best_effort(Op op, callback<> done) {
  op([=](error err) { done({}); }); // expect: asyncshift-error-ignored
}

void uses_templates(callback<> done) {
  with_retry([](callback<> cb) { sleep_ms(1, cb); }, 3, [=](error err) {
    if (err)
      return done(err);
    then_map("a.txt", [](std::string s) { return s + "\n"; }, [=](error err, std::string out) {
      if (err)
        return done(err);
      best_effort([out](callback<> cb) { write_file("b.txt", out, cb); }, done);
    });
  });
}
