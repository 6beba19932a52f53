// Move-only values through every style: std::unique_ptr, and containers of
// it, which claim to be copy-constructible (std::vector's copy constructor is
// not constrained) and then fail to compile when copied. A settled value with
// one reader is moved to it; these did not compile before
// detail::copyable_v (user trial 5).
#include <asyncshift/future.hpp>
#include <asyncshift/promise.hpp>
#include <asyncshift/task.hpp>

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

using namespace asyncshift;

namespace {

using up = std::unique_ptr<int>;
using ups = std::vector<up>;

static_assert(detail::copyable_v<int>);
static_assert(detail::copyable_v<std::string>);
static_assert(detail::copyable_v<std::vector<std::string>>);
static_assert(detail::copyable_v<std::map<int, std::vector<int>>>);
static_assert(!detail::copyable_v<up>);
static_assert(!detail::copyable_v<ups>);
static_assert(!detail::copyable_v<std::vector<ups>>);
static_assert(!detail::copyable_v<std::map<int, up>>);
static_assert(!detail::copyable_v<std::pair<int, ups>>);
static_assert(!detail::copyable_v<std::tuple<int, ups>>);
static_assert(!detail::copyable_v<std::optional<ups>>);
static_assert(!detail::copyable_v<result<ups>>);
static_assert(detail::copyable_v<result<std::vector<int>>>);

ups two(int a, int b) {
  ups v;
  v.push_back(std::make_unique<int>(a));
  v.push_back(std::make_unique<int>(b));
  return v;
}

} // namespace

TEST(move_only_values, a_task_awaits_a_promise_of_a_unique_ptr) {
  loop l(clock_kind::virtual_time);
  int got = 0;
  auto t = []() -> task<int> {
    auto p = co_await make_promise<up>([](auto cb) { cb({}, std::make_unique<int>(9)); });
    co_return *p;
  };
  start(t(), [&](error e, int v) { got = e ? -1 : v; });
  l.run();
  EXPECT_EQ(got, 9);
}

TEST(move_only_values, a_task_settles_a_promise_of_a_vector_of_unique_ptr) {
  loop l(clock_kind::virtual_time);
  int got = 0;
  auto t = []() -> task<int> {
    auto r = co_await settle(promise<ups>::resolve(two(4, 5)));
    co_return r.err ? -1 : *r.value[0] + *r.value[1];
  };
  start(t(), [&](error e, int v) { got = e ? -2 : v; });
  l.run();
  EXPECT_EQ(got, 9);
}

TEST(move_only_values, a_promise_of_a_vector_of_unique_ptr_reaches_a_by_value_handler) {
  loop l(clock_kind::virtual_time);
  int got = 0;
  promise<ups>::resolve(two(1, 2)).then([&](ups v) { got = *v[0] * 10 + *v[1]; });
  l.run();
  EXPECT_EQ(got, 12);
}

TEST(move_only_values, promise_all_of_unique_ptrs_hands_over_their_vector) {
  loop l(clock_kind::virtual_time);
  int got = 0;
  std::vector<promise<up>> ps;
  ps.push_back(promise<up>::resolve(std::make_unique<int>(3)));
  ps.push_back(make_promise<up>([](auto cb) { cb({}, std::make_unique<int>(4)); }));
  promise<up>::all(std::move(ps)).then([&](ups v) { got = *v[0] * 10 + *v[1]; });
  l.run();
  EXPECT_EQ(got, 34);
}

TEST(move_only_values, a_promise_of_a_map_of_unique_ptr_reaches_a_by_value_handler) {
  loop l(clock_kind::virtual_time);
  int got = 0;
  std::map<int, up> m;
  m.emplace(1, std::make_unique<int>(7));
  promise<std::map<int, up>>::resolve(std::move(m)).then([&](std::map<int, up> v) { got = *v.at(1); });
  l.run();
  EXPECT_EQ(got, 7);
}

TEST(move_only_values, future_when_all_of_unique_ptrs_reaches_a_by_value_handler) {
  loop l(clock_kind::virtual_time);
  int got = 0;
  std::vector<future<up>> fs;
  fs.push_back(make_ready_future(std::make_unique<int>(1)));
  fs.push_back(make_ready_future(std::make_unique<int>(2)));
  when_all(std::move(fs)).then([&](ups v) { got = *v[0] * 10 + *v[1]; });
  l.run();
  EXPECT_EQ(got, 12);
}

TEST(move_only_values, a_future_of_a_vector_of_unique_ptr_chains_by_value) {
  loop l(clock_kind::virtual_time);
  int got = 0;
  make_ready_future(two(5, 6))
      .then([](ups v) {
        v.push_back(std::make_unique<int>(7));
        return v;
      })
      .then([&](ups v) { got = *v[0] + *v[1] + *v[2]; });
  l.run();
  EXPECT_EQ(got, 18);
}

TEST(move_only_values, task_when_all_of_vectors_of_unique_ptr) {
  loop l(clock_kind::virtual_time);
  int got = 0;
  auto one = [](int a, int b) -> task<ups> { co_return two(a, b); };
  auto t = [&]() -> task<int> {
    std::vector<task<ups>> ts;
    ts.push_back(one(1, 2));
    ts.push_back(one(3, 4));
    auto all = co_await when_all(std::move(ts));
    int sum = 0;
    for (auto& v : all)
      for (auto& p : v) sum += *p;
    co_return sum;
  };
  start(t(), [&](error e, int v) { got = e ? -1 : v; });
  l.run();
  EXPECT_EQ(got, 10);
}

TEST(move_only_values, a_named_promise_of_a_unique_ptr_gives_it_to_its_one_reader) {
  // The handle `p` is still held when the value arrives: that is no second
  // reader (it asserted "read by more than one reaction").
  loop l(clock_kind::virtual_time);
  int got = 0;
  auto p = make_promise<up>([](auto cb) { cb({}, std::make_unique<int>(7)); });
  p.then([&](up v) { got = v ? *v : -1; });
  l.run();
  EXPECT_EQ(got, 7);
  EXPECT_TRUE(p.is_fulfilled());
}

TEST(move_only_values, a_named_promise_of_a_unique_ptr_is_awaited) {
  loop l(clock_kind::virtual_time);
  int got = 0;
  auto t = []() -> task<int> {
    auto p = make_promise<up>([](auto cb) { cb({}, std::make_unique<int>(8)); });
    auto v = co_await p;
    co_return *v;
  };
  start(t(), [&](error e, int v) { got = e ? -1 : v; });
  l.run();
  EXPECT_EQ(got, 8);
}

TEST(move_only_values, promise_all_settled_of_unique_ptrs) {
  loop l(clock_kind::virtual_time);
  int got = 0;
  std::vector<promise<up>> ps;
  ps.push_back(promise<up>::resolve(std::make_unique<int>(5)));
  ps.push_back(promise<up>::reject(error("no")));
  promise<up>::all_settled(std::move(ps)).then([&](std::vector<result<up>> v) { got = *v[0].value * 10 + (v[1].err ? 1 : 0); });
  l.run();
  EXPECT_EQ(got, 51);
}
