// Variables declared with `auto`, `decltype(...)` or class template argument
// deduction that cross a continuation become fields of the chain styles'
// per-call state, which must spell their type. The deduced type carries the
// sugar of the declaration it came from (`shared_ptr<_NonArray<_Tp>>` from
// std::make_shared, `basic_string<_CharT, ...>` from operator+, `std::std::string`
// from a qualified typedef); it was printed as such and did not compile.
// Now a typedef at namespace scope keeps its name and anything else is
// spelt as its canonical type, without default template arguments and with
// the standard string names (deduced-member-types.cpp: member typedefs).
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=promise %t.cpp -- %{tool_flags} > %t.promise.cpp 2> %t.promise.err
// RUN: count 0 < %t.promise.err
// RUN: FileCheck %s --input-file=%t.promise.cpp
// RUN: %gxx %t.promise.cpp && %clangxx %t.promise.cpp
// RUN: %asyncshift --style=future %t.cpp -- %{tool_flags} > %t.future.cpp
// RUN: FileCheck %s --input-file=%t.future.cpp
// RUN: %gxx %t.future.cpp && %clangxx %t.future.cpp
#include "ops.h"
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace shop {
struct order {
  int id;
  std::string sku;
};
} // namespace shop

void tag(int key, asyncshift::callback<int> done) {
  read_int(key, [=](asyncshift::error err, int a) {
    if (err)
      return done(err);
    auto hits = std::make_shared<int>(a);
    auto label = std::string("item-") + std::to_string(a % 10);
    auto name = std::string("n");
    auto o = shop::order{a, "x"};
    auto tup = std::tuple<int, std::string>(1, "t");
    auto pr = std::make_pair(a, 2L);
    std::vector ctad{a, a};
    decltype(a) same = a + 1;
    write_int(key, a, [=](asyncshift::error err) {
      if (err)
        return done(err);
      done({}, *hits + static_cast<int>(label.size() + name.size() + o.sku.size() + std::get<1>(tup).size()) +
                   static_cast<int>(pr.second) + ctad[0] + same);
    });
  });
}
// CHECK:      std::shared_ptr<int> hits{};
// CHECK-NEXT: std::string label{};
// CHECK-NEXT: std::string name{};
// CHECK-NEXT: shop::order o{};
// CHECK-NEXT: std::tuple<int, std::string> tup{};
// CHECK-NEXT: std::pair<int, long> pr{};
// CHECK-NEXT: std::vector<int> ctad{};
// CHECK-NEXT: int same{};
