// join_values: how promise all, future when_all and task when_all collect
// their inputs' values.
#include <asyncshift/detail/join_values.hpp>
#include <asyncshift/future.hpp>
#include <asyncshift/promise.hpp>

#include <gtest/gtest.h>

#include "counted.hpp"

#include <vector>

using asyncshift::detail::join_values;
using asyncshift::test::counted;

namespace {

/// A value type with no default constructor.
struct no_default {
  explicit no_default(int v) : value(v) {}
  int value;
};

std::vector<int> ids(const std::vector<counted>& v) {
  std::vector<int> out;
  for (const auto& c : v) out.push_back(c.id);
  return out;
}

} // namespace

TEST(join_values, values_come_out_in_input_order_whatever_order_they_arrived_in) {
  join_values<int> v;
  v.expect(3);
  v.set(2, 30);
  v.set(0, 10);
  v.set(1, 20);
  EXPECT_EQ(v.take(), (std::vector<int>{10, 20, 30}));
}

TEST(join_values, a_default_constructible_value_is_stored_in_the_vector_handed_over) {
  // No second vector and no copy loop: the values are not moved again at the end.
  counted::reset();
  join_values<counted> v;
  v.expect(2);
  v.set(1, counted(2));
  v.set(0, counted(1));
  const int moves_before_take = counted::move_constructions;
  std::vector<counted> out = v.take();
  EXPECT_EQ(counted::move_constructions, moves_before_take);
  EXPECT_EQ(counted::copy_constructions, 0);
  EXPECT_EQ(ids(out), (std::vector<int>{1, 2}));
}

TEST(join_values, the_vector_is_made_when_the_first_value_arrives) {
  // Not when the join is: a fan-out's vector of promises or futures is gone
  // by then, and the two are never alive at once.
  counted::reset();
  join_values<counted> v;
  v.expect(3);
  EXPECT_EQ(counted::constructions(), 0);
  v.set(1, counted(2));
  EXPECT_EQ(counted::default_constructions, 3 + 1); // the three places, and the value itself
  EXPECT_EQ(counted::active(), 3);
}

TEST(join_values, a_value_without_a_default_constructor_waits_in_an_optional) {
  join_values<no_default> v;
  v.expect(2);
  v.set(1, no_default(2));
  v.set(0, 1); // made in place from its constructor's argument
  std::vector<no_default> out = v.take();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].value, 1);
  EXPECT_EQ(out[1].value, 2);
}

TEST(join_values, promise_all_and_future_when_all_collect_a_value_without_a_default_constructor) {
  asyncshift::loop l(asyncshift::clock_kind::virtual_time);
  std::vector<asyncshift::promise<no_default>> ps;
  ps.push_back(asyncshift::promise<no_default>::resolve(no_default(1)));
  ps.push_back(asyncshift::promise<no_default>::resolve(no_default(2)));
  int promise_sum = 0;
  asyncshift::promise<no_default>::all(std::move(ps)).then([&](std::vector<no_default> v) {
    for (auto& x : v) promise_sum = promise_sum * 10 + x.value;
  });
  std::vector<asyncshift::future<no_default>> fs;
  fs.push_back(asyncshift::make_ready_future_of<no_default>(no_default(3)));
  fs.push_back(asyncshift::make_ready_future_of<no_default>(no_default(4)));
  int future_sum = 0;
  asyncshift::when_all(std::move(fs)).then([&](std::vector<no_default> v) {
    for (auto& x : v) future_sum = future_sum * 10 + x.value;
  });
  // (A task's branches deliver through a callback<T>, whose failure makes a
  // default T: task when_all needs one anyway.)
  l.run();
  EXPECT_EQ(promise_sum, 12);
  EXPECT_EQ(future_sum, 34);
}
