// A processing pipeline of named continuations.
#include "corpus.h"

using namespace corpus;

std::string transform(std::string s) { return s + "!"; }

// read -> transform -> write, each stage a named continuation.
void process(std::string in, std::string out, callback<std::size_t> done) {
  auto written = [=](error err, std::size_t n) {
    if (err)
      return done(err);
    log("wrote " + std::to_string(n));
    done({}, n);
  };
  auto transformed = [=](error err, std::string data) {
    if (err)
      return written(err, 0);
    write_file(out, data, [=](error err) { written(err, data.size()); });
  };
  read_file(in, [=](error err, std::string data) {
    if (err)
      return transformed(err, "");
    transformed({}, transform(data));
  });
}

// Validation short-cuts to the last stage, then falls into it again.
void process_checked(std::string in, callback<std::size_t> done) {
  auto finish = [=](error err, std::size_t n) { done(err, n); };
  read_file(in, [=](error err, std::string data) {
    if (err)
      return finish(err, 0);
    if (data.size() > 1000)
      finish(error("too big"), 0);
    write_file(in + ".out", data, [=](error err) { finish(err, data.size()); }); // expect: asyncshift-callback-called-twice
  });
}

// Stages kept in std::function, as a framework would.
struct stage {
  std::function<void(std::string, callback<std::string>)> run;
};

void run_stages(std::vector<stage> stages, std::string input, callback<std::string> done) {
  auto state = std::make_shared<std::string>(input);
  asyncshift::each_series(
      stages.size(),
      [=](std::size_t i, callback<> next) {
        stages[i].run(*state, [=](error err, std::string out) {
          if (!err)
            *state = out;
          next(err);
        });
      },
      [=](error err) {
        if (err)
          return done(err);
        done({}, *state);
      });
}

// The last stage ignores what it is given.
void tail(std::string in, callback<> done) {
  auto last = [=](error err, std::string data) { write_file(in + ".tail", data, done); }; // expect: asyncshift-error-ignored
  read_file(in, last);
}
