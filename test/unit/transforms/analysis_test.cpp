// The IR analyses: completion paths, error-check classification, joins.
#include "Analysis.h"
#include "ir_builders.h"

#include <gtest/gtest.h>

using namespace asyncshift;
using namespace irtest;

namespace {

std::vector<std::string> findingIds(const AsyncFunction &F) {
  std::vector<Finding> Out;
  checkCompletionPaths(F, Out);
  std::vector<std::string> Ids;
  for (const Finding &Fd : Out)
    Ids.push_back(Fd.Id);
  return Ids;
}

} // namespace

TEST(completion_paths, a_sequence_that_completes_once_is_clean) {
  AsyncFunction F;
  VarId Err = var(F, "err", true);
  auto A = call("op", Err);
  auto Check = ifError(Err);
  Check->Then.push_back(complete(Err));
  A->Cont.Body.push_back(std::move(Check));
  A->Cont.Body.push_back(success());
  F.Body.push_back(std::move(A));
  EXPECT_TRUE(findingIds(F).empty());
}

TEST(completion_paths, a_continuation_that_can_fall_off_is_not_called) {
  AsyncFunction F;
  VarId Err = var(F, "err", true);
  auto A = call("op", Err);
  auto Check = ifError(Err);
  Check->Then.push_back(complete(Err));
  A->Cont.Body.push_back(std::move(Check));
  A->Cont.Body.push_back(sync(F, "log();"));
  F.Body.push_back(std::move(A));
  EXPECT_EQ(findingIds(F), std::vector<std::string>{ids::NotCalled});
}

TEST(completion_paths, completing_without_return_then_again_is_called_twice) {
  AsyncFunction F;
  VarId Err = var(F, "err", true);
  auto A = call("op", Err);
  auto Check = ifError(Err);
  Check->Then.push_back(complete(Err, /*IsReturn=*/false));
  A->Cont.Body.push_back(std::move(Check));
  A->Cont.Body.push_back(success());
  F.Body.push_back(std::move(A));
  EXPECT_EQ(findingIds(F), std::vector<std::string>{ids::CalledTwice});
}

TEST(completion_paths, a_statement_after_an_async_call_is_refused) {
  AsyncFunction F;
  VarId Err = var(F, "err", true);
  auto A = call("op", Err);
  A->Cont.Body.push_back(success());
  F.Body.push_back(std::move(A));
  F.Body.push_back(sync(F, "more();"));
  EXPECT_EQ(findingIds(F), std::vector<std::string>{ids::AsyncNotInTail});
}

TEST(error_handling, check_with_cleanup_then_success_propagates) {
  AsyncFunction F;
  VarId Err = var(F, "err", true);
  Continuation C;
  C.Err = Err;
  auto Check = ifError(Err);
  Check->Then.push_back(sync(F, "tx.rollback();"));
  Check->Then.push_back(complete(Err));
  C.Body.push_back(std::move(Check));
  C.Body.push_back(success());
  ErrorHandling H = classifyErrorHandling(C);
  EXPECT_EQ(H.K, ErrorHandling::Kind::Propagate);
  ASSERT_EQ(H.Cleanup.size(), 1u);
  EXPECT_EQ(H.Cleanup[0]->Code.Source, "tx.rollback();");
  EXPECT_EQ(H.Rest.size(), 1u);
}

TEST(error_handling, negated_check_with_success_first_propagates) {
  AsyncFunction F;
  VarId Err = var(F, "err", true);
  Continuation C;
  C.Err = Err;
  auto Check = ifError(Err, /*Negated=*/true);
  Check->Then.push_back(success());
  Check->HasElse = true;
  Check->Else.push_back(complete(Err));
  C.Body.push_back(std::move(Check));
  ErrorHandling H = classifyErrorHandling(C);
  EXPECT_EQ(H.K, ErrorHandling::Kind::Propagate);
  EXPECT_TRUE(H.Cleanup.empty());
  EXPECT_EQ(H.Rest.size(), 1u);
}

TEST(error_handling, an_error_read_after_the_check_stays_a_value) {
  AsyncFunction F;
  VarId Err = var(F, "err", true);
  Continuation C;
  C.Err = Err;
  auto Check = ifError(Err);
  Check->Then.push_back(complete(Err));
  C.Body.push_back(std::move(Check));
  C.Body.push_back(sync(F, "log(err);"));
  C.Body.push_back(success());
  EXPECT_EQ(classifyErrorHandling(C).K, ErrorHandling::Kind::Value);
}

TEST(error_handling, an_unread_error_is_ignored) {
  AsyncFunction F;
  VarId Err = var(F, "err", true);
  Continuation C;
  C.Err = Err;
  C.Body.push_back(success());
  EXPECT_EQ(classifyErrorHandling(C).K, ErrorHandling::Kind::Ignored);
}

TEST(joins, an_early_return_that_jumps_becomes_an_else) {
  AsyncFunction F;
  auto If = std::make_unique<IfNode>();
  If->Cond = text("x");
  auto J = std::make_unique<JumpNode>();
  J->IsReturn = true;
  J->Err.Present = J->Err.IsSuccess = true;
  If->Then.push_back(std::move(J));
  F.Body.push_back(std::move(If));
  F.Body.push_back(sync(F, "rest();"));
  F.Body.push_back(success());
  normalizeJoins(F);
  ASSERT_EQ(F.Body.size(), 1u);
  const auto *Out = dyn<IfNode>(F.Body[0].get());
  ASSERT_TRUE(Out);
  EXPECT_TRUE(Out->HasElse);
  EXPECT_EQ(Out->Else.size(), 2u);
}
