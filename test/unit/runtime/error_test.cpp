// asyncshift::error, error_exception, and turning exceptions back into errors
// (error_from), including the memo of the last error thrown by throw_error.
#include <asyncshift/error.hpp>

#include <gtest/gtest.h>

#include <exception>
#include <stdexcept>
#include <string>
#include <thread>

using asyncshift::error;
using asyncshift::error_exception;
using asyncshift::error_from;
using asyncshift::error_from_current_exception;
using asyncshift::throw_error;
using asyncshift::throw_if;

TEST(error, success_is_default_and_failure_carries_its_message) {
  error ok;
  EXPECT_FALSE(ok);
  EXPECT_EQ(ok.message(), "");
  error bad("disk full");
  EXPECT_TRUE(bad);
  EXPECT_EQ(bad.message(), "disk full");
  error copy = bad;
  EXPECT_EQ(copy, bad);
  EXPECT_FALSE(error() == bad);
}

namespace {
std::exception_ptr caught(void (*thrower)()) {
  try {
    thrower();
  } catch (...) {
    return std::current_exception();
  }
  return nullptr;
}
} // namespace

TEST(error, error_from_names_what_was_thrown) {
  EXPECT_EQ(error_from(caught([] { throw error_exception(error("disk full")); })).message(), "disk full");
  EXPECT_EQ(error_from(caught([] { throw std::runtime_error("bad input"); })).message(), "bad input");
  EXPECT_EQ(error_from(caught([] { throw 42; })).message(), "unknown exception");
  EXPECT_EQ(error_from(std::exception_ptr()).message(), "unknown exception");
  try {
    throw std::logic_error("inside a handler");
  } catch (...) {
    EXPECT_EQ(error_from_current_exception().message(), "inside a handler");
  }
}

TEST(error, throw_error_throws_an_error_exception_carrying_the_error) {
  try {
    throw_error(error("timed out"));
    FAIL() << "throw_error returned";
  } catch (const error_exception& e) {
    EXPECT_EQ(e.error().message(), "timed out");
    EXPECT_STREQ(e.what(), "timed out");
  }
  EXPECT_NO_THROW(throw_if(error()));
  EXPECT_THROW(throw_if(error("x")), error_exception);
}

// error_from reads the error of the exception throw_error threw last without
// rethrowing it; any other exception, even an error_exception thrown after
// it or a copy of it, must still be looked at.
TEST(error, error_from_never_mistakes_another_exception_for_the_last_thrown_error) {
  const std::exception_ptr ours = caught([] { throw_error(error("ours")); });
  EXPECT_EQ(error_from(ours).message(), "ours");
  const std::exception_ptr theirs = caught([] { throw error_exception(error("theirs")); });
  EXPECT_EQ(error_from(theirs).message(), "theirs");
  EXPECT_EQ(error_from(ours).message(), "ours");
  const std::exception_ptr copy = caught([] {
    try {
      throw_error(error("original"));
    } catch (const error_exception& e) {
      throw error_exception(error(e.error().message() + ", copied"));
    }
  });
  EXPECT_EQ(error_from(copy).message(), "original, copied");
  const std::exception_ptr other = caught([] {
    try {
      throw_error(error("swallowed"));
    } catch (const error_exception&) {
    }
    throw std::runtime_error("then this");
  });
  EXPECT_EQ(error_from(other).message(), "then this");
  // Rethrown with `throw;` (as generated catch blocks do), it is the same
  // exception, and still read without a rethrow.
  const std::exception_ptr rethrown = caught([] {
    try {
      throw_error(error("cleaned up"));
    } catch (const error_exception&) {
      throw;
    }
  });
  EXPECT_EQ(error_from(rethrown).message(), "cleaned up");
}

// Another thread's last error is its own: an exception_ptr handed across
// threads is looked at, not matched against this thread's memo.
TEST(error, the_last_thrown_error_is_per_thread) {
  std::exception_ptr from_thread;
  std::thread t([&] { from_thread = caught([] { throw_error(error("on a worker")); }); });
  t.join();
  const std::exception_ptr here = caught([] { throw_error(error("here")); });
  EXPECT_EQ(error_from(from_thread).message(), "on a worker");
  EXPECT_EQ(error_from(here).message(), "here");
}
