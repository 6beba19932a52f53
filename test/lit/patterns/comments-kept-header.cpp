// Comments between the header of a statement kept as written (a validation
// loop, a completing `catch`) and its body stay at the top of the body, in
// every style; the header is printed up to its last token.
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
#include <vector>

void first_small(int key, std::vector<int> limits, asyncshift::callback<int> done) {
  read_int(key, [=](asyncshift::error err, int v) {
    if (err) return done(err);
    for (int limit : limits) // every limit is checked
      // a negative limit is a caller's mistake
      if (limit < 0) return done(asyncshift::error("bad limit"));
    int n = 0;
    try {
      n = std::stoi(std::to_string(v));
    } catch (const std::exception &e) /* a parse failure */ {
      return done(asyncshift::error(e.what()));
    }
    done({}, n);
  });
}

// ---- expected output
// CORO-LABEL: asyncshift::task<int> first_small(int key,
// CORO: for (int limit : limits) {
// CORO-NEXT: // every limit is checked
// CORO-NEXT: // a negative limit is a caller's mistake
// CORO-NEXT: if (limit < 0) {
// CORO: } catch (const std::exception &e) {
// CORO-NEXT: /* a parse failure */
// CORO-NEXT: throw asyncshift::error_exception(asyncshift::error(e.what()));

// CORO_VALUES-LABEL: asyncshift::task<asyncshift::result<int>> first_small(int key,
// CORO_VALUES: for (int limit : limits) {
// CORO_VALUES-NEXT: // every limit is checked
// CORO_VALUES-NEXT: // a negative limit is a caller's mistake
// CORO_VALUES-NEXT: if (limit < 0) {
// CORO_VALUES: } catch (const std::exception &e) {
// CORO_VALUES-NEXT: /* a parse failure */
// CORO_VALUES-NEXT: co_return asyncshift::error(e.what());

// PROMISE-LABEL: asyncshift::promise<int> first_small(int key,
// PROMISE: for (int limit : limits) {
// PROMISE-NEXT: // every limit is checked
// PROMISE-NEXT: // a negative limit is a caller's mistake
// PROMISE-NEXT: if (limit < 0) {
// PROMISE: } catch (const std::exception &e) {
// PROMISE-NEXT: /* a parse failure */
// PROMISE-NEXT: throw asyncshift::error_exception(asyncshift::error(e.what()));

// FUTURE-LABEL: asyncshift::future<int> first_small(int key,
// FUTURE: for (int limit : limits) {
// FUTURE-NEXT: // every limit is checked
// FUTURE-NEXT: // a negative limit is a caller's mistake
// FUTURE-NEXT: if (limit < 0) {
// FUTURE: } catch (const std::exception &e) {
// FUTURE-NEXT: /* a parse failure */
// FUTURE-NEXT: throw asyncshift::error_exception(asyncshift::error(e.what()));
