// A variable declared `auto` from a member function's result has a member
// typedef of the library's class as its type (`const_iterator` of the map,
// `size_type` of the vector). The chain styles' state struct spells it
// through that class, or through the namespace-scope name the typedef names
// (`std::size_t`); the canonical type was printed before, which names
// libstdc++'s internals (`std::_Rb_tree_const_iterator`,
// `__gnu_cxx::__normal_iterator`) or one target's integer (`unsigned long`),
// and does not compile with another library. The class is spelt as the
// object's type is written where the variable is a member call's result
// (`std::map<std::int64_t, int>`, not `std::map<long, int>`); a standard
// member typedef that names a plain type stays that type (`std::string`, not
// `std::map<int, std::string>::mapped_type`).
// RUN: %strip %s > %t.cpp
// RUN: %asyncshift --style=promise %t.cpp -- %{tool_flags} > %t.promise.cpp 2> %t.promise.err
// RUN: count 0 < %t.promise.err
// RUN: FileCheck %s --input-file=%t.promise.cpp
// RUN: FileCheck %s --check-prefix=NOINTERNAL --input-file=%t.promise.cpp
// RUN: %gxx %t.promise.cpp && %clangxx %t.promise.cpp
// RUN: %asyncshift --style=future %t.cpp -- %{tool_flags} > %t.future.cpp
// RUN: FileCheck %s --input-file=%t.future.cpp
// RUN: FileCheck %s --check-prefix=NOINTERNAL --input-file=%t.future.cpp
// RUN: %gxx %t.future.cpp && %clangxx %t.future.cpp
#include "ops.h"
#include <map>
#include <string>
#include <vector>

namespace shop {
struct shelf {
  using slot = int;
  slot first() const { return 1; }
};
} // namespace shop

void look(std::map<int, std::string> m, std::vector<int> v, shop::shelf s, std::map<std::int64_t, int> t,
          asyncshift::callback<int> done) {
  read_int(1, [=](asyncshift::error err, int a) {
    if (err)
      return done(err);
    auto it = m.find(a);
    auto n = v.size();
    auto b = v.begin();
    auto f = s.first();
    auto jt = t.find(a);
    auto got = m.at(a);
    write_int(2, a, [=](asyncshift::error err) {
      if (err)
        return done(err);
      done({}, static_cast<int>(n) + (it == m.end() ? 0 : 1) + *b + f + (jt == t.end() ? 0 : jt->second) +
               static_cast<int>(got.size()));
    });
  });
}
// NOINTERNAL:     struct look_state {
// NOINTERNAL-NOT: {{_Rb_tree|__gnu_cxx|__normal_iterator|unsigned long|std::allocator}}
// NOINTERNAL:     };
// CHECK:      std::map<int, std::string>::const_iterator it{};
// CHECK-NEXT: std::size_t n{};
// CHECK-NEXT: std::vector<int>::const_iterator b{};
// CHECK-NEXT: shop::shelf::slot f{};
// CHECK-NEXT: std::map<std::int64_t, int>::const_iterator jt{};
// CHECK-NEXT: std::string got{};
