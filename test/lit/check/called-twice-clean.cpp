// Look-alikes of asyncshift-callback-called-twice that complete the handler
// exactly once on every path: nothing is reported.
// RUN: %asyncshift --check %s -- %{tool_flags} 2>&1 | count 0
#include "ops.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

void early_returns(asyncshift::callback<int> done) {
  read_int(1, [=](asyncshift::error err, int v) {
    if (err)
      return done(err);
    if (v < 0) {
      log_line("negative");
      return done(asyncshift::error("negative"));
    }
    done({}, v);
  });
}

void if_else(asyncshift::callback<int> done) {
  read_int(1, [=](asyncshift::error err, int v) {
    if (!err) {
      done({}, v);
    } else {
      done(err);
    }
  });
}

// Two tests of the same unmodified error are one path, not four.
void correlated_tests(asyncshift::callback<int> done) {
  read_int(1, [=](asyncshift::error err, int v) {
    if (err)
      done(err);
    if (!err)
      done({}, v);
  });
}

void switch_with_breaks(int key, asyncshift::callback<> done) {
  read_int(key, [=](asyncshift::error err, int v) {
    if (err)
      return done(err);
    switch (v) {
    case 0:
      done({});
      break;
    case 1:
      flush(done);
      break;
    default:
      write_int(key, v, done);
    }
  });
}

void conditional_operator(bool ok, asyncshift::callback<> done) {
  flush([=](asyncshift::error err) { return ok ? done(err) : done(asyncshift::error("refused")); });
}

// The counter idiom (SPEC pattern 6): a join passed to several calls, each
// call completing the handler only when it is the last one.
void counter_join(asyncshift::callback<> done) {
  auto left = std::make_shared<int>(2);
  auto finished = std::make_shared<bool>(false);
  auto join = [=](asyncshift::error err) {
    if (*finished)
      return;
    if (err) {
      *finished = true;
      return done(err);
    }
    if (--*left == 0) {
      *finished = true;
      done({});
    }
  };
  flush(join);
  write_int(1, 2, join);
}

// The same idiom with inline continuations in a loop.
void counter_loop(int n, asyncshift::callback<> done) {
  flush([=](asyncshift::error err) {
    if (err || n == 0)
      return done(err);
    auto left = std::make_shared<int>(n);
    auto failed = std::make_shared<bool>(false);
    for (int i = 0; i < n; ++i)
      write_int(i, i, [=](asyncshift::error err) {
        if (*failed)
          return;
        if (err) {
          *failed = true;
          return done(err);
        }
        if (--*left == 0)
          done({});
      });
  });
}

// A race with a once-guard: whichever finishes first completes.
void first_wins(asyncshift::callback<> done) {
  auto settled = std::make_shared<bool>(false);
  auto once = [=](asyncshift::error err) {
    if (*settled)
      return;
    *settled = true;
    done(err);
  };
  flush(once);
  write_int(0, 0, once);
}

// Moving the handler into the continuation is one hand-off, not two.
void moved_into_capture(asyncshift::callback<> done) {
  flush([cb = std::move(done)](asyncshift::error err) { cb(err); });
}

// A local flag set on one path and tested later: the walk follows its value.
void first_nonempty(std::vector<std::string> paths, asyncshift::callback<std::string> done) {
  read_int(0, [=](asyncshift::error err, int) {
    if (err)
      return done(err);
    bool found = false;
    for (const auto &p : paths)
      if (!p.empty()) {
        done({}, p);
        found = true;
        break;
      }
    if (!found)
      done(asyncshift::error("none"));
  });
}

// A 'catch' that completes and returns, the completion after the 'try'.
void parse_then_complete(std::string text, asyncshift::callback<int> done) {
  read_int(0, [=](asyncshift::error err, int v) {
    if (err)
      return done(err);
    int n = 0;
    try {
      n = std::stoi(text);
    } catch (const std::exception &e) {
      return done(asyncshift::error(e.what()));
    }
    done({}, n + v);
  });
}
