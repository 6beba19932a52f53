// The simulated I/O: trace recording, values, and scheduling-independent
// error injection.
#include <asyncshift/fake.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace asyncshift;

namespace {

struct io_fixture : ::testing::Test {
  loop l{clock_kind::virtual_time};
  void SetUp() override {
    fake::settings_t s;
    s.latency_ns = 1000;
    s.error_rate = 0.5;
    s.seed = 7;
    fake::configure(s);
  }
  void TearDown() override { fake::configure({}); }
};

} // namespace

TEST_F(io_fixture, an_op_completes_after_the_latency_with_a_value_of_op_and_arg) {
  fake::configure({});
  std::int64_t value = 0;
  std::int64_t at = -1;
  fake::io("read", 5, [&](error e, std::int64_t v) {
    ASSERT_FALSE(e);
    value = v;
    at = l.now_ns();
  });
  l.run();
  EXPECT_EQ(at, fake::settings().latency_ns);
  EXPECT_EQ(value, fake::value_of(fake::detail::intern("read"), 5));
}

TEST_F(io_fixture, failures_depend_on_op_ordinal_not_on_scheduling_order) {
  // Two executions start the same ops in opposite orders; each op's fate
  // depends only on (seed, k, op, ordinal).
  auto fates = [&](bool reversed) {
    std::vector<context> ctx(2);
    ctx[0].k = 0;
    ctx[1].k = 1;
    std::vector<int> failed(2 * 8, -1);
    for (int round = 0; round < 2; ++round) {
      int k = reversed ? 1 - round : round;
      context_scope scope(&ctx[k]);
      for (int i = 0; i < 8; ++i)
        fake::io("op", i, [&failed, k, i](error e, std::int64_t) { failed[k * 8 + i] = e ? 1 : 0; });
    }
    l.run();
    return failed;
  };
  auto a = fates(false);
  auto b = fates(true);
  EXPECT_EQ(a, b);
  int failures = 0;
  for (int f : a) failures += f;
  EXPECT_GT(failures, 0);
  EXPECT_LT(failures, 16);
}

TEST_F(io_fixture, the_trace_is_an_order_independent_hash_of_starts) {
  fake::configure({});
  context a, b;
  {
    context_scope s(&a);
    fake::io("x", 1, [](error, std::int64_t) {});
    fake::io("y", 2, [](error, std::int64_t) {});
  }
  {
    context_scope s(&b);
    fake::io("y", 2, [](error, std::int64_t) {});
    fake::io("x", 1, [](error, std::int64_t) {});
  }
  l.run();
  EXPECT_EQ(a.trace, b.trace);
  EXPECT_EQ(a.ops_started, 2u);
  context c;
  {
    context_scope s(&c);
    fake::io("x", 1, [](error, std::int64_t) {});
    fake::io("y", 3, [](error, std::int64_t) {});
  }
  l.run();
  EXPECT_NE(a.trace, c.trace) << "a different argument must change the trace";
}

TEST_F(io_fixture, the_trace_tells_apart_missing_extra_moved_and_swapped_ops) {
  fake::configure({});
  // Each execution starts its ops at the given offsets (0 or one latency).
  struct start {
    const char* op;
    std::int64_t arg;
    bool later;
  };
  auto trace_of = [&](std::vector<start> ops) {
    context c;
    c.start_ns = l.now_ns();
    std::vector<start> later;
    {
      context_scope s(&c);
      for (auto& o : ops)
        if (!o.later) fake::io(o.op, o.arg, [](error, std::int64_t) {});
        else later.push_back(o);
      if (!later.empty())
        l.set_timeout(fake::settings().latency_ns, [later] {
          for (auto& o : later) fake::io(o.op, o.arg, [](error, std::int64_t) {});
        });
    }
    l.run();
    return c.trace;
  };
  const auto base = trace_of({{"x", 1, false}, {"y", 2, false}, {"z", 3, true}});
  EXPECT_EQ(base, trace_of({{"z", 3, true}, {"y", 2, false}, {"x", 1, false}})) << "order does not matter";
  EXPECT_NE(base, trace_of({{"x", 1, false}, {"y", 2, false}})) << "a missing op";
  EXPECT_NE(base, trace_of({{"x", 1, false}, {"y", 2, false}, {"z", 3, true}, {"z", 3, true}})) << "an extra op";
  EXPECT_NE(base, trace_of({{"x", 1, false}, {"y", 2, false}, {"z", 3, false}})) << "an op started at another time";
  EXPECT_NE(base, trace_of({{"x", 2, false}, {"y", 1, false}, {"z", 3, true}})) << "arguments swapped between ops";
  EXPECT_NE(base, trace_of({{"x", 1, false}, {"w", 2, false}, {"z", 3, true}})) << "another op with the same argument";
}

TEST_F(io_fixture, a_failed_op_names_itself_and_its_ordinal) {
  fake::settings_t s;
  s.error_rate = 1;
  fake::configure(s);
  context c;
  std::vector<std::string> messages;
  {
    context_scope scope(&c);
    for (int i = 0; i < 12; ++i)
      fake::io("read", i, [&](error e, std::int64_t) { messages.push_back(e ? std::string(e.message()) : "ok"); });
    fake::io("write", 9, callback<>([&](error e) { messages.push_back(e ? std::string(e.message()) : "ok"); }));
  }
  l.run();
  ASSERT_EQ(messages.size(), 13u);
  EXPECT_EQ(messages[0], "injected failure: read #0");
  EXPECT_EQ(messages[1], "injected failure: read #1");
  EXPECT_EQ(messages[9], "injected failure: read #9");
  EXPECT_EQ(messages[10], "injected failure: read #10") << "every digit of the ordinal";
  EXPECT_EQ(messages[11], "injected failure: read #11");
  EXPECT_EQ(messages[12], "injected failure: write #0");
}

TEST_F(io_fixture, a_pending_op_holds_one_48_byte_block) {
  // Every op of every style makes one timer node, and a million-op fan-out
  // keeps them all alive at once: 48 bytes is a timer node and a callback.
  fake::configure({});
  const auto start = asyncshift::detail::memory_snapshot();
  fake::io(fake::detail::intern("read"), 1, callback<std::int64_t>{});
  const auto pending = asyncshift::detail::memory_snapshot();
  EXPECT_EQ(pending.live_bytes - start.live_bytes, 48);
  EXPECT_EQ(pending.allocs - start.allocs, 1u);
  l.run();
  EXPECT_EQ(asyncshift::detail::memory_snapshot().live_bytes, start.live_bytes);
}

TEST(context, counts_ordinals_per_op_id_past_the_inline_array_too) {
  // Ids below inline_ops count in the context's array, later ones in its
  // map (the out-of-line path): each id counts on its own, from 0.
  context c;
  const std::uint32_t ids[] = {0, 3, context::inline_ops - 1, context::inline_ops, context::inline_ops + 40};
  for (std::uint32_t round = 0; round < 3; ++round)
    for (std::uint32_t id : ids) EXPECT_EQ(c.next_ordinal(id), round) << "op id " << id;
  EXPECT_EQ(c.next_ordinal(1), 0u) << "an id never counted starts at 0";
  EXPECT_EQ(c.next_ordinal(context::inline_ops + 1), 0u) << "an id never counted starts at 0";
}
