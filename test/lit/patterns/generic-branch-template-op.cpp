// A generic branch of parallel that hands its handler to an op taking any
// handler type (a template parameter, as the doxbee world's ops and Asio's
// initiating functions do): the branch is one operation, so every style
// joins it as such. The tool reads the branch from its instantiation, whose
// handler is the runtime's borrowed_sink (not derived from callback<T>): it
// must count as a callback, or parallel would be left as one opaque
// operation (madeup_parallel's source has this shape).
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=future %t.cpp -- %{tool_flags} > %t.future.cpp 2> %t.future.err
// RUN: count 0 < %t.future.err
// RUN: FileCheck %s --check-prefix=FUTURE --input-file=%t.future.cpp
// RUN: %gxx %t.future.cpp && %clangxx %t.future.cpp
// RUN: %asyncshift --style=coro %t.cpp -- %{tool_flags} > %t.coro.cpp 2> %t.coro.err
// RUN: count 0 < %t.coro.err
// RUN: FileCheck %s --check-prefix=CORO --input-file=%t.coro.cpp
// RUN: %gxx %t.coro.cpp && %clangxx %t.coro.cpp
// RUN: %asyncshift --style=promise %t.cpp -- %{tool_flags} > %t.promise.cpp 2> %t.promise.err
// RUN: count 0 < %t.promise.err
// RUN: FileCheck %s --check-prefix=PROMISE --input-file=%t.promise.cpp
// RUN: %gxx %t.promise.cpp && %clangxx %t.promise.cpp
#include "ops.h"

#include <asyncshift/doxbee.hpp>

using namespace asyncshift::doxbee;

void insert_all(std::size_t n, asyncshift::callback<> done) {
  auto tx = db.begin();
  asyncshift::parallel(
      n,
      [=](std::size_t index, auto inserted) {
        FileVersion.insert(static_cast<std::int64_t>(index), 0).execWithin(tx, inserted);
      },
      done);
}

// FUTURE-LABEL: asyncshift::future<> insert_all(std::size_t n) {
// FUTURE-NEXT: auto tx = db.begin();
// FUTURE-NEXT: return asyncshift::make_future(
// FUTURE-NEXT: asyncshift::when_all(n, [=](std::size_t index) {
// FUTURE-NEXT: return asyncshift::promisify([=](auto cb) {
// FUTURE-NEXT: FileVersion.insert(static_cast<std::int64_t>(index), 0)
// FUTURE-NEXT: .execWithin(tx, std::move(cb));
// FUTURE-NEXT: });
// FUTURE-NEXT: }));
// FUTURE-NEXT: }

// CORO-LABEL: asyncshift::task<> insert_all(std::size_t n) {
// CORO-NEXT: auto tx = db.begin();
// CORO-NEXT: auto branch = [=](std::size_t index) {
// CORO-NEXT: return asyncshift::promisify([=](auto cb) {
// CORO-NEXT: FileVersion.insert(static_cast<std::int64_t>(index), 0)
// CORO-NEXT: .execWithin(tx, cb);
// CORO-NEXT: });
// CORO-NEXT: };
// CORO-NEXT: co_await asyncshift::when_all(n, std::move(branch));
// CORO-NEXT: }

// PROMISE-LABEL: asyncshift::promise<> insert_all(std::size_t n) {
// PROMISE-NEXT: auto tx = db.begin();
// PROMISE-NEXT: return asyncshift::make_promise(
// PROMISE-NEXT: asyncshift::when_all(n, [=](std::size_t index) {
// PROMISE-NEXT: return asyncshift::promisify([=](auto cb) {
// PROMISE-NEXT: FileVersion.insert(static_cast<std::int64_t>(index), 0)
// PROMISE-NEXT: .execWithin(tx, std::move(cb));
// PROMISE-NEXT: });
// PROMISE-NEXT: }));
// PROMISE-NEXT: }
