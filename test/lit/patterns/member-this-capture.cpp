// A converted member function: the lambdas a chain style writes capture
// `this` only where their body uses a member (written `this->` or not, a
// data member or a member function), and the coroutine style's branch
// lambdas likewise. A lambda that captured `this` without using it warned
// under clang's -Wunused-lambda-capture (-Wall), and `this` unused in a
// capture list reads as if the step touched the object.
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=promise %t.cpp -- %{tool_flags} > %t.promise.cpp 2> %t.promise.err
// RUN: count 0 < %t.promise.err
// RUN: FileCheck %s --check-prefix=PROMISE --input-file=%t.promise.cpp
// RUN: %gxx %t.promise.cpp && %clangxx %t.promise.cpp
// RUN: %asyncshift --style=future %t.cpp -- %{tool_flags} > %t.future.cpp
// RUN: FileCheck %s --check-prefix=FUTURE --input-file=%t.future.cpp
// RUN: %gxx %t.future.cpp && %clangxx %t.future.cpp
// RUN: %asyncshift --style=coro %t.cpp -- %{tool_flags} > %t.coro.cpp
// RUN: FileCheck %s --check-prefix=CORO --input-file=%t.coro.cpp
// RUN: %gxx %t.coro.cpp && %clangxx %t.coro.cpp
// RUN: %asyncshift --style=coro-values %t.cpp -- %{tool_flags} > %t.coro-values.cpp
// RUN: %gxx %t.coro-values.cpp && %clangxx %t.coro-values.cpp
#include "ops.h"

#include <vector>

class store {
public:
  // Only the last step reads a member.
  void fetch(int key, asyncshift::callback<int> done) {
    read_int(key, [=, this](asyncshift::error err, int a) {
      if (err)
        return done(err);
      write_int(key, a + 1, [=, this](asyncshift::error err) {
        if (err)
          return done(err);
        done({}, a + bias_);
      });
    });
  }
  // No step uses the object.
  void plain(int key, asyncshift::callback<int> done) {
    read_int(key, [=](asyncshift::error err, int a) {
      if (err)
        return done(err);
      write_int(key, a + 1, [=](asyncshift::error err) {
        if (err)
          return done(err);
        done({}, a);
      });
    });
  }
  // The operation's arguments call a member function through `this`.
  void scaled(int key, asyncshift::callback<> done) {
    read_int(key, [=, this](asyncshift::error err, int a) {
      if (err)
        return done(err);
      write_int(key, this->scale(a), done);
    });
  }
  // Branches of a parallel: one reads a member, the other does not.
  void both(std::vector<int> keys, asyncshift::callback<> done) {
    asyncshift::parallel<int>(
        keys.size(), [=, this](std::size_t i, asyncshift::callback<int> cb) { read_int(keys[i] + bias_, cb); },
        [=](asyncshift::error err, std::vector<int> values) {
          if (err)
            return done(err);
          write_int(0, static_cast<int>(values.size()), done);
        });
  }
  void plainBoth(std::vector<int> keys, asyncshift::callback<> done) {
    asyncshift::parallel<int>(
        keys.size(), [=](std::size_t i, asyncshift::callback<int> cb) { read_int(keys[i], cb); },
        [=](asyncshift::error err, std::vector<int> values) {
          if (err)
            return done(err);
          write_int(0, static_cast<int>(values.size()), done);
        });
  }

private:
  int scale(int v) const { return v * 2; }
  int bias_ = 1;
};
// PROMISE-LABEL: asyncshift::promise<int> fetch(int key) {
// PROMISE:       .then([=](int a) {
// PROMISE:       asyncshift::promisify([=](auto cb) mutable {
// PROMISE:       .then([=, this]() -> int { return state->a + bias_; });
// PROMISE-LABEL: asyncshift::promise<int> plain(int key) {
// PROMISE-NOT:   [=, this]
// PROMISE-LABEL: asyncshift::promise<> scaled(int key) {
// PROMISE:       .then([=, this](int a) {
// PROMISE-NEXT:  return asyncshift::promisify([=, this](auto cb) mutable {
// PROMISE-NEXT:  write_int(key, this->scale(a), std::move(cb));
// PROMISE-LABEL: asyncshift::promise<> both(
// PROMISE:       [=, this](std::size_t i)
// PROMISE-LABEL: asyncshift::promise<> plainBoth(
// PROMISE-NOT:   [=, this]
// PROMISE:       private:

// FUTURE-LABEL: asyncshift::future<int> fetch(int key) {
// FUTURE:       .then([=](int a) {
// FUTURE:       .then([=, this]() -> int { return state->a + bias_; });
// FUTURE-LABEL: asyncshift::future<int> plain(int key) {
// FUTURE-NOT:   [=, this]
// FUTURE-LABEL: asyncshift::future<> scaled(int key) {
// FUTURE-LABEL: asyncshift::future<> both(
// FUTURE:       [=, this](std::size_t i)
// FUTURE-LABEL: asyncshift::future<> plainBoth(
// FUTURE-NOT:   [=, this]
// FUTURE:       private:

// CORO-LABEL: asyncshift::task<> both(
// CORO:       [=, this](std::size_t i)
// CORO-LABEL: asyncshift::task<> plainBoth(
// CORO-NOT:   [=, this]
// CORO:       private:
