// Overloads told apart only by their handler's type become one function
// declared twice once the handler goes (`get(int)` and `get(int)` with other
// return types): refused in every style, as is a converted function that
// would take the parameters of an overload the file keeps.
// RUN: rm -f %t.out.cpp
// RUN: not %asyncshift --style=coro %s -o %t.out.cpp -- %{tool_flags} 2> %t.err
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not=error:
// RUN: not test -e %t.out.cpp
// RUN: not %asyncshift --style=promise %s -- %{tool_flags} 2>&1 | FileCheck %s --implicit-check-not=error:
#include "ops.h"

// CHECK: :[[@LINE+1]]:6: error: converted, 'get' would take the same parameters as another overload (without the handler, which is all that told them apart); cannot convert (give one of them another name) [asyncshift-overload-conflict]
void get(int key, asyncshift::callback<int> done) {
  read_int(key, [=](asyncshift::error err, int v) { done(err, v); });
}
// CHECK: :[[@LINE+4]]:6: note: converted too, the other overload is declared here
// CHECK: :[[@LINE+3]]:6: error: converted, 'get' would take the same parameters
// CHECK: :[[@LINE-5]]:6: note: converted too, the other overload is declared here
// The same for the other.
void get(int key, asyncshift::callback<std::string> done) {
  fetch(std::to_string(key), [=](asyncshift::error err, std::string v) { done(err, v); });
}

// A synchronous overload kept as it is.
int size(int key);
// CHECK: :[[@LINE+2]]:6: error: converted, 'size' would take the same parameters
// CHECK: :[[@LINE-2]]:5: note: the other overload is declared here
void size(int key, asyncshift::callback<int> done) {
  read_int(key, [=](asyncshift::error err, int v) { done(err, v); });
}

// Overloads that still differ once converted are fine.
void put(int key, asyncshift::callback<> done) { write_int(key, 0, done); }
void put(int key, int value, asyncshift::callback<> done) { write_int(key, value, done); }
struct store {
  void load(int key, asyncshift::callback<int> done) const;
  void load(int key, asyncshift::callback<int> done);
};
