// Plain driver code around callback code: it may wait for the loop.
#include "corpus.h"

using namespace corpus;

int main(int argc, char **argv) {
  int status = 0;
  std::string body;
  http_get(argc > 1 ? argv[1] : "http://localhost/", [&](error err, std::string b) {
    if (err) {
      log(err.message());
      status = 1;
      return;
    }
    body = b;
  });
  run_loop();
  log(body);
  return status;
}

// Starts work and returns: the counter is gone when the continuation runs.
void start_counting(std::vector<std::string> paths) {
  int seen = 0;
  for (auto &p : paths)
    stat_file(p, [&seen](error err, std::int64_t) { // expect: asyncshift-dangling-capture
      if (!err)
        ++seen;
    });
}

// A test helper that waits for its result.
std::string read_now(std::string path) {
  std::string out;
  read_file(path, [&out](error err, std::string data) {
    if (!err)
      out = data;
  });
  run_loop();
  return out;
}
