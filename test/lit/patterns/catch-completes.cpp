// A `try` whose block waits for nothing and whose one `catch` completes the
// handler (`return done(error(e.what()));`) is kept as written in every
// style: the catch's completion becomes the style's failure.
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

#include <stdexcept>
#include <string>

void read_parsed(int key, asyncshift::callback<int> done) {
  read_int(key, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    int n = 0;
    try {
      n = std::stoi(std::to_string(v));
    } catch (const std::exception &e) {
      return done(asyncshift::error(e.what()));
    }
    done({}, n);
  });
}

// ---- expected output
// CORO-LABEL: asyncshift::task<int> read_parsed(int key) {
// CORO: int n = 0;
// CORO-NEXT: try {
// CORO-NEXT: n = std::stoi(std::to_string(v));
// CORO-NEXT: } catch (const std::exception &e) {
// CORO-NEXT: throw asyncshift::error_exception(asyncshift::error(e.what()));
// CORO-NEXT: }
// CORO-NEXT: co_return n;
// CORO-NEXT: }

// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<int>> read_parsed(int key) {
// CORO_VALUES: int n = 0;
// CORO_VALUES-NEXT: try {
// CORO_VALUES-NEXT: n = std::stoi(std::to_string(v));
// CORO_VALUES-NEXT: } catch (const std::exception &e) {
// CORO_VALUES-NEXT: co_return asyncshift::error(e.what());
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, n};
// CORO_VALUES-NEXT: }

// PROMISE-LABEL: asyncshift::promise<int> read_parsed(int key) {
// PROMISE: .then([=](int v) -> int {
// PROMISE-NEXT: int n = 0;
// PROMISE-NEXT: try {
// PROMISE-NEXT: n = std::stoi(std::to_string(v));
// PROMISE-NEXT: } catch (const std::exception &e) {
// PROMISE-NEXT: throw asyncshift::error_exception(asyncshift::error(e.what()));
// PROMISE-NEXT: }
// PROMISE-NEXT: return n;
// PROMISE-NEXT: });

// FUTURE-LABEL: asyncshift::future<int> read_parsed(int key) {
// FUTURE: .then([=](int v) -> int {
// FUTURE-NEXT: int n = 0;
// FUTURE-NEXT: try {
// FUTURE-NEXT: n = std::stoi(std::to_string(v));
// FUTURE-NEXT: } catch (const std::exception &e) {
// FUTURE-NEXT: throw asyncshift::error_exception(asyncshift::error(e.what()));
// FUTURE-NEXT: }
// FUTURE-NEXT: return n;
// FUTURE-NEXT: });
