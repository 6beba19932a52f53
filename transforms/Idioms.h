//===- Idioms.h - Hand-written fan-out and loop idioms ----------*- C++ -*-===//
//
// Two idioms of callback code that mean a combinator without calling one
// (SPEC §3 patterns 6 and 7). Recognising them is pure AST matching, kept
// here; the IR builder turns a match into the same IR as the combinator.
//
// The counter idiom (fan-out/join by hand):
//
//   if (n == 0) return done({});                     // or n is a literal > 0
//   auto pending = std::make_shared<std::size_t>(n);
//   auto failed = std::make_shared<bool>(false);
//   auto results = std::make_shared<std::vector<T>>(n);     // optional
//   for (std::size_t i = 0; i < n; ++i) {
//     op(..., [=](asyncshift::error err, T v) {
//       if (*failed) return;
//       if (err) { *failed = true; cleanup...; return done(err); }
//       (*results)[i] = v;                                   // with results
//       if (--*pending == 0) { success...; done({}, *results); }
//     });
//   }
//
// The recursive-lambda loop:
//
//   auto step = [=](auto &self, std::size_t i) -> void { ... self(self, i + 1); ... };
//   step(step, 0);
//
//===----------------------------------------------------------------------===//
#ifndef ASYNCSHIFT_TRANSFORMS_IDIOMS_H
#define ASYNCSHIFT_TRANSFORMS_IDIOMS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"

#include <optional>
#include <string>
#include <vector>

namespace asyncshift {

struct CounterLoopMatch {
  const clang::ForStmt *Loop = nullptr;
  const clang::VarDecl *Index = nullptr;
  const clang::Expr *Count = nullptr;
  const clang::CallExpr *Call = nullptr;    ///< the async call in the loop body
  const clang::LambdaExpr *Cont = nullptr;  ///< its continuation
  /// The idiom's own declarations, which disappear.
  std::vector<const clang::DeclStmt *> IdiomDecls;
  const clang::VarDecl *Pending = nullptr, *Failed = nullptr, *Results = nullptr;
  /// The error branch: `if (err) { *failed = true; Cleanup...; return done(err); }`.
  const clang::IfStmt *ErrorCheck = nullptr;
  std::vector<const clang::Stmt *> Cleanup;
  const clang::Expr *ErrorCompletion = nullptr;
  /// The last branch: `if (--*pending == 0) { Success...; done(...); }`.
  std::vector<const clang::Stmt *> Success;
  const clang::Expr *SuccessCompletion = nullptr;
};

/// Matches the counter idiom whose `for` loop is \p Body's statement \p At.
/// On a near miss (the loop looks like the idiom but is not it), \p WhyNot
/// says what differs.
std::optional<CounterLoopMatch> matchCounterLoop(const clang::CompoundStmt *Body, unsigned At,
                                                 const clang::VarDecl *Handler, clang::ASTContext &Ctx,
                                                 std::string &WhyNot);

struct RecursiveLoopMatch {
  const clang::DeclStmt *Decl = nullptr;
  const clang::VarDecl *Step = nullptr;
  const clang::LambdaExpr *Lambda = nullptr;
  const clang::ParmVarDecl *Self = nullptr;
  /// The one call that starts the loop: `step(step, init...)`, and its statement.
  const clang::Stmt *Entry = nullptr;
  const clang::CallExpr *EntryCall = nullptr;
  unsigned EntryIndex = 0;
};

/// Matches a recursive-lambda loop declared by \p Body's statement \p At.
std::optional<RecursiveLoopMatch> matchRecursiveLoop(const clang::CompoundStmt *Body, unsigned At,
                                                     std::string &WhyNot);

/// `self(self, args...)` inside the loop's lambda: the arguments after self.
std::optional<std::vector<const clang::Expr *>> recursionArgs(const clang::CallExpr *C,
                                                              const clang::ParmVarDecl *Self);

/// The same expression, token for token (`n` and `n`, `v.size()` and `v.size()`).
bool sameTokens(const clang::Expr *A, const clang::Expr *B, const clang::ASTContext &Ctx);

} // namespace asyncshift

#endif
