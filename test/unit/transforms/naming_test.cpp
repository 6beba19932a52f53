// Output naming: flattening must never make two variables clash.
#include "Printer.h"
#include "ir_builders.h"

#include <gtest/gtest.h>

using namespace asyncshift;
using namespace irtest;

TEST(naming, a_name_already_visible_gets_a_fresh_one) {
  AsyncFunction F;
  VarId Outer = var(F, "v");
  VarId Inner = var(F, "v");
  F.Identifiers = {"v"};
  Naming N(F);
  EXPECT_EQ(N.declare(Outer), "v");
  EXPECT_EQ(N.declare(Inner), "v_2");
  EXPECT_EQ(N.render(textWith(F, "use(v)")), "use(v)") << "the text refers to the first variable named v";
}

TEST(naming, a_name_in_an_inner_scope_may_be_reused_after_it_closes) {
  AsyncFunction F;
  VarId A = var(F, "x");
  VarId B = var(F, "x");
  Naming N(F);
  N.push();
  EXPECT_EQ(N.declare(A), "x");
  N.pop();
  EXPECT_EQ(N.declare(B), "x");
}

TEST(naming, a_name_a_join_uses_for_something_else_is_avoided) {
  AsyncFunction F;
  VarId V = var(F, "count");
  F.JoinOuterNames = {"count"};
  F.Identifiers = {"count"};
  Naming N(F);
  EXPECT_EQ(N.declare(V), "count_2");
}

TEST(naming, fresh_names_never_collide_with_identifiers_of_the_function) {
  AsyncFunction F;
  F.Identifiers = {"cb", "cb_2"};
  Naming N(F);
  EXPECT_EQ(N.fresh("cb"), "cb_3");
}
