// A named continuation whose error cleanup reads its value parameter, reached
// with an error from a call's check (`finish(err, 5)`) and from a call it is
// handed to (a failure there passes the default value). The cleanup cannot
// run where the error arises: the value exists only in the continuation.
// Before, coro ran it there with the value still unassigned (a silent
// difference: the original's cleanup sees 5), and the chains named an
// undeclared variable. Now the coroutine styles keep the error a value, so
// the continuation's own check runs the cleanup with the jump's value, and
// the chain styles refuse.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=promise %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not=error:
// RUN: not test -e %t.out.cpp
// RUN: not %asyncshift --style=future %s -- %{tool_flags} 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=coro %t.cpp -- %{tool_flags} > %t.coro.cpp
// RUN: FileCheck %s --check-prefix=CORO --input-file=%t.coro.cpp
// RUN: %gxx %t.coro.cpp && %clangxx %t.coro.cpp
// RUN: %asyncshift --style=coro-values %t.cpp -- %{tool_flags} > %t.values.cpp
// RUN: %gxx %t.values.cpp && %clangxx %t.values.cpp
#include "ops.h"

void transfer(int amount, asyncshift::callback<std::string> done) {
  read_int(amount, [=](asyncshift::error err, int balance) {
    if (err) return done(err);
    auto finish = [=](asyncshift::error err, int receipt) {
      if (err) {
        write_int(receipt, 0, [](asyncshift::error) {});
        return done(err);
      }
      done({}, std::to_string(receipt) + "/" + std::to_string(balance));
    };
    // CHECK: :[[@LINE+1]]:5: error: named continuation 'finish' reads its value 'receipt' in the cleanup before it propagates an error, and a chain has that value only inside the continuation, not where the error arises; cannot convert to this style yet (--style=coro or coro-values converts it) [asyncshift-unsupported-join]
    if (balance > 10) {
      read_int(balance, [=](asyncshift::error err, int audited) {
        if (err) return finish(err, 5);
        read_int(audited, finish);
      });
    } else {
      read_int(amount, finish);
    }
  });
}
// The error is kept with the value the jump passed, and the continuation's
// check runs the cleanup with it.
// CORO-LABEL: asyncshift::task<std::string> transfer(int amount) {
// CORO: asyncshift::error err;
// CORO-NEXT: int receipt{};
// CORO: if (err_2) {
// CORO-NEXT: err = err_2;
// CORO-NEXT: receipt = 5;
// CORO: if (err) {
// CORO-NEXT: write_int(receipt, 0, [](asyncshift::error) {});
// CORO-NEXT: throw asyncshift::error_exception(err);
