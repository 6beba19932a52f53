// callback<T...>: ownership, copying, borrowing, and the called-twice check.
#include <asyncshift/callback.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

using asyncshift::callback;
using asyncshift::error;

namespace {

/// Counts live instances, to prove blocks are freed.
struct counted {
  static inline int live = 0;
  counted() { ++live; }
  counted(const counted&) { ++live; }
  counted(counted&&) noexcept { ++live; }
  ~counted() { --live; }
};

/// A sink that lives elsewhere (as an awaiter lives in a coroutine frame).
struct sink : asyncshift::detail::handler<int> {
  int got = 0;
  static void deliver(asyncshift::detail::handler<int>* self, error&&, int&& v) { static_cast<sink*>(self)->got = v; }
  static void destroy(asyncshift::detail::handler<int>*) noexcept { ADD_FAILURE() << "borrowed sink destroyed"; }
  static constexpr asyncshift::detail::handler_ops<int> ops{&deliver, &destroy};
  sink() : asyncshift::detail::handler<int>{&ops} {}
};

} // namespace

TEST(callback, delivers_the_value_and_a_success) {
  int got = 0;
  bool ok = false;
  callback<int> cb = [&](error e, int v) {
    ok = !e;
    got = v;
  };
  cb({}, 42);
  EXPECT_TRUE(ok);
  EXPECT_EQ(got, 42);
}

TEST(callback, failing_with_only_an_error_default_constructs_the_value) {
  std::string msg;
  std::string value = "untouched";
  callback<std::string> cb = [&](error e, std::string v) {
    msg = e.message();
    value = v;
  };
  cb(error("boom"));
  EXPECT_EQ(msg, "boom");
  EXPECT_EQ(value, "");
}

TEST(callback, a_continuation_may_ignore_the_value) {
  bool called = false;
  callback<int> cb = [&](error) { called = true; };
  cb({}, 1);
  EXPECT_TRUE(called);
}

TEST(callback, copies_share_one_block_that_is_freed_with_the_last_copy) {
  counted::live = 0;
  {
    counted c;
    callback<> a = [c](error) {};
    EXPECT_EQ(counted::live, 2);
    callback<> b = a;
    callback<> d = b;
    EXPECT_EQ(counted::live, 2) << "copying a callback must not copy the continuation";
  }
  EXPECT_EQ(counted::live, 0);
}

TEST(callback, a_default_callback_ignores_its_call) {
  callback<int> cb;
  EXPECT_FALSE(cb);
  cb({}, 1); // no effect, no crash
}

TEST(callback, borrowing_never_touches_the_sink_outside_the_call) {
  sink s;
  {
    callback<int> cb = callback<int>::borrow(&s);
    callback<int> copy = cb;
    copy({}, 7);
  }
  EXPECT_EQ(s.got, 7);
  EXPECT_EQ(s.refs, 1u) << "a borrowed sink is never reference-counted";
}

TEST(callback, calling_twice_is_caught_in_debug_builds) {
  callback<> cb = [](error) {};
  cb({});
  EXPECT_DEATH(cb({}), "called twice");
}

TEST(callback, a_new_handler_has_one_reference_and_is_uncalled_whatever_its_memory_held) {
  // The header's count and flag are set with one wide store (callback.hpp):
  // made over bytes left by an earlier block (the pool hands blocks back
  // unwiped), it still starts with exactly one reference and uncalled.
  alignas(sink) unsigned char bytes[sizeof(sink)];
  std::memset(bytes, 0xa5, sizeof bytes);
  sink* s = ::new (static_cast<void*>(bytes)) sink();
  EXPECT_EQ(s->refs, 1u);
  EXPECT_FALSE(s->called);
  EXPECT_EQ(s->got, 0);
  s->~sink();
}

TEST(callback, a_handler_made_in_a_constant_expression_has_one_reference) {
  static constexpr asyncshift::detail::handler<int> made_at_compile_time{&sink::ops};
  static_assert(made_at_compile_time.refs == 1 && !made_at_compile_time.called);
  EXPECT_EQ(made_at_compile_time.refs, 1u);
}
