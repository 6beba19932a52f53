// Work on other threads, completed on the loop: asyncshift::queue_work.
//
// libuv runs CPU-bound or blocking work (crypto.randomBytes, fs, dns) on a
// thread pool and resumes the JavaScript continuation on the loop thread;
// this is the same arrangement. An operation here is an ordinary leaf:
// `queue_work(work, cb)` runs `work()` on a pool thread and then calls
// `cb(err)` / `cb({}, value)` on the loop thread that started it, in the
// async context it was started in. Every style reaches it like any other op
// (promisify, make_promise, make_future), so none needs its own wrapper; a
// continuation lambda passed directly (the callback style) is kept in the
// job, as the fake ops keep it in their timer node.
//
// Thread safety: only the work functor runs on the pool thread. The
// callback — whose reference count, like everything on the loop, is not
// atomic — is created, called and destroyed on the loop thread; so are the
// job block and the functor itself. The hand-off back is the loop's
// lock-free inbox (loop::complete_external_work), which also keeps run()
// from returning while work is outstanding. A loop destroyed while its jobs
// are still out (a continuation threw out of run(), or run() was never
// called) waits for them and destroys their handlers uncalled.
#pragma once

#include "asyncshift/callback.hpp"
#include "asyncshift/context.hpp"
#include "asyncshift/detail/hash.hpp"
#include "asyncshift/detail/outcome.hpp"
#include "asyncshift/detail/pool.hpp"
#include "asyncshift/error.hpp"
#include "asyncshift/loop.hpp"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace asyncshift {

namespace detail {

/// A job whose work returns T, completing the handler H (a callback_t<T>, or
/// a continuation lambda kept here instead of in a callback block of its own).
///
/// It is a runnable twice, with one function pointer: queued for the pool
/// (through `next`), `run` does the work on a pool thread (execute), then
/// points itself at the delivery that fits the outcome and joins the loop's
/// inbox, where `run` delivers it. So the outcome needs no flag: the error or
/// the value share one slot, and which one is there is which function `run`
/// names. A random_bytes job is 80 bytes (112 with a separate `execute`
/// pointer and an optional value beside the error).
template <class Work, class T, class H>
struct pool_job_for final : runnable {
  Work work;
  H cb;
  loop* owner;
  union {
    error err;          // run == &deliver_error
    stored_t<T> value;  // run == &deliver_value
  };

  pool_job_for(Work w, H c, loop* l) : work(std::move(w)), cb(std::move(c)), owner(l) { run = &execute; }
  pool_job_for(const pool_job_for&) = delete;
  pool_job_for& operator=(const pool_job_for&) = delete;
  /// After a delivery, which moved the outcome out and destroyed it.
  ~pool_job_for() {}

  /// Back on a loop that is being destroyed (loop::discarding): the outcome
  /// and the handler are destroyed, the handler uncalled.
  template <class Outcome>
  [[gnu::cold, gnu::noinline]] static void discard(pool_job_for* self, Outcome& outcome) noexcept {
    outcome.~Outcome();
    pool_delete(self);
  }

  /// On a pool thread.
  static void execute(runnable* r) noexcept {
    auto* self = static_cast<pool_job_for*>(r);
    try {
      if constexpr (std::is_void_v<T>) {
        self->work();
        ::new (static_cast<void*>(std::addressof(self->value))) stored_t<T>();
      } else {
        ::new (static_cast<void*>(std::addressof(self->value))) stored_t<T>(self->work());
      }
      self->run = &deliver_value; // read by the loop thread after the inbox's lock
    } catch (...) {
      error e = error_from_current_exception();
      if (!e) e = error("the work threw an error_exception holding no error");
      ::new (static_cast<void*>(std::addressof(self->err))) error(std::move(e));
      self->run = &deliver_error;
    }
    self->owner->complete_external_work(self);
  }

  /// Back on the loop thread: the work returned.
  static void deliver_value(runnable* r) {
    auto* self = static_cast<pool_job_for*>(r);
    if (self->owner->discarding()) [[unlikely]]
      return discard(self, self->value);
    stored_t<T> v(std::move(self->value));
    self->value.~stored_t<T>();
    release_then_call(self, self->cb, [&](H& cb) {
      if constexpr (std::is_void_v<T>)
        succeed<>(cb);
      else
        succeed<T>(cb, std::move(v));
    });
  }
  /// Back on the loop thread: the work threw.
  static void deliver_error(runnable* r) {
    auto* self = static_cast<pool_job_for*>(r);
    if (self->owner->discarding()) [[unlikely]]
      return discard(self, self->err);
    error e(std::move(self->err));
    self->err.~error();
    release_then_call(self, self->cb, [&](H& cb) {
      if constexpr (std::is_void_v<T>)
        fail<>(cb, std::move(e));
      else
        fail<T>(cb, std::move(e));
    });
  }
};

} // namespace detail

/// A fixed set of threads running queued work (libuv's threadpool).
class worker_pool {
public:
  /// Starts \p threads threads (libuv's default is 4).
  explicit worker_pool(unsigned threads = 4) : divisor_(2 * std::max(threads, 1u)) {
    if (threads == 0) threads = 1;
    shares_.reserve(threads);
    for (unsigned i = 0; i < threads; ++i) shares_.push_back(std::make_unique<share>());
    threads_.reserve(threads);
    for (unsigned i = 0; i < threads; ++i) threads_.emplace_back([this, i] { work_loop(*shares_[i]); });
  }
  /// Finishes the queued work, then joins the threads.
  ~worker_pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  worker_pool(const worker_pool&) = delete;
  worker_pool& operator=(const worker_pool&) = delete;

  /// The pool queue_work uses.
  static worker_pool& shared() {
    static worker_pool pool;
    return pool;
  }

  std::size_t size() const noexcept { return threads_.size(); }

  /// Runs `work()` on a pool thread, then `cb` with its result (or with the
  /// error it threw) on this thread's loop. Call from the loop thread. \p cb
  /// is a callback, or a continuation (error, T) / (error), kept in the job.
  template <class Work, class H = detail::callback_t<std::invoke_result_t<Work&>>>
    requires detail::handler_of_result<H, std::invoke_result_t<Work&>>
  void submit(Work work, H cb) {
    using T = std::invoke_result_t<Work&>;
    loop& l = loop::current();
    auto* job = detail::pool_new<detail::pool_job_for<Work, T, H>>(std::move(work), std::move(cb), &l);
    job->ctx = current_context(); // complete_external_work expects it set
    l.add_external_work();
    bool wake;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job->next = nullptr;
      if (tail_)
        tail_->next = job;
      else
        head_ = job;
      tail_ = job;
      ++queued_;
      wake = idle_ != 0 && !waking_;
      if (wake) waking_ = true;
    }
    if (wake) cv_.notify_one();
  }

private:
  /// The jobs a thread took from the queue and has not started yet. Its
  /// owner takes them one at a time under the share's own mutex, which no
  /// other thread wants while there is work in the queue; a thread that finds
  /// the queue empty takes the older half of another's share (work
  /// stealing), so no job waits in a busy thread's share while a thread is
  /// idle, even one whose owner is blocked in a job that waits for it.
  struct share {
    std::mutex mutex;
    detail::runnable* head = nullptr;
    detail::runnable* tail = nullptr;
    std::size_t count = 0;
  };

  /// A thread takes a share of the queue at a time, as OpenMP's guided
  /// schedule does: about 1/(2 x threads) of what is queued, at least one
  /// and at most 32. A burst of small jobs (fanout_pool: a million) then
  /// takes the pool's mutex a few times per 32 jobs instead of once per job,
  /// while a short queue, or a queue of long jobs near its end, is still
  /// dealt out one at a time. A share is not private: see `share`.
  ///
  /// At most one thread is being woken at a time (`waking_`): a thread that
  /// wakes and finds more work (in the queue, or in a share) wakes the next.
  /// Waking a sleeping thread for every job instead (libuv's rule) made a
  /// burst of small jobs a storm of futex calls and context switches: the
  /// threads emptied the queue faster than the loop filled it, went to
  /// sleep, and were woken for one job each.
  ///
  /// A thread sleeps only after it found the queue and every share empty,
  /// under the pool's mutex; work is added to the queue or to a share only
  /// under that mutex, by a thread that then wakes a sleeper if there is one.
  void work_loop(share& mine) {
    for (;;) {
      detail::runnable* job = take_from(mine);
      if (!job) job = find_work(mine);
      if (!job) return; // stopping, nothing left
      job->run(job); // the work; it then hands the job to its loop, which may free it
    }
  }

  /// The oldest job of \p s, if any.
  static detail::runnable* take_from(share& s) {
    std::lock_guard<std::mutex> lock(s.mutex);
    detail::runnable* r = s.head;
    if (r) {
      s.head = r->next;
      if (!s.head) s.tail = nullptr;
      --s.count;
    }
    return r;
  }

  /// With \p mine empty: a chunk of the queue, or half of another thread's
  /// share, or, once there is neither, a wait for more. Returns the job to
  /// run now (the rest of the chunk goes to \p mine); null when stopping.
  detail::runnable* find_work(share& mine) {
    detail::runnable* first = nullptr;
    bool wake_next = false;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      for (;;) {
        if (head_) {
          std::size_t take = std::clamp<std::size_t>(queued_ / divisor_, 1, 32);
          queued_ -= take;
          first = head_;
          detail::runnable* last = first;
          for (std::size_t i = 1; i < take; ++i) last = last->next;
          head_ = last->next;
          if (!head_) tail_ = nullptr;
          last->next = nullptr;
          if (take > 1) give(mine, first->next, last, take - 1);
          wake_next = head_ || take > 1;
          break;
        }
        if ((first = steal_for(mine, wake_next))) break;
        if (stopping_) return nullptr;
        ++idle_;
        cv_.wait(lock);
        --idle_;
        // Whoever got up (the one notified, or one woken spuriously while
        // it was) is up: the next job may wake another. Cleared on every
        // return from wait, even with nothing to take, or a notification
        // spent on a thread that found nothing would leave waking_ set and
        // the pool asleep for good.
        waking_ = false;
      }
      wake_next = wake_next && idle_ != 0 && !waking_;
      if (wake_next) waking_ = true;
    }
    if (wake_next) cv_.notify_one();
    return first;
  }

  /// Appends the \p n jobs first .. last to \p s (under the pool's mutex).
  static void give(share& s, detail::runnable* first, detail::runnable* last, std::size_t n) {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.tail)
      s.tail->next = first;
    else
      s.head = first;
    s.tail = last;
    s.count += n;
  }

  /// Under the pool's mutex: the older half (rounded up) of the first other
  /// share that has jobs. Returns the first of them (the rest go to \p
  /// mine); \p more says whether work is left for another thread.
  detail::runnable* steal_for(share& mine, bool& more) {
    for (auto& other : shares_) {
      if (other.get() == &mine) continue;
      detail::runnable* first;
      detail::runnable* last;
      std::size_t n;
      {
        std::lock_guard<std::mutex> lock(other->mutex);
        if (other->count == 0) continue;
        n = (other->count + 1) / 2;
        first = other->head;
        last = first;
        for (std::size_t i = 1; i < n; ++i) last = last->next;
        other->head = last->next;
        if (!other->head) other->tail = nullptr;
        other->count -= n;
        more = other->count != 0;
        last->next = nullptr;
      }
      if (n > 1) {
        give(mine, first->next, last, n - 1);
        more = true;
      }
      return first;
    }
    return nullptr;
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  detail::runnable* head_ = nullptr;
  detail::runnable* tail_ = nullptr;
  std::size_t queued_ = 0; // jobs in the queue
  unsigned idle_ = 0;      // threads waiting for a job
  bool waking_ = false;    // one of them has been notified and is not up yet
  const std::size_t divisor_; // twice the number of threads
  bool stopping_ = false;
  std::vector<std::unique_ptr<share>> shares_; // one per thread, made before the threads
  std::vector<std::thread> threads_;
};

/// Runs `work()` on the shared worker pool and completes \p cb with its
/// result on the loop (uv_queue_work). Usable from every style as a leaf.
template <class Work, class H = detail::callback_t<std::invoke_result_t<Work&>>>
  requires detail::handler_of_result<H, std::invoke_result_t<Work&>>
void queue_work(Work work, H cb) {
  worker_pool::shared().submit(std::move(work), std::move(cb));
}

/// \p n pseudo-random bytes made on the worker pool, like Node's
/// crypto.randomBytes (the fan-out article's example of pool work). The bytes
/// are a deterministic function of \p seed.
template <detail::handler_of<std::vector<std::uint8_t>> H = callback<std::vector<std::uint8_t>>>
void random_bytes(std::size_t n, std::uint64_t seed, H cb) {
  queue_work(
      [n, seed] {
        std::vector<std::uint8_t> out(n);
        std::uint64_t x = seed;
        for (std::size_t i = 0; i < n; ++i) {
          if (i % 8 == 0) x = detail::mix64(x + 0x9e3779b97f4a7c15ULL);
          out[i] = static_cast<std::uint8_t>(x >> (8 * (i % 8)));
        }
        return out;
      },
      std::move(cb));
}

/// For a leaf whose operation completes on a thread of its own (a library's
/// I/O thread, a std::thread): `from_any_thread(cb)`, called on the loop
/// thread, returns a move-only completion that may be called once from any
/// thread, as `done(err)` / `done({}, v)`. The call is handed back to the loop
/// (its lock-free inbox, as queue_work's results are), which then calls
/// \p cb on its own thread, in the async context the completion was made in.
/// Until then the loop's run() does not return. A completion destroyed
/// uncalled hands \p cb back to be destroyed uncalled (what waited on it
/// stays pending, as in callback style). \p cb itself, whose reference
/// count is not atomic, never leaves the loop thread:
///
///   void fetch(std::string url, asyncshift::callback<std::string> cb) {
///     std::thread([url, done = asyncshift::from_any_thread(std::move(cb))]() mutable {
///       done({}, blocking_get(url));
///     }).detach();
///   }
template <class... T>
class [[nodiscard]] thread_completion {
  struct node final : detail::runnable {
    callback<T...> cb;
    loop* owner;
    bool called = false;
    error err;
    std::optional<std::tuple<T...>> values; // set by a call with values
    node(callback<T...> c, loop* l) : cb(std::move(c)), owner(l) { run = &deliver; }
    /// On the loop thread.
    static void deliver(detail::runnable* r) {
      std::unique_ptr<node> self(static_cast<node*>(r));
      if (!self->called || self->owner->discarding()) [[unlikely]]
        return; // dropped uncalled, or the loop is going: the callback goes uncalled
      callback<T...> cb = std::move(self->cb);
      error e = std::move(self->err);
      std::optional<std::tuple<T...>> values = std::move(self->values);
      self.reset();
      if (values)
        std::apply([&](T&... v) { cb(std::move(e), std::move(v)...); }, *values);
      else
        cb(std::move(e)); // `done(err)` (a default value, as callback<T> gives), or a callback<>
    }
  };

public:
  /// On the loop thread.
  explicit thread_completion(callback<T...> cb) {
    loop& l = loop::current();
    n_ = new node(std::move(cb), &l);
    n_->ctx = current_context(); // complete_external_work expects it set
    l.add_external_work();
  }
  thread_completion(thread_completion&& o) noexcept : n_(std::exchange(o.n_, nullptr)) {}
  thread_completion& operator=(thread_completion&&) = delete;
  /// Uncalled: the callback goes back to the loop, to be destroyed there.
  ~thread_completion() {
    if (node* n = std::exchange(n_, nullptr)) n->owner->complete_external_work(n);
  }

  /// From any thread, once: `done(err)`, or `done({})` for a callback<>.
  void operator()(error e) {
    node* n = take();
    n->err = std::move(e);
    n->owner->complete_external_work(n);
  }
  /// From any thread, once: `done({}, v)`.
  template <class... V>
    requires(sizeof...(V) == sizeof...(T) && sizeof...(T) != 0)
  void operator()(error e, V&&... v) {
    node* n = take();
    n->err = std::move(e);
    n->values.emplace(static_cast<V&&>(v)...);
    n->owner->complete_external_work(n);
  }

private:
  node* take() {
    assert(n_ && "a thread_completion called twice, or after a move");
    node* n = std::exchange(n_, nullptr);
    n->called = true;
    return n;
  }
  node* n_ = nullptr;
};

template <class... T>
thread_completion<T...> from_any_thread(callback<T...> cb) {
  return thread_completion<T...>(std::move(cb));
}

} // namespace asyncshift
