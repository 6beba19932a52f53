// A `//` comment after a completion on its line (`done({}, v); // why`,
// `if (c) return done(...); // why`) stays on the line of what the completion
// becomes; the one after a leading error check that most styles fold away
// goes where the success path goes on (coro-values prints the check and
// keeps it there). They used to move to a line of their own, after the
// statement or before the next (user trial 7).
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --check %t.cpp -- %{tool_flags} 2>&1 | count 0
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

void bump(int key, asyncshift::callback<int> done) {
  read_int(key, [=](asyncshift::error err, int v) {
    if (err) return done(err); // passes it on
    if (v < 0) return done(asyncshift::error("neg")); // rejects
    if (v == 0) {
      return done({}, 0); // nothing to do
    }
    done({}, v + 1); // hands it back
  });
}

// ---- expected output
// CORO-LABEL: asyncshift::task<int> bump(int key) {
// CORO: co_await asyncshift::promisify<int>([&](auto cb) { read_int(key, cb); });
// CORO-NEXT: // passes it on
// CORO-NEXT: if (v < 0) {
// CORO-NEXT: throw asyncshift::error_exception(asyncshift::error("neg")); // rejects
// CORO-NEXT: }
// CORO-NEXT: if (v == 0) {
// CORO-NEXT: co_return 0; // nothing to do
// CORO-NEXT: }
// CORO-NEXT: co_return v + 1; // hands it back
// CORO-NEXT: }

// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<int>> bump(int key) {
// CORO_VALUES: if (err) {
// CORO_VALUES-NEXT: co_return err; // passes it on
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: if (v < 0) {
// CORO_VALUES-NEXT: co_return asyncshift::error("neg"); // rejects
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: if (v == 0) {
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, 0}; // nothing to do
// CORO_VALUES-NEXT: }
// CORO_VALUES-NEXT: co_return {{[{][{]}}}, v + 1}; // hands it back
// CORO_VALUES-NEXT: }

// PROMISE-LABEL: asyncshift::promise<int> bump(int key) {
// PROMISE: .then([=](int v) -> int {
// PROMISE-NEXT: // passes it on
// PROMISE-NEXT: if (v < 0) {
// PROMISE-NEXT: throw asyncshift::error_exception(
// PROMISE-NEXT: asyncshift::error("neg")); // rejects
// PROMISE-NEXT: }
// PROMISE-NEXT: if (v == 0) {
// PROMISE-NEXT: return 0; // nothing to do
// PROMISE-NEXT: }
// PROMISE-NEXT: return v + 1; // hands it back
// PROMISE-NEXT: });

// FUTURE-LABEL: asyncshift::future<int> bump(int key) {
// FUTURE: .then([=](int v) -> int {
// FUTURE-NEXT: // passes it on
// FUTURE: return v + 1; // hands it back
// FUTURE-NEXT: });
