// Pattern 4, a named continuation reached from both arms of an `if`: its body
// follows the `if` (coroutines) or is the next .then (chains); its parameter is
// assigned in each arm; the error passed to it propagates like any other.
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

void open_or_create(bool exists, int id, asyncshift::callback<int> done) {
  auto afterOpen = [=](asyncshift::error err, int handle) {
    if (err) return done(err);
    write_int(handle, id, [=](asyncshift::error err) {
      if (err) return done(err);
      done({}, handle);
    });
  };
  if (exists) {
    return afterOpen({}, id);
  } else {
    read_int(id, [=](asyncshift::error err, int created) { afterOpen(err, created + 1); });
  }
}

// ---- expected output
// CORO-LABEL: asyncshift::task<int> open_or_create(bool exists, int id) {
// CORO-NEXT: int handle{};
// CORO-NEXT: if (exists) {
// CORO-NEXT: handle = id;
// CORO-NEXT: } else {
// CORO-NEXT: auto created =
// CORO-NEXT: co_await asyncshift::promisify<int>([&](auto cb) { read_int(id, cb); });
// CORO-NEXT: handle = created + 1;
// CORO-NEXT: }
// CORO-NEXT: co_await asyncshift::promisify([&](auto cb) { write_int(handle, id, cb); });
// CORO-NEXT: co_return handle;
// CORO-NEXT: }

// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<int>> open_or_create(bool exists, int id) {
// CORO_VALUES-NEXT: asyncshift::error err;
// CORO_VALUES-NEXT: int handle{};
// CORO_VALUES-NEXT: if (exists) {
// CORO_VALUES-NEXT: err = {};
// CORO_VALUES-NEXT: handle = id;
// CORO_VALUES-NEXT: } else {
// CORO_VALUES-NEXT: auto [err_2, created] = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify<int>([&](auto cb) { read_int(id, cb); }));
// CORO_VALUES-NEXT: err = err_2;
// CORO_VALUES-NEXT: handle = created + 1;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: if (err) {
// CORO_VALUES-NEXT: co_return err;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: auto err_3 = co_await asyncshift::settle(
// CORO_VALUES-NEXT: asyncshift::promisify([&](auto cb) { write_int(handle, id, cb); }));
// CORO_VALUES-NEXT: if (err_3) {
// CORO_VALUES-NEXT: co_return err_3;
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, handle};
// CORO_VALUES-NEXT: }

// PROMISE-LABEL: asyncshift::promise<int> open_or_create(bool exists, int id) {
// PROMISE-NEXT: struct open_or_create_state {
// PROMISE-NEXT: int handle{};
// PROMISE-NEXT: };
// PROMISE-NEXT: auto state = asyncshift::make_shared_state<open_or_create_state>();
// PROMISE-NEXT: return [&]() -> asyncshift::promise<int> {
// PROMISE-NEXT: if (exists) {
// PROMISE-NEXT: return asyncshift::promise<int>::resolve(id);
// PROMISE-NEXT: } else {
// PROMISE-NEXT: return asyncshift::make_promise_chain<int>(
// PROMISE-NEXT: [&](auto cb) { read_int(id, std::move(cb)); })
// PROMISE-NEXT: .then([=](int created) -> int { return created + 1; });
// PROMISE-NEXT: }
// PROMISE-NEXT: }()
// PROMISE-NEXT: .then([=](int handle) {
// PROMISE-NEXT: state->handle = handle;
// PROMISE-NEXT: return asyncshift::promisify([=](auto cb) mutable {
// PROMISE-NEXT: write_int(state->handle, id, std::move(cb));
// PROMISE-NEXT: });
// PROMISE-NEXT: })
// PROMISE-NEXT: .then([=]() -> int { return state->handle; });
// PROMISE-NEXT: }

// FUTURE-LABEL: asyncshift::future<int> open_or_create(bool exists, int id) {
// FUTURE-NEXT: struct open_or_create_state {
// FUTURE-NEXT: int handle{};
// FUTURE-NEXT: };
// FUTURE-NEXT: auto state = asyncshift::make_shared_state<open_or_create_state>();
// FUTURE-NEXT: return [&]() -> asyncshift::future<int> {
// FUTURE-NEXT: if (exists) {
// FUTURE-NEXT: return asyncshift::make_ready_future_of<int>(id);
// FUTURE-NEXT: } else {
// FUTURE-NEXT: return asyncshift::make_future_chain<int>(
// FUTURE-NEXT: [&](auto cb) { read_int(id, std::move(cb)); })
// FUTURE-NEXT: .then([=](int created) -> int { return created + 1; });
// FUTURE-NEXT: }
// FUTURE-NEXT: }()
// FUTURE-NEXT: .then([=](int handle) {
// FUTURE-NEXT: state->handle = handle;
// FUTURE-NEXT: return asyncshift::promisify([=](auto cb) mutable {
// FUTURE-NEXT: write_int(state->handle, id, std::move(cb));
// FUTURE-NEXT: });
// FUTURE-NEXT: })
// FUTURE-NEXT: .then([=]() -> int { return state->handle; });
// FUTURE-NEXT: }
