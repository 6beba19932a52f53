// callback_op::map: promisify(start).map(fn), an operation whose value goes
// through fn where it completes. Generated code uses it for a parallel branch
// that is one operation followed by `if (err) return cb(err); cb({}, f(v));`,
// so that the branch needs no coroutine frame, promise or future of its own.
#include "counted.hpp"
#include "sleep_for.hpp"

#include <asyncshift/fanout.hpp>
#include <asyncshift/loop.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

using namespace asyncshift;
using asyncshift::test::live_objects;
using asyncshift::test::ms;

namespace {

/// A template operation (as the runtime's ops): it keeps its handler, of any
/// type, in the timer's closure and completes it with \p v after \p delay,
/// or fails with \p fail_with when that is not empty.
template <class H>
void value_later(loop& l, std::int64_t delay, std::int64_t v, H h, std::string fail_with = {}) {
  l.set_timeout(delay, [h = std::move(h), v, fail_with]() mutable {
    if (!fail_with.empty()) return detail::fail<std::int64_t>(h, error(fail_with));
    detail::succeed<std::int64_t>(h, std::int64_t{v});
  });
}

} // namespace

TEST(mapped_op, awaited_yields_the_mapped_value_and_passes_a_failure_on_unchanged) {
  const auto before = live_objects();
  {
    loop l(clock_kind::virtual_time);
    std::string got;
    std::string failure;
    int mapped = 0;
    auto body = [&]() -> task<> {
      got = co_await promisify<std::int64_t>([&l](auto cb) { value_later(l, ms, 41, cb); })
                .map([&mapped](std::int64_t v) {
                  ++mapped;
                  return std::to_string(v + 1);
                });
      try {
        co_await promisify<std::int64_t>([&l](auto cb) { value_later(l, ms, 0, cb, "boom"); })
            .map([&mapped](std::int64_t v) {
              ++mapped;
              return v;
            });
      } catch (const error_exception& e) {
        failure = e.error().message();
      }
    };
    start(body(), [](error e) { EXPECT_FALSE(e); });
    l.run();
    EXPECT_EQ(got, "42");
    EXPECT_EQ(failure, "boom");
    EXPECT_EQ(mapped, 1) << "the function sees values only";
  }
  EXPECT_EQ(live_objects(), before);
}

TEST(mapped_op, an_exception_from_the_function_is_the_failure) {
  loop l(clock_kind::virtual_time);
  result<int> r;
  auto body = [&]() -> task<> {
    r = co_await settle(promisify<std::int64_t>([&l](auto cb) { value_later(l, ms, 7, cb); }).map([](std::int64_t v) -> int {
      if (v == 7) throw std::runtime_error("seven");
      return 0;
    }));
  };
  start(body(), [](error e) { EXPECT_FALSE(e); });
  l.run();
  ASSERT_TRUE(r.err);
  EXPECT_EQ(r.err.message(), "seven");
}

// An op written for callback<T> may call its handler with lvalues, and keep
// it in a lambda that is not mutable: the mapping handler takes both.
TEST(mapped_op, an_op_may_call_it_as_it_calls_a_callback) {
  loop l(clock_kind::virtual_time);
  std::vector<std::string> got;
  auto body = [&]() -> task<> {
    for (int fails = 0; fails < 2; ++fails) {
      auto r = co_await settle(promisify<std::int64_t>([&l, fails](auto cb) {
                                 l.set_timeout(ms, [cb, fails] {
                                   const error e = fails ? error("lvalue failure") : error{};
                                   const std::int64_t v = 5;
                                   cb(e, v);
                                 });
                               }).map([](std::int64_t v) { return std::to_string(v); }));
      got.push_back(r.err ? std::string(r.err.message()) : r.value);
    }
  };
  start(body(), [](error e) { EXPECT_FALSE(e); });
  l.run();
  EXPECT_EQ(got, (std::vector<std::string>{"5", "lvalue failure"}));
}

TEST(mapped_op, a_synchronous_completion_does_not_suspend) {
  loop l(clock_kind::virtual_time);
  double got = 0;
  bool done = false;
  auto body = [&]() -> task<> {
    got = co_await promisify<int>([](auto cb) { cb({}, 3); }).map([](int v) { return v / 2.0; });
  };
  start(body(), [&](error e) {
    EXPECT_FALSE(e);
    done = true;
  });
  EXPECT_TRUE(done) << "completed inside start, before the loop ran";
  EXPECT_EQ(got, 1.5);
}

// The point of map: a template operation keeps the mapping handler where it
// keeps any handler, so a mapped operation allocates what the plain one does.
TEST(mapped_op, a_template_operation_keeps_the_mapping_inline_with_no_block_of_its_own) {
  auto allocs_of = [](auto make_op) {
    loop l(clock_kind::virtual_time);
    const auto before = detail::memory_snapshot().allocs;
    auto body = [&]() -> task<> { (void)co_await make_op(l); };
    start(body(), [](error e) { EXPECT_FALSE(e); });
    l.run();
    return detail::memory_snapshot().allocs - before;
  };
  const auto plain = allocs_of([](loop& l) { return promisify<std::int64_t>([&l](auto cb) { value_later(l, ms, 1, cb); }); });
  const auto mapped = allocs_of([](loop& l) {
    return promisify<std::int64_t>([&l](auto cb) { value_later(l, ms, 1, cb); }).map([](std::int64_t v) { return v * 2; });
  });
  EXPECT_EQ(mapped, plain);
}

// A fan-out of mapped operations, awaited and as a future and a promise: the
// values in index order, or the first error, with no state per branch.
TEST(mapped_op, fan_out_branches_yield_mapped_values_in_order_or_the_first_error_in_every_style) {
  const auto before = live_objects();
  {
    loop l(clock_kind::virtual_time);
    auto branches = [&l](std::string fail_at) {
      return [&l, fail_at](std::size_t i) {
        return promisify<std::int64_t>([&l, i, fail_at](auto cb) {
                 const bool fails = !fail_at.empty() && i == 1;
                 value_later(l, static_cast<std::int64_t>(3 - i) * ms, static_cast<std::int64_t>(i), cb, fails ? fail_at : "");
               })
            .map([](std::int64_t v) { return "v" + std::to_string(v); });
      };
    };
    const std::vector<std::string> expected{"v0", "v1", "v2"};
    std::vector<std::string> awaited, from_future, from_promise;
    std::string awaited_error, future_error, promise_error;
    auto body = [&]() -> task<> {
      awaited = co_await when_all(3, branches(""));
      awaited_error = (co_await settle(when_all(3, branches("one")))).err.message();
    };
    start(body(), [](error e) { EXPECT_FALSE(e); });
    make_future(when_all(3, branches(""))).then([&](std::vector<std::string> v) { from_future = std::move(v); });
    make_future(when_all(3, branches("two"))).then([](std::vector<std::string>) { ADD_FAILURE(); },
                                                   [&](error e) { future_error = e.message(); });
    make_promise(when_all(3, branches(""))).then([&](std::vector<std::string> v) { from_promise = std::move(v); });
    make_promise(when_all(3, branches("three"))).then([](std::vector<std::string>) { ADD_FAILURE(); },
                                                      [&](error e) { promise_error = e.message(); });
    l.run();
    EXPECT_EQ(awaited, expected);
    EXPECT_EQ(from_future, expected);
    EXPECT_EQ(from_promise, expected);
    EXPECT_EQ(awaited_error, "one");
    EXPECT_EQ(future_error, "two");
    EXPECT_EQ(promise_error, "three");
  }
  EXPECT_EQ(live_objects(), before);
}

// A function without captures takes no room beside the callback it wraps:
// the op gets a handler the size of a plain operation's.
TEST(mapped_op, a_function_without_captures_makes_the_handler_no_bigger) {
  auto handler_size_of = [](auto make_op) {
    loop l(clock_kind::virtual_time);
    std::size_t size = 0;
    auto body = [&]() -> task<> { (void)co_await make_op(l, size); };
    start(body(), [](error e) { EXPECT_FALSE(e); });
    l.run();
    return size;
  };
  const auto plain = handler_size_of([](loop& l, std::size_t& size) {
    return promisify<std::int64_t>([&l, &size](auto cb) {
      size = sizeof(cb);
      value_later(l, ms, 1, cb);
    });
  });
  const auto mapped = handler_size_of([](loop& l, std::size_t& size) {
    return promisify<std::int64_t>([&l, &size](auto cb) {
             size = sizeof(cb);
             value_later(l, ms, 1, cb);
           })
        .map([](std::int64_t v) { return v * 2; });
  });
  EXPECT_NE(plain, 0u);
  EXPECT_EQ(mapped, plain);
}

TEST(mapped_op, a_fan_out_of_mapped_operations_allocates_what_one_of_plain_operations_does) {
  struct counts {
    std::uint64_t allocs, bytes;
  };
  auto allocs_of = [](bool mapped) {
    loop l(clock_kind::virtual_time);
    const auto before = detail::memory_snapshot();
    auto op = [&l](std::size_t i) {
      return promisify<std::int64_t>([&l, i](auto cb) { value_later(l, ms, static_cast<std::int64_t>(i), cb); });
    };
    std::vector<std::int64_t> got;
    if (mapped)
      make_promise(when_all(3, [&](std::size_t i) { return op(i).map([](std::int64_t v) { return v * 10; }); }))
          .then([&](std::vector<std::int64_t> v) { got = std::move(v); });
    else
      make_promise(when_all(3, op)).then([&](std::vector<std::int64_t> v) { got = std::move(v); });
    l.run();
    EXPECT_EQ(got, mapped ? (std::vector<std::int64_t>{0, 10, 20}) : (std::vector<std::int64_t>{0, 1, 2}));
    const auto after = detail::memory_snapshot();
    return counts{after.allocs - before.allocs, after.bytes - before.bytes};
  };
  // Not one block more per branch than plain operations take, nor a byte.
  const counts plain = allocs_of(false), mapped = allocs_of(true);
  EXPECT_EQ(mapped.allocs, plain.allocs);
  EXPECT_EQ(mapped.bytes, plain.bytes);
}
