// Timers: debouncing, periodic work, deferring.
#include "corpus.h"

using namespace corpus;

// Keeps only the latest handler; an older one completes with an error. The
// timer's continuation names its error but a stale timer returns without
// looking at it.
class debouncer {
public:
  void call(callback<> done) {
    if (pending_)
      pending_(error("superseded"));
    pending_ = done;
    int generation = ++generation_;
    sleep_ms(50, [this, generation](error err) { // expect: asyncshift-error-ignored
      if (generation != generation_)
        return;
      auto cb = pending_;
      pending_ = nullptr;
      cb(err);
    });
  }

private:
  callback<> pending_;
  int generation_ = 0;
};

// Runs a tick n times, one after another; with n == 0 the first round
// completes before tick_n returns, every other count from the timer.
void tick_n(int n, callback<> done) { // expect: asyncshift-mixed-sync-async
  auto tick = [=](auto &self, int i) -> void {
    if (i == n)
      return done({});
    sleep_ms(10, [=](error err) {
      if (err)
        return done(err);
      log("tick " + std::to_string(i));
      self(self, i + 1);
    });
  };
  tick(tick, 0);
}

// Waits, then reads the parameter that is gone by then.
void delayed_log(std::string line, int ms, callback<> done) {
  sleep_ms(ms, [&line, done](error err) { // expect: asyncshift-dangling-capture
    log(line);
    done(err);
  });
}

// Defers a synchronous result to the loop so the caller always sees it later.
void later(int value, callback<int> done) {
  sleep_ms(0, [=](error err) { done(err, value); });
}

// Loses the handler when asked for no delay.
void wait_at_least(int ms, callback<> done) { // expect: asyncshift-callback-not-called
  if (ms <= 0)
    return;
  sleep_ms(ms, done);
}
