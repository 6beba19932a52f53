// An op's completion handler: a callback<T...>, or a continuation lambda
// that the op keeps in its timer node (one block per op, as Asio keeps a
// handler in its operation), for the doxbee world's ops and fake::start_io.
#include "counted.hpp"

#include <asyncshift/doxbee.hpp>
#include <asyncshift/promisify.hpp>

#include <gtest/gtest.h>

#include <string>
#include <utility>

using namespace asyncshift;
using asyncshift::test::counted;

namespace {

struct op_fixture : ::testing::Test {
  loop l{clock_kind::virtual_time};
  void SetUp() override {
    counted::reset();
    fake::configure({});
  }
  void TearDown() override { fake::configure({}); }

  static detail::memory_counts now() { return detail::memory_snapshot(); }

  static void fail_every_op() {
    fake::settings_t s;
    s.error_rate = 1;
    fake::configure(s);
  }
};

// What the callback style hands an op, and what the other styles hand it.
template <class H>
concept commit_accepts = requires(const doxbee::transaction& tx, H h) { tx.commit(std::move(h)); };
template <class H>
concept put_accepts = requires(const doxbee::blob& b, H h) { b.put(doxbee::stream{}, std::move(h)); };

} // namespace

static_assert(commit_accepts<callback<>>);
static_assert(commit_accepts<decltype([](error) {})>);
static_assert(!commit_accepts<decltype([](int) {})>, "a handler that cannot take the error is refused");
static_assert(!commit_accepts<decltype([](error, std::int64_t) {})>, "commit completes without a value");
static_assert(put_accepts<callback<std::int64_t>>);
static_assert(put_accepts<decltype([](error, std::int64_t) {})>);
static_assert(put_accepts<decltype([](error) {})>, "a continuation may ignore the value, as callback<T> allows");
static_assert(!put_accepts<decltype([](error, std::string) {})>);

// An op's timer node runs a continuation lambda from a flattened fire (g++
// kept some of the callback style's continuations out of line), and the
// runtime's own handlers from the plain one.
static_assert(!detail::is_runtime_handler<decltype([](error) {})>::value);
static_assert(detail::is_runtime_handler<callback<>>::value);
static_assert(detail::is_runtime_handler<callback<std::int64_t>>::value);
static_assert(detail::is_runtime_handler<detail::mapping_handler<std::int64_t, int, callback<int>, int (*)(std::int64_t)>>::value);
using lambda_node = fake::detail::io_node<fake::detail::deliver_nothing, decltype([](error) {})>;
static_assert(lambda_node::fire_fn == &lambda_node::fire_flattened);
using callback_node = fake::detail::io_node<fake::detail::deliver_nothing, callback<>>;
static_assert(callback_node::fire_fn == &callback_node::fire);

TEST_F(op_fixture, a_lambda_lives_in_the_ops_timer_node_one_block_per_op) {
  const auto start = now();
  doxbee::transaction(1).commit([](error) {});
  EXPECT_EQ(now().allocs - start.allocs, 1u);
  l.run();
  EXPECT_EQ(now().live_objects, start.live_objects);
}

TEST_F(op_fixture, a_callback_is_a_block_of_its_own_and_the_node_holds_a_pointer) {
  const auto start = now();
  doxbee::transaction(1).commit(callback<>([](error) {}));
  const auto pending = now();
  EXPECT_EQ(pending.allocs - start.allocs, 2u);
  l.run();
  EXPECT_EQ(now().live_objects, start.live_objects);
}

TEST_F(op_fixture, the_lambda_runs_once_with_the_ops_value_then_its_captures_go) {
  std::int64_t got = -1;
  int calls = 0;
  {
    counted c(7);
    doxbee::blob(3).put(doxbee::stream{5}, [&, c = std::move(c)](error e, std::int64_t v) {
      EXPECT_FALSE(e);
      EXPECT_EQ(c.id, 7);
      got = v;
      ++calls;
    });
  }
  EXPECT_EQ(counted::copy_constructions, 0) << "the continuation is moved into the node, never copied";
  EXPECT_EQ(counted::active(), 1) << "the node holds the capture until the op completes";
  l.run();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(counted::active(), 0);
  std::int64_t expected = -2;
  doxbee::blob(3).put(doxbee::stream{5}, callback<std::int64_t>([&](error, std::int64_t v) { expected = v; }));
  l.run();
  EXPECT_EQ(got, expected) << "a lambda and a callback see the same value";
}

TEST_F(op_fixture, a_failed_op_gives_the_lambda_the_error_and_a_default_value) {
  fail_every_op();
  context c;
  std::string message;
  std::int64_t value = -1;
  doxbee::file_record file{4, 4};
  {
    context_scope scope(&c);
    doxbee::blob(1).put(doxbee::stream{2}, [&](error e, std::int64_t v) {
      message = std::string(e.message());
      value = v;
    });
    doxbee::query(&doxbee::ops::blob_put, 1).get([&](error e, doxbee::file_record f) {
      EXPECT_TRUE(e);
      file = f;
    });
  }
  l.run();
  EXPECT_EQ(message, "injected failure: blob.put #0");
  EXPECT_EQ(value, 0);
  EXPECT_FALSE(file);
}

TEST_F(op_fixture, a_lambda_that_takes_only_the_error_completes_a_value_op) {
  int calls = 0;
  doxbee::blob(1).put(doxbee::stream{2}, [&](error e) {
    EXPECT_FALSE(e);
    ++calls;
  });
  l.run();
  EXPECT_EQ(calls, 1);
}

TEST_F(op_fixture, create_query_calls_a_lambda_at_once_and_allocates_nothing) {
  const auto start = now();
  bool called = false;
  doxbee::self.createQuery("a/b", {1, 2, "b", 3}, [&](error e, doxbee::query) {
    EXPECT_FALSE(e);
    called = true;
  });
  EXPECT_TRUE(called) << "createQuery completes synchronously, as in the original";
  EXPECT_EQ(now().allocs, start.allocs);
}

TEST_F(op_fixture, a_lambda_and_a_callback_start_the_same_trace) {
  auto trace_of = [&](auto start) {
    context c;
    c.start_ns = l.now_ns(); // the trace records start times relative to this
    {
      context_scope scope(&c);
      start();
    }
    l.run();
    return c.trace;
  };
  const doxbee::transaction tx(9);
  const doxbee::query q = doxbee::FileVersion.insert(1, 2);
  const auto with_lambda = trace_of([&] { q.execWithin(tx, [](error) {}); });
  const auto with_callback = trace_of([&] { q.execWithin(tx, callback<>([](error) {})); });
  EXPECT_NE(with_lambda, 0u);
  EXPECT_EQ(with_lambda, with_callback);
}

namespace {
/// A capture whose move constructor may throw (it never does here).
struct throwing_move {
  int* moves;
  explicit throwing_move(int* m) : moves(m) {}
  throwing_move(const throwing_move&) = default;
  throwing_move(throwing_move&& other) noexcept(false) : moves(other.moves) { ++*moves; }
};
} // namespace

TEST_F(op_fixture, a_handler_whose_move_may_throw_runs_in_its_node_which_then_goes) {
  int moves = 0;
  int calls = 0;
  const auto start = now();
  doxbee::transaction(1).commit([&calls, t = throwing_move(&moves)](error) { ++calls; });
  const int moves_to_start = moves;
  l.run();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(moves, moves_to_start) << "not moved out of the node to run";
  EXPECT_EQ(now().live_objects, start.live_objects);
}

TEST_F(op_fixture, a_handler_that_throws_leaves_no_node_behind) {
  for (bool throwing_move_ctor : {false, true}) {
    const auto start = now();
    int moves = 0;
    if (throwing_move_ctor)
      doxbee::transaction(1).commit([t = throwing_move(&moves)](error) { throw std::runtime_error("handler"); });
    else
      doxbee::transaction(1).commit([](error) { throw std::runtime_error("handler"); });
    EXPECT_THROW(l.run(), std::runtime_error);
    EXPECT_EQ(now().live_objects, start.live_objects) << "throwing_move_ctor " << throwing_move_ctor;
  }
}
