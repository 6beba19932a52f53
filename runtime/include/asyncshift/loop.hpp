// The event loop: a ready queue, a microtask queue and timers, on a real or a
// virtual clock.
//
// Scheduling follows Node: a turn runs the ready queue, then every expired
// timer, and drains the microtask queue after each callback. Timers live in a
// FIFO per duration (every simulated I/O op has the same duration, so adding
// and expiring a timer is O(1)); the next expiry is the earliest head among the
// few FIFOs. With the virtual clock, time jumps to the next expiry and nothing
// sleeps, so a run is deterministic and as fast as the CPU allows.
//
// The loop is single-threaded; other threads hand work back to it through
// complete_external_work() (a lock-free inbox; worker_pool.hpp's queue_work
// and from_any_thread use it), the only path that is safe from them.
#pragma once

#include "asyncshift/context.hpp"
#include "asyncshift/detail/pool.hpp"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <limits>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace asyncshift {

enum class clock_kind { real, virtual_time };

namespace detail {

/// \p d in the loop's nanoseconds, saturated (an hour is 3.6e12 ns; a
/// duration beyond ~292 years is the largest delay, not an overflow).
template <class Rep, class Period>
constexpr std::int64_t to_loop_ns(std::chrono::duration<Rep, Period> d) noexcept {
  using wide = std::chrono::duration<long double, std::nano>;
  const long double ns = std::chrono::duration_cast<wide>(d).count();
  if (ns >= static_cast<long double>(std::numeric_limits<std::int64_t>::max())) return std::numeric_limits<std::int64_t>::max();
  if (ns <= 0) return 0;
  if constexpr (std::is_integral_v<Rep>)
    return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
  else
    return static_cast<std::int64_t>(ns);
}

/// An intrusive unit of work for the ready queue and the timer FIFOs.
///
/// No field has a default: each is set where it is first needed, so that
/// making a runnable (once per op of every style) stores nothing twice.
/// Compilers kept some of the defaults that the code below overwrote at
/// once (clang all three, in the callback style's op nodes: doxbee 1,074 ->
/// 1,043 Ir per execution).
struct runnable {
  /// Set by every queue that links the runnable in (runnable_fifo::push,
  /// complete_external_work, the worker pool's queue).
  runnable* next;
  /// Set by whoever makes the runnable, before it is queued.
  void (*run)(runnable* self);
  /// Set when the runnable is queued (post, schedule) or, for external work,
  /// by whoever hands it to complete_external_work.
  context* ctx;
};

struct timer_node : runnable {
  /// Set when the node joins a timer FIFO (schedule), and read only there:
  /// left unset until then, so that making a node costs no store to it
  /// (compilers kept a zero here that schedule overwrote, once per op).
  std::int64_t due;
};

template <class F>
struct runnable_fn final : timer_node {
  F fn;
  explicit runnable_fn(F f) : fn(std::move(f)) {
    run = [](runnable* self) {
      auto* me = static_cast<runnable_fn*>(self);
      F local = std::move(me->fn);
      pool_delete(me);
      local();
    };
  }
};

/// What the microtask queue holds a pointer to: fire(self) runs it, in
/// context ctx. A promise reaction is one; queueing it stores one word.
struct microtask_node {
  void (*fire)(void* self) = nullptr;
  context* ctx = nullptr;
};

/// A microtask made from a function and its argument (queue_microtask(fn, data)).
struct fn_microtask final : microtask_node {
  void (*fn)(void*) = nullptr;
  void* data = nullptr;
  static void run(void* self) {
    auto* me = static_cast<fn_microtask*>(self);
    void (*f)(void*) = me->fn;
    void* d = me->data;
    pool_delete(me);
    f(d);
  }
};

/// Intrusive FIFO of runnables. Every op of every style goes through one
/// push and one pop, so it keeps no count, and `tail` is meaningful only
/// while the FIFO is not empty (a pop leaves it as it was). A turn runs what
/// was queued before it by remembering the tail it started with.
struct runnable_fifo {
  runnable* head = nullptr;
  runnable* tail = nullptr; // the last element, while head != nullptr

  bool empty() const noexcept { return head == nullptr; }
  void push(runnable* r) noexcept {
    r->next = nullptr;
    if (head) tail->next = r;
    else head = r;
    tail = r;
  }
  runnable* pop() noexcept {
    runnable* r = head;
    head = r->next;
    return r;
  }
  void append(runnable_fifo& other) noexcept {
    if (other.empty()) return;
    if (head) tail->next = other.head;
    else head = other.head;
    tail = other.tail;
    other = {};
  }
};

} // namespace detail

class loop;

namespace detail {
constinit inline thread_local asyncshift::loop* tl_loop = nullptr;
} // namespace detail

class loop {
public:
  explicit loop(clock_kind clock = clock_kind::real) : clock_(clock), epoch_(std::chrono::steady_clock::now()) {
    // The first loop made on a thread becomes its current loop; so does one
    // made after the default loop stood in (a promise settled before any loop
    // existed), which it replaces, taking over the work queued there.
    if (!detail::tl_loop || detail::tl_loop->fallback_) {
      previous_ = detail::tl_loop;
      detail::tl_loop = this;
      if (previous_) adopt_pending(*previous_);
    }
  }
  ~loop() {
    // Work still out on other threads (a continuation threw out of run(),
    // or run() was never called) would be handed back to freed memory: it is
    // waited for, and discarded (see discarding()).
    if (external_ != 0) [[unlikely]]
      discard_external_work();
    // A pool thread that handed back the last completion may still be in
    // complete_external_work, waking a loop that has since run it: a few
    // instructions, waited out here.
    while (notifiers_.load(std::memory_order_acquire) != 0) std::this_thread::yield();
    for (auto& w : std::exchange(rejections_, {})) w.check(w.state, false);
    if (detail::tl_loop == this) detail::tl_loop = previous_;
  }
  loop(const loop&) = delete;
  loop& operator=(const loop&) = delete;

  /// The loop of this thread: the one running, or else the first one made on
  /// this thread, or else a default one.
  static loop& current() {
    if (detail::tl_loop) [[likely]]
      return *detail::tl_loop;
    return make_fallback();
  }

  /// The loop running the caller, which only the loop's own dispatch (a
  /// runnable, a timer, a microtask, or code they call) may ask for: no test
  /// for a loop that is not there, as current() makes.
  static loop& running() noexcept {
    assert(detail::tl_loop && "loop::running() outside a running loop");
    return *detail::tl_loop;
  }

  clock_kind clock() const noexcept { return clock_; }
  /// Switches the clock; only while nothing is scheduled.
  void set_clock(clock_kind clock) {
    assert(!has_timers() && "switching the clock with timers pending");
    clock_ = clock;
    last_delay_ = -1; // a real-clock timer never takes the cached path (find_fifo)
    refresh_now();
  }

  /// Nanoseconds since the loop began (virtual time with the virtual clock).
  /// Read at the start of each turn, as libuv's uv_now, and with the real
  /// clock also whenever a timer is scheduled (so a timer never fires early).
  std::int64_t now_ns() const noexcept { return now_; }

  /// Runs \p r on a later turn, with the current context.
  void post(detail::runnable* r) noexcept {
    r->ctx = current_context();
    ready_.push(r);
  }
  template <class F>
    requires(!std::is_convertible_v<F, detail::runnable*>)
  void post(F f) {
    post(static_cast<detail::runnable*>(detail::pool_new<detail::runnable_fn<F>>(std::move(f))));
  }

  /// Queues \p fn(data) on the microtask queue, with the current context.
  void queue_microtask(void (*fn)(void*), void* data) { queue_microtask(fn, data, current_context()); }
  /// Queues \p fn(data) to run with context \p ctx (a promise reaction runs
  /// in the context its `then` was called in, as with AsyncLocalStorage).
  void queue_microtask(void (*fn)(void*), void* data, context* ctx) {
    auto* m = detail::pool_new<detail::fn_microtask>();
    m->fire = &detail::fn_microtask::run;
    m->ctx = ctx;
    m->fn = fn;
    m->data = data;
    queue_microtask(m);
  }
  /// Queues \p m (its fire and ctx set); it must stay alive until it runs.
  /// Always inlined: g++ called it out of line from the promise states, and
  /// then also stopped inlining its callers (doxbee promise style: 3,716 ->
  /// 3,446 Ir per execution with it inlined; clang already inlines it).
  [[gnu::always_inline]] void queue_microtask(detail::microtask_node* m) {
    if (micro_count_ == micro_mask_ + 1) [[unlikely]] // full (or not made yet: mask + 1 == 0)
      grow_microtasks();
    micro_data_[(micro_head_ + micro_count_) & micro_mask_] = m;
    ++micro_count_;
  }

  /// Unhandled-rejection bookkeeping for promise.hpp: \p state was rejected
  /// with no handler. When run() ends, \p check(state, true) reports it if it
  /// is still unhandled (returning true) and releases it; the loop's
  /// destructor releases what is left with check(state, false).
  void watch_rejection(void* state, bool (*check)(void* state, bool report)) { rejections_.push_back({state, check}); }
  /// How many unhandled rejections run() has reported so far, and failures
  /// of spawned tasks (reported when they happen: nothing can handle them).
  std::uint64_t unhandled_rejections() const noexcept { return unhandled_rejections_; }
  /// Counts an unhandled failure its reporter has just reported.
  void count_unhandled() noexcept { ++unhandled_rejections_; }

  /// Fires \p t after \p delay_ns, with the current context.
  void schedule(detail::timer_node* t, std::int64_t delay_ns) { schedule(t, delay_ns, current_context()); }
  /// Fires \p t after \p delay_ns, with context \p ctx. A negative delay is
  /// 0, as setTimeout's is.
  void schedule(detail::timer_node* t, std::int64_t delay_ns, context* ctx) {
    if (delay_ns < 0) [[unlikely]] // fires as soon as a delay of 0 would (and last_delay_ stays >= 0)
      delay_ns = 0;
    push_timer(fifo_for(delay_ns), t, delay_ns, ctx);
  }
  /// Whether a timer of \p delay_ns goes to the FIFO the last timer went to
  /// (schedule_cached may then be used for it).
  bool fifo_cached(std::int64_t delay_ns) const noexcept { return delay_ns == last_delay_; }
  /// schedule() when fifo_cached(delay_ns): no call in it.
  void schedule_cached(detail::timer_node* t, std::int64_t delay_ns, context* ctx) noexcept {
    push_timer(*last_fifo_, t, delay_ns, ctx);
  }
  /// Runs \p f after \p delay_ns on this loop's clock (a negative delay is 0).
  template <class F>
  void set_timeout(std::int64_t delay_ns, F f) {
    schedule(detail::pool_new<detail::runnable_fn<F>>(std::move(f)), delay_ns);
  }
  /// As above, after a std::chrono duration (`set_timeout(5ms, f)`).
  template <class Rep, class Period, class F>
  void set_timeout(std::chrono::duration<Rep, Period> d, F f) {
    set_timeout(detail::to_loop_ns(d), std::move(f));
  }

  /// Keeps the loop alive while work on other threads is outstanding. Call
  /// from the loop's thread.
  void add_external_work() noexcept { ++external_; }
  /// True while the loop's destructor takes back work that was still out on
  /// other threads: a runnable handed back then is run once so that it frees
  /// itself, and must not call anything else (a pool job destroys its
  /// handler uncalled, as Asio's io_context destroys the handlers it never
  /// ran).
  bool discarding() const noexcept { return discarding_; }
  /// Called from any thread: hands \p r back to the loop, which runs it and
  /// counts one piece of external work done. \p r->ctx must have been set by
  /// the caller. The loop's destructor waits for every piece of external
  /// work to come back (and runs it with discarding() true).
  ///
  /// Lock-free: \p r is pushed onto the inbox (a stack the loop takes whole
  /// and reverses), and the loop is woken only if it is asleep, so that a
  /// million completions do not take a mutex a million times (fanout_pool).
  /// The push and the check of `inbox_sleeping_` pair with the loop's store
  /// of the flag and its check of the inbox (both sequentially consistent):
  /// either this thread sees the loop asleep and wakes it, or the loop sees
  /// the push and does not sleep. The loop counts the work done itself, when
  /// it takes \p r, so it never waits for a count that no push announces;
  /// and `notifiers_` keeps it from being destroyed while this thread still
  /// looks at it after the push.
  void complete_external_work(detail::runnable* r) {
    notifiers_.fetch_add(1, std::memory_order_relaxed); // published by the push
    detail::runnable* head = inbox_head_.load(std::memory_order_relaxed);
    do {
      r->next = head;
    } while (!inbox_head_.compare_exchange_weak(head, r, std::memory_order_seq_cst, std::memory_order_relaxed));
    if (inbox_sleeping_.load(std::memory_order_seq_cst)) {
      std::lock_guard<std::mutex> lock(inbox_mutex_);
      inbox_cv_.notify_one();
    }
    notifiers_.fetch_sub(1, std::memory_order_release); // the last touch
  }

  /// Runs until no work is left.
  void run() {
    {
      // Each runnable runs in its own context; when run() returns, or a
      // continuation throws out of it, the caller's loop and context are
      // back (a context left behind would name an execution that may be gone).
      context_scope keep_context(current_context());
      struct restore_loop {
        loop* l = detail::tl_loop;
        ~restore_loop() { detail::tl_loop = l; }
      } keep_loop;
      detail::tl_loop = this;
      for (;;) {
        refresh_now(); // each turn, as libuv's uv_update_time: busy turns must not keep timers from coming due
        drain_microtasks();
        run_ready();
        run_due_timers();
        if (!ready_.empty() || micro_count_ != 0) continue;
        if (!wait_for_work()) break;
      }
    }
    report_unhandled_rejections();
    for (auto& hook : end_hooks_) hook();
  }

  /// Registers \p hook to run each time run() finishes (unhandled-rejection reports).
  void on_run_end(std::function<void()> hook) { end_hooks_.push_back(std::move(hook)); }

  /// Whether any timer is pending.
  bool has_timers() const noexcept {
    for (const auto& f : fifos_)
      if (!f.items.empty()) return true;
    return false;
  }

  /// Whether no microtask is queued.
  bool microtasks_idle() const noexcept { return micro_count_ == 0; }

  /// Runs every queued microtask, including those they queue.
  void drain_microtasks() {
    while (micro_count_ != 0) {
      detail::microtask_node* m = micro_data_[micro_head_];
      micro_head_ = (micro_head_ + 1) & micro_mask_;
      --micro_count_;
      detail::tl_context = m->ctx;
      m->fire(m);
    }
  }

private:
  struct fallback_tag {};
  loop(clock_kind clock, fallback_tag) : clock_(clock), epoch_(std::chrono::steady_clock::now()), fallback_(true) {}

  struct rejection_watch {
    void* state;
    bool (*check)(void*, bool);
  };

  void report_unhandled_rejections() {
    // A check may release the last reference to a state whose destruction
    // rejects nothing new, but take the list first all the same.
    auto watches = std::exchange(rejections_, {});
    for (auto& w : watches)
      if (w.check(w.state, true)) ++unhandled_rejections_;
  }

  struct timer_fifo {
    std::int64_t delay = 0;
    detail::runnable_fifo items;
  };

  void push_timer(timer_fifo& q, detail::timer_node* t, std::int64_t delay_ns, context* ctx) noexcept {
    t->ctx = ctx;
    t->due = now_ + delay_ns;
    q.items.push(t);
  }
  timer_fifo& fifo_for(std::int64_t delay) {
    if (fifo_cached(delay)) [[likely]]
      return *last_fifo_;
    return find_fifo(delay);
  }
  [[gnu::noinline]] timer_fifo& find_fifo(std::int64_t delay) {
    // A real-clock timer counts from now, not from the turn's start: work
    // earlier in the turn (10,000 executions' worth in the seeds' run) must
    // not make it fire early (Node reads the clock in setTimeout too). So
    // every real-clock timer comes here: it is never cached (last_delay_
    // stays -1), since a branch on the clock in the cached path would slow
    // the virtual clock too (+50 to +140 Ir per doxbee execution).
    const bool real = clock_ == clock_kind::real;
    if (real) refresh_real_now();
    timer_fifo* found = nullptr;
    for (auto& f : fifos_)
      if (f.delay == delay) {
        found = &f;
        break;
      }
    if (!found) {
      fifos_.push_back({delay, {}}); // may move the others: last_fifo_ is re-pointed below
      found = &fifos_.back();
    }
    if (!real) {
      last_delay_ = delay;
      last_fifo_ = found;
    }
    return *found;
  }

  void refresh_now() noexcept {
    if (clock_ == clock_kind::real) refresh_real_now();
  }
  void refresh_real_now() noexcept {
    now_ = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - epoch_).count();
  }

  void dispatch(detail::runnable* r) {
    detail::tl_context = r->ctx;
    r->run(r);
    drain_microtasks();
  }

  void run_ready() {
    if (inbox_head_.load(std::memory_order_relaxed)) take_inbox();
    // Only what was queued before this turn (up to the tail it began with):
    // work posted now runs next turn.
    if (ready_.empty()) return;
    const detail::runnable* const last = ready_.tail;
    while (!run_next(ready_, last)) {
    }
  }

  /// Pops the head of \p q and runs it; says whether it was \p last (the
  /// tail a turn began with), decided before it runs: it may free itself.
  bool run_next(detail::runnable_fifo& q, const detail::runnable* last) {
    detail::runnable* r = q.pop();
    const bool was_last = r == last;
    dispatch(r);
    return was_last;
  }

  void run_due_timers() {
    if (fifos_.size() == 1) {
      // The common case: one duration, a plain FIFO, due times in order.
      // Only timers queued before this turn: one queued now for 0 ns is
      // due at once, but runs next turn, as in Node.
      // fifos_[0] is looked up again after each timer: one that schedules
      // a timer of a new duration grows fifos_, which may move it.
      if (fifos_[0].items.empty()) return;
      const detail::runnable* const last = fifos_[0].items.tail;
      for (;;) {
        detail::runnable_fifo& q = fifos_[0].items;
        if (static_cast<detail::timer_node*>(q.head)->due > now_ || run_next(q, last)) return;
      }
    }
    // Several durations: the earliest head first, each FIFO up to the tail
    // it had when the turn began (nullptr once that one has run). A FIFO
    // made during the turn (a new duration) has nothing due before the next.
    if (!has_timers()) return;
    const std::size_t n = fifos_.size();
    std::vector<const detail::runnable*> lasts(n);
    for (std::size_t i = 0; i < n; ++i) lasts[i] = fifos_[i].items.empty() ? nullptr : fifos_[i].items.tail;
    for (;;) {
      std::size_t best = n;
      std::int64_t best_due = now_ + 1;
      for (std::size_t i = 0; i < n; ++i) {
        if (!lasts[i]) continue; // its head is still one of this turn's
        std::int64_t due = static_cast<detail::timer_node*>(fifos_[i].items.head)->due;
        if (due < best_due) {
          best_due = due;
          best = i;
        }
      }
      if (best == n) return;
      if (run_next(fifos_[best].items, lasts[best])) lasts[best] = nullptr;
    }
  }

  std::int64_t next_due() const noexcept {
    std::int64_t best = INT64_MAX;
    for (const auto& f : fifos_)
      if (!f.items.empty()) best = std::min(best, static_cast<detail::timer_node*>(f.items.head)->due);
    return best;
  }

  /// Moves what other threads completed to the ready queue, oldest first.
  [[gnu::noinline]] void take_inbox() {
    detail::runnable_fifo taken = take_from_inbox();
    ready_.append(taken);
  }

  /// Empties the inbox: what other threads completed, oldest first, each
  /// counted back as external work.
  detail::runnable_fifo take_from_inbox() noexcept {
    detail::runnable* r = inbox_head_.exchange(nullptr, std::memory_order_acquire);
    detail::runnable_fifo taken;
    taken.tail = r; // the newest is the stack's head: reversed, it is the tail
    while (r) {
      detail::runnable* next = r->next;
      r->next = taken.head;
      taken.head = r;
      r = next;
      --external_; // one piece of external work is back
    }
    return taken;
  }

  /// For ~loop: waits until every piece of external work is back, and runs
  /// each with discarding() true (it frees itself), apart from the ready
  /// queue: what was already queued there stays unrun.
  [[gnu::noinline, gnu::cold]] void discard_external_work() noexcept {
    discarding_ = true;
    while (external_ != 0) {
      detail::runnable_fifo taken = take_from_inbox();
      if (taken.empty()) {
        wait_inbox_until(INT64_MAX);
        continue;
      }
      while (!taken.empty()) {
        detail::runnable* r = taken.pop(); // past r before it runs: r frees itself
        r->run(r);
      }
    }
  }

  /// Waits until something can run. Returns false when the loop is finished.
  bool wait_for_work() {
    const bool external = external_ != 0; // work not yet back from other threads
    const bool timers = has_timers();
    if (!timers && !external) return false;
    const std::int64_t due = next_due();
    if (clock_ == clock_kind::virtual_time) {
      if (timers && !external) { // pool work takes no virtual time: wait for it first
        now_ = std::max(now_, due);
        return true;
      }
      wait_inbox_until(INT64_MAX);
      return true;
    }
    refresh_now();
    if (due <= now_) return true;
    if (external)
      wait_inbox_until(due);
    else
      std::this_thread::sleep_for(std::chrono::nanoseconds(due - now_));
    refresh_now();
    return true;
  }

  void wait_inbox_until(std::int64_t due) {
    std::unique_lock<std::mutex> lock(inbox_mutex_);
    inbox_sleeping_.store(true, std::memory_order_seq_cst); // see complete_external_work
    auto ready = [&] { return inbox_head_.load(std::memory_order_seq_cst) != nullptr; };
    if (due == INT64_MAX)
      inbox_cv_.wait(lock, ready);
    else
      inbox_cv_.wait_until(lock, epoch_ + std::chrono::nanoseconds(due), ready);
    inbox_sleeping_.store(false, std::memory_order_relaxed);
  }

  // These two are out of line and cold: inlined, they made every caller of
  // current() and queue_microtask (every promise settlement) save registers
  // for paths that run a few times per thread.
  [[gnu::noinline, gnu::cold]] static loop& make_fallback() {
    static thread_local loop fallback(clock_kind::real, fallback_tag{});
    detail::tl_loop = &fallback;
    return fallback;
  }

  /// Work queued on the default loop before this one existed (a promise
  /// settled, a then registered, a rejection, a timer set) is this loop's to
  /// run: it was lost (the default loop never runs). Timers keep their due
  /// times, counted from this loop's start.
  [[gnu::noinline, gnu::cold]] void adopt_pending(loop& from) {
    std::swap(micro_, from.micro_);
    std::swap(micro_data_, from.micro_data_);
    std::swap(micro_mask_, from.micro_mask_);
    std::swap(micro_head_, from.micro_head_);
    std::swap(micro_count_, from.micro_count_);
    std::swap(ready_, from.ready_);
    std::swap(fifos_, from.fifos_);
    from.last_fifo_ = nullptr;
    from.last_delay_ = -1;
    std::swap(rejections_, from.rejections_);
    std::swap(end_hooks_, from.end_hooks_);
  }

  [[gnu::noinline, gnu::cold]] void grow_microtasks() {
    std::vector<detail::microtask_node*> bigger(micro_.empty() ? 1024 : micro_.size() * 2);
    for (std::size_t i = 0; i < micro_count_; ++i) bigger[i] = micro_[(micro_head_ + i) & micro_mask_];
    micro_ = std::move(bigger);
    micro_head_ = 0;
    micro_data_ = micro_.data();
    micro_mask_ = micro_.size() - 1;
  }

  clock_kind clock_;
  std::chrono::steady_clock::time_point epoch_;
  std::int64_t now_ = 0;

  detail::runnable_fifo ready_;
  std::vector<timer_fifo> fifos_;
  timer_fifo* last_fifo_ = nullptr; // the FIFO the last timer went to (an element of fifos_)
  std::int64_t last_delay_ = -1;     // its delay (-1: none yet; schedule makes a negative delay 0)

  // A ring buffer: its data and size - 1 are kept beside the vector, so that
  // a push or a pop does not recompute the size (a division) every time.
  std::vector<detail::microtask_node*> micro_;
  detail::microtask_node** micro_data_ = nullptr;
  std::size_t micro_mask_ = SIZE_MAX; // size - 1; SIZE_MAX while empty
  std::size_t micro_head_ = 0;
  std::size_t micro_count_ = 0;

  std::size_t external_ = 0; // external work not yet taken from the inbox
  std::atomic<unsigned> notifiers_{0}; // threads inside complete_external_work
  // Completions from other threads: a lock-free stack, newest first. The
  // mutex and the condition variable only put the loop to sleep and wake it.
  std::atomic<detail::runnable*> inbox_head_{nullptr};
  std::atomic<bool> inbox_sleeping_{false};
  std::mutex inbox_mutex_;
  std::condition_variable inbox_cv_;

  std::vector<std::function<void()>> end_hooks_;
  std::vector<rejection_watch> rejections_;
  std::uint64_t unhandled_rejections_ = 0;
  loop* previous_ = nullptr;
  bool fallback_ = false;
  bool discarding_ = false; // in ~loop, taking back outstanding external work
};

} // namespace asyncshift
