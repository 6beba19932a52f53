// Look-alikes of asyncshift-error-ignored: the error is read on every path
// that finishes, or is deliberately unnamed.
// RUN: %asyncshift --check %s -- %{tool_flags} 2>&1 | count 0
#include "ops.h"

#include <memory>
#include <vector>

void unnamed(asyncshift::callback<> done) {
  flush([](asyncshift::error) {});
  done({});
}

void maybe_unused(asyncshift::callback<> done) {
  flush([=]([[maybe_unused]] asyncshift::error err) { done({}); });
}

void void_cast(asyncshift::callback<> done) {
  flush([=](asyncshift::error err) {
    (void)err;
    done({});
  });
}

void forwarded(asyncshift::callback<int> done) {
  read_int(1, [=](asyncshift::error err, int v) { done(err, v); });
}

// Read by the named continuation it is handed to.
void handed_to_join(bool c, asyncshift::callback<int> done) {
  auto next = [=](asyncshift::error err, int v) {
    if (err)
      return done(err);
    done({}, v);
  };
  read_int(1, [=](asyncshift::error err, int v) { next(err, v); });
}

// A path that fails anyway supersedes the error rather than dropping it.
void cancelled(bool stop, asyncshift::callback<int> done) {
  read_int(1, [=](asyncshift::error err, int v) {
    if (stop)
      return done(asyncshift::error("cancelled"));
    if (err)
      return done(err);
    done({}, v);
  });
}

// In a fan-out join, the early return of a finished join ignores late errors
// on purpose (as asyncshift::parallel does).
void join_ignores_late_errors(asyncshift::callback<> done) {
  auto finished = std::make_shared<bool>(false);
  auto left = std::make_shared<int>(2);
  auto join = [=](asyncshift::error err) {
    if (*finished)
      return;
    if (err) {
      *finished = true;
      return done(err);
    }
    if (--*left == 0)
      done({});
  };
  flush(join);
  flush(join);
}

// The error goes to every waiter there is; with none, nobody is to be told.
std::vector<asyncshift::callback<int>> waiting;
void drain() {
  read_int(1, [](asyncshift::error err, int v) {
    auto ready = std::move(waiting);
    for (auto &w : ready)
      w(err, v);
  });
}

// With no handler to call there is nobody to give the error to.
void touch(asyncshift::callback<> done) {
  flush([=](asyncshift::error err) {
    if (!done)
      return;
    done(err);
  });
}
