// What the adapters hand an operation: a detail::sink_callback, a callback<T>
// that also names the type of the handler it delivers to. An op that takes
// its handler as a template parameter (the doxbee world's ops) completes the
// waiting coroutine, promise or future state, or join, with a direct call
// to the handler's on_callback; anything that takes a callback<T> gets the
// callback it is, without a block of its own.
#include <asyncshift/combinators.hpp>
#include <asyncshift/doxbee.hpp>
#include <asyncshift/fanout.hpp>
#include <asyncshift/future.hpp>
#include <asyncshift/promise.hpp>
#include <asyncshift/promisify.hpp>

#include "counted.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

using namespace asyncshift;
using asyncshift::test::counted;

namespace {

template <class H>
constexpr bool is_sink = false;
template <class S, class... T>
constexpr bool is_sink<detail::sink_callback<S, T...>> = true;
template <class S, class... T>
constexpr bool is_sink<detail::borrowed_sink<S, T...>> = true;

// A handler that tells how it was reached: directly (on_callback, what a
// sink_callback calls) or through its ops table (what a plain callback calls).
struct probe : detail::handler<std::int64_t> {
  int direct = 0;
  int through_table = 0;
  std::int64_t value = -1;

  probe() : detail::handler<std::int64_t>{&ops_} {}
  static void on_callback(detail::handler<std::int64_t>* h, error&&, std::int64_t&& v) {
    auto* me = static_cast<probe*>(h);
    ++me->direct;
    me->value = v;
  }
  static void invoke(detail::handler<std::int64_t>* h, error&&, std::int64_t&& v) {
    auto* me = static_cast<probe*>(h);
    ++me->through_table;
    me->value = v;
  }
  static void no_destroy(detail::handler<std::int64_t>*) noexcept {}
  static constexpr detail::handler_ops<std::int64_t> ops_{&invoke, &no_destroy};
};
using probe_callback = detail::sink_callback<probe, std::int64_t>;

// A handler with a success entry as well: a success reaches on_value, with
// no error object made, and a failure on_callback.
struct value_probe : detail::handler<std::int64_t> {
  int values = 0;
  int errors = 0;

  value_probe() : detail::handler<std::int64_t>{&ops_} {}
  static void on_callback(detail::handler<std::int64_t>* h, error&& e, std::int64_t&&) {
    auto* me = static_cast<value_probe*>(h);
    me->errors += e ? 1 : 100; // a success here would be a miss
  }
  static void on_value(detail::handler<std::int64_t>* h, std::int64_t&&) { ++static_cast<value_probe*>(h)->values; }
  static void no_destroy(detail::handler<std::int64_t>*) noexcept {}
  static constexpr detail::handler_ops<std::int64_t> ops_{&on_callback, &no_destroy};
};
using value_probe_callback = detail::sink_callback<value_probe, std::int64_t>;

static_assert(std::is_base_of_v<callback<std::int64_t>, probe_callback>, "a sink callback is a callback<T>");
static_assert(sizeof(probe_callback) == sizeof(callback<std::int64_t>), "and still one word");

// A user leaf written against callback<T>, as generated code calls it.
void leaf(int v, callback<int> cb) { cb({}, v); }

struct sink_fixture : ::testing::Test {
  loop l{clock_kind::virtual_time};
  void SetUp() override {
    fake::configure({});
  }
  void TearDown() override { fake::configure({}); }
  static detail::memory_counts now() { return detail::memory_snapshot(); }
};

} // namespace

TEST_F(sink_fixture, a_template_op_completes_a_sink_callback_directly) {
  probe p;
  doxbee::blob(3).put(doxbee::stream{5}, probe_callback::borrow(&p));
  l.run();
  EXPECT_EQ(p.direct, 1);
  EXPECT_EQ(p.through_table, 0);
  EXPECT_GE(p.value, 0);
}

TEST_F(sink_fixture, as_a_plain_callback_it_goes_through_the_handlers_table) {
  probe p;
  callback<std::int64_t> plain = probe_callback::borrow(&p);
  doxbee::blob(3).put(doxbee::stream{5}, std::move(plain));
  l.run();
  EXPECT_EQ(p.direct, 0);
  EXPECT_EQ(p.through_table, 1);
}

TEST_F(sink_fixture, converting_to_callback_shares_the_sink_and_allocates_nothing) {
  probe p;
  auto sink = probe_callback::borrow(&p);
  const auto start = now();
  callback<std::int64_t> copied = sink;
  callback<std::int64_t> moved = std::move(sink);
  EXPECT_EQ(now().allocs, start.allocs) << "a sink callback must not be wrapped in a block of its own";
  copied({}, 4);
  EXPECT_EQ(p.through_table, 1);
  EXPECT_EQ(p.value, 4);
}

TEST_F(sink_fixture, promisify_hands_its_start_a_sink_into_the_awaiter) {
  bool saw_sink = false;
  std::int64_t got = -1;
  auto body = [&]() -> task<> {
    got = co_await promisify<std::int64_t>([&](auto cb) {
      saw_sink = is_sink<decltype(cb)>;
      doxbee::blob(3).put(doxbee::stream{5}, std::move(cb));
    });
  };
  start(body(), [](error e) { EXPECT_FALSE(e); });
  l.run();
  EXPECT_TRUE(saw_sink);
  EXPECT_GE(got, 0);
}

TEST_F(sink_fixture, make_promise_and_make_future_hand_their_start_a_sink_into_the_state) {
  bool promise_sink = false, future_sink = false;
  std::int64_t from_promise = -1, from_future = -1;
  make_promise<std::int64_t>([&](auto cb) {
    promise_sink = is_sink<decltype(cb)>;
    doxbee::blob(3).put(doxbee::stream{5}, std::move(cb));
  }).then([&](std::int64_t v) { from_promise = v; });
  make_future<std::int64_t>([&](auto cb) {
    future_sink = is_sink<decltype(cb)>;
    doxbee::blob(3).put(doxbee::stream{5}, std::move(cb));
  }).then([&](std::int64_t v) { from_future = v; });
  l.run();
  EXPECT_TRUE(promise_sink);
  EXPECT_TRUE(future_sink);
  EXPECT_GE(from_promise, 0);
  EXPECT_EQ(from_promise, from_future);
}

TEST_F(sink_fixture, a_leaf_taking_callback_gets_the_states_reference_and_nothing_leaks) {
  const auto start = now();
  int from_promise = 0, from_future = 0;
  {
    auto p = make_promise<int>([&](auto cb) {
      auto spare = cb; // a second reference on the state, dropped unused
      leaf(7, std::move(cb));
    });
    p.then([&](int v) { from_promise = v; });
    auto f = make_future<int>([&](auto cb) { leaf(8, cb); }).then([&](int v) { from_future = v; });
    l.run();
  }
  EXPECT_EQ(from_promise, 7);
  EXPECT_EQ(from_future, 8);
  EXPECT_EQ(now().live_objects, start.live_objects);
}

TEST_F(sink_fixture, an_owning_sink_keeps_a_dropped_promise_state_alive_until_the_op_completes) {
  const auto start = now();
  std::int64_t got = -1;
  {
    // The promise itself is gone before the op completes; the node's handler
    // holds the state.
    auto p = make_promise<std::int64_t>([&](auto cb) { doxbee::blob(3).put(doxbee::stream{5}, std::move(cb)); });
    p.then([&](std::int64_t v) { got = v; });
  }
  EXPECT_GT(now().live_objects, start.live_objects);
  l.run();
  EXPECT_GE(got, 0);
  EXPECT_EQ(now().live_objects, start.live_objects);
}

namespace {
// An owned sink that records whether it was still alive when its success
// arrived, and when it was destroyed.
struct owned_probe : detail::handler<std::int64_t> {
  static inline int values = 0;
  static inline int destroyed = 0;
  static inline bool alive_in_call = false;
  owned_probe() : detail::handler<std::int64_t>{&ops_} {}
  static void on_callback(detail::handler<std::int64_t>*, error&&, std::int64_t&&) { values += 100; }
  static void on_value(detail::handler<std::int64_t>*, std::int64_t&&) {
    ++values;
    alive_in_call = destroyed == 0;
  }
  static void destroy(detail::handler<std::int64_t>* h) noexcept {
    ++destroyed;
    delete static_cast<owned_probe*>(h);
  }
  static constexpr detail::handler_ops<std::int64_t> ops_{&on_callback, &destroy};
};
} // namespace

// An op's completion is its callback's last use: succeed_last empties a
// borrowing callback before the call (so that the call can be the op's last
// act); an owning one keeps its reference, and with it the sink, through the
// call, and its destructor drops it.
TEST(sink_callback, delivering_last_empties_a_borrowing_callback_and_an_owning_one_keeps_its_sink_through_the_call) {
  value_probe p;
  auto borrowed = value_probe_callback::borrow(&p);
  detail::succeed_last<std::int64_t>(borrowed, 1);
  EXPECT_EQ(p.values, 1);
  EXPECT_EQ(p.errors, 0);
  EXPECT_FALSE(borrowed);

  auto empty = value_probe_callback::adopt_raw(0); // neither borrows nor owns: the call is ignored
  detail::succeed_last<std::int64_t>(empty, 3);
  EXPECT_EQ(p.values, 1);
  EXPECT_FALSE(empty);

  {
    auto* o = new owned_probe; // one reference: the callback's
    auto owned = detail::sink_callback<owned_probe, std::int64_t>::adopt_owning(o);
    detail::succeed_last<std::int64_t>(owned, 2);
    EXPECT_EQ(owned_probe::values, 1);
    EXPECT_TRUE(owned_probe::alive_in_call);
    EXPECT_EQ(owned_probe::destroyed, 0);
  }
  EXPECT_EQ(owned_probe::destroyed, 1);
}

TEST_F(sink_fixture, parallel_and_each_series_hand_their_steps_sinks) {
  bool branch_sinks = true, step_sinks = true;
  int joined = 0, stepped = 0;
  parallel(3, [&](std::size_t, auto cb) {
    branch_sinks = branch_sinks && is_sink<decltype(cb)>;
    doxbee::transaction(1).commit(std::move(cb));
  }, [&](error e) { joined += e ? -100 : 1; });
  each_series(3, [&](std::size_t, auto cb) {
    step_sinks = step_sinks && is_sink<decltype(cb)>;
    doxbee::transaction(1).commit(std::move(cb));
  }, [&](error e) { stepped += e ? -100 : 1; });
  l.run();
  EXPECT_TRUE(branch_sinks);
  EXPECT_TRUE(step_sinks);
  EXPECT_EQ(joined, 1);
  EXPECT_EQ(stepped, 1);
}

TEST_F(sink_fixture, when_all_hands_each_operation_branch_its_joins_sink) {
  bool all_sinks = true;
  int started = 0;
  bool done = false;
  auto body = [&]() -> task<> {
    co_await when_all(3, [&](std::size_t) {
      return promisify([&](auto cb) {
        all_sinks = all_sinks && is_sink<decltype(cb)>;
        ++started;
        doxbee::transaction(1).commit(std::move(cb));
      });
    });
    done = true;
  };
  start(body(), [](error e) { EXPECT_FALSE(e); });
  l.run();
  EXPECT_EQ(started, 3);
  EXPECT_TRUE(all_sinks) << "the op should complete parallel's branch sink directly";
  EXPECT_TRUE(done);
}

TEST_F(sink_fixture, a_failed_op_fails_the_sink_with_its_error) {
  fake::settings_t s;
  s.error_rate = 1;
  fake::configure(s);
  std::string msg;
  auto body = [&]() -> task<> {
    auto [err, v] = co_await settle(promisify<std::int64_t>(
        [&](auto cb) { doxbee::blob(3).put(doxbee::stream{5}, std::move(cb)); }));
    msg = err.message();
    EXPECT_EQ(v, 0);
  };
  context c; // failures are drawn per execution
  {
    context_scope scope(&c);
    start(body(), [](error e) { EXPECT_FALSE(e); });
  }
  l.run();
  EXPECT_FALSE(msg.empty());
}

TEST_F(sink_fixture, a_success_reaches_on_value_and_a_failure_on_callback) {
  value_probe ok, failed;
  doxbee::blob(3).put(doxbee::stream{5}, value_probe_callback::borrow(&ok));
  l.run();
  EXPECT_EQ(ok.values, 1);
  EXPECT_EQ(ok.errors, 0);
  fake::settings_t s;
  s.error_rate = 1;
  fake::configure(s);
  context c; // failures are drawn per execution
  {
    context_scope scope(&c);
    doxbee::blob(3).put(doxbee::stream{5}, value_probe_callback::borrow(&failed));
  }
  l.run();
  EXPECT_EQ(failed.values, 0);
  EXPECT_EQ(failed.errors, 1);
}

TEST_F(sink_fixture, a_template_op_that_succeeds_drops_the_on_error_cleanup_of_a_promise_or_future) {
  // cleanup_promise_state and cleanup_future_state have success entries of
  // their own: the base's would leave the cleanup's captures alive.
  counted::reset();
  std::int64_t from_promise = -1, from_future = -1;
  auto p = make_promise<std::int64_t>([&](auto cb) { doxbee::blob(3).put(doxbee::stream{5}, std::move(cb)); },
                                      on_error([c = counted(1)](const error&) { ADD_FAILURE() << "no error"; }));
  auto f = make_future<std::int64_t>([&](auto cb) { doxbee::blob(3).put(doxbee::stream{5}, std::move(cb)); },
                                     on_error([c = counted(2)](const error&) { ADD_FAILURE() << "no error"; }));
  EXPECT_EQ(counted::active(), 2);
  l.run();
  EXPECT_EQ(counted::active(), 0) << "the cleanups' captures go when the ops succeed, not with the promise or future";
  p.then([&](std::int64_t v) { from_promise = v; });
  std::move(f).then([&](std::int64_t v) { from_future = v; });
  l.run();
  EXPECT_GE(from_promise, 0);
  EXPECT_EQ(from_promise, from_future);
}

// borrowed_sink: what parallel hands its branches and an awaited operation
// its start. Copied and destroyed trivially (an op passes it on in a
// register, with no empty callback to destroy after each hop); calls and
// successes reach the sink directly; as a callback<T> it borrows, with no
// block of its own (callback's constructor from continuations must not wrap
// it: 32 bytes per parallel branch when it did).
TEST_F(sink_fixture, a_borrowed_sink_is_a_trivial_handle_that_converts_to_a_borrowing_callback) {
  using borrowed = detail::borrowed_sink<value_probe, std::int64_t>;
  static_assert(std::is_trivially_copyable_v<borrowed> && std::is_trivially_destructible_v<borrowed>);
  static_assert(sizeof(borrowed) == sizeof(void*));
  value_probe p;
  borrowed b = borrowed::borrow(&p);
  detail::succeed<std::int64_t>(b, std::int64_t{3});
  EXPECT_EQ(p.values, 1) << "a success goes to on_value";
  p.called = false; // the called-twice mark (debug builds), reset for the next delivery
  b(error("no"), 0);
  EXPECT_EQ(p.errors, 1) << "a failure goes to on_callback";
  p.called = false;
  const auto start = now();
  callback<std::int64_t> as_callback = b;
  EXPECT_EQ(now().allocs, start.allocs) << "converting must borrow, not wrap the handle in a block";
  as_callback({}, 4);
  EXPECT_EQ(p.errors, 101) << "a plain callback reaches the sink through its table (on_callback here)";
}
