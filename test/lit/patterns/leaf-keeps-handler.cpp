// A function that waits on nothing and only keeps its handler to complete it
// later is a leaf, however it keeps it: moved into a lambda's capture
// (`cb = std::move(cb)`), wrapped by `asyncshift::from_any_thread` (the
// leaf of docs/usage.md), pushed into a queue. It stays in callback style,
// and the functions that call it convert (it was taken for an async function
// and refused: the handler escapes, or a reference parameter).
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=coro %t.cpp -- %{tool_flags} > %t.coro.cpp 2> %t.coro.err
// RUN: count 0 < %t.coro.err
// RUN: FileCheck %s --check-prefix=CORO --input-file=%t.coro.cpp
// RUN: %gxx %t.coro.cpp && %clangxx %t.coro.cpp
// RUN: %asyncshift --style=coro-values %t.cpp -- %{tool_flags} > %t.coro-values.cpp 2> %t.coro-values.err
// RUN: count 0 < %t.coro-values.err
// RUN: FileCheck %s --check-prefix=CORO_VALUES --input-file=%t.coro-values.cpp
// RUN: %gxx %t.coro-values.cpp && %clangxx %t.coro-values.cpp
// RUN: %asyncshift --style=promise %t.cpp -- %{tool_flags} > %t.promise.cpp 2> %t.promise.err
// RUN: count 0 < %t.promise.err
// RUN: FileCheck %s --check-prefix=PROMISE --input-file=%t.promise.cpp
// RUN: %gxx %t.promise.cpp && %clangxx %t.promise.cpp
// RUN: %asyncshift --style=future %t.cpp -- %{tool_flags} > %t.future.cpp 2> %t.future.err
// RUN: count 0 < %t.future.err
// RUN: FileCheck %s --check-prefix=FUTURE --input-file=%t.future.cpp
// RUN: %gxx %t.future.cpp && %clangxx %t.future.cpp
#include "ops.h"

#include <string>
#include <thread>
#include <vector>

std::string blocking_get(std::string url) { return "body of " + url; }

void fetch(std::string url, asyncshift::callback<std::string> cb) {
  std::thread([url, done = asyncshift::from_any_thread(std::move(cb))]() mutable {
    done({}, blocking_get(url));
  }).detach();
}

void twice_later(const int &key, asyncshift::callback<int> cb) {
  asyncshift::loop::current().post([k = key, cb = std::move(cb)]() mutable { cb({}, k * 2); });
}

std::vector<asyncshift::callback<>> waiters;
void wait_turn(asyncshift::callback<> cb) { waiters.push_back(std::move(cb)); }

void page(std::string url, asyncshift::callback<std::size_t> done) {
  fetch(url, [=](asyncshift::error err, std::string body) {
    if (err) return done(err);
    twice_later(static_cast<int>(body.size()), [=](asyncshift::error err, int n) {
      if (err) return done(err);
      wait_turn([=](asyncshift::error err) {
        if (err) return done(err);
        done({}, static_cast<std::size_t>(n));
      });
    });
  });
}

// ---- expected output
// CORO: void fetch(std::string url, asyncshift::callback<std::string> cb) {
// CORO: void twice_later(const int &key, asyncshift::callback<int> cb) {
// CORO: void wait_turn(asyncshift::callback<> cb) { waiters.push_back(std::move(cb)); }
// CORO: asyncshift::task<std::size_t> page(std::string url) {

// CORO_VALUES: void fetch(std::string url, asyncshift::callback<std::string> cb) {
// CORO_VALUES: asyncshift::task<asyncshift::result<std::size_t>> page(std::string url) {

// PROMISE: void fetch(std::string url, asyncshift::callback<std::string> cb) {
// PROMISE: asyncshift::promise<std::size_t> page(std::string url) {

// FUTURE: void fetch(std::string url, asyncshift::callback<std::string> cb) {
// FUTURE: asyncshift::future<std::size_t> page(std::string url) {
