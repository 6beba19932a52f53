//===- Checker.h - Static analysis of callback code (--check) ----*- C++ -*-===//
//
// The findings of `asyncshift --check`, for any callback code (not only the
// functions the rewriter can convert):
//
//   asyncshift-callback-called-twice  a path completes the handler twice
//   asyncshift-callback-not-called    a path leaves without calling, forwarding
//                                     or passing on the handler
//   asyncshift-error-ignored          a continuation names its error but a
//                                     path finishes without reading it
//   asyncshift-dangling-capture       a continuation captures by reference a
//                                     variable that is gone when it runs
//   asyncshift-mixed-sync-async       a function completes its handler
//                                     synchronously on some paths and
//                                     asynchronously on others
//
// The rewriter asks for the first two before it builds the IR of a function
// and refuses the function when there are any (docs/check.md).
//
//===----------------------------------------------------------------------===//
#ifndef ASYNCSHIFT_TRANSFORMS_CHECKER_H
#define ASYNCSHIFT_TRANSFORMS_CHECKER_H

#include "Findings.h"

#include "clang/AST/DeclCXX.h"
#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/DenseMap.h"

#include <memory>
#include <optional>
#include <vector>

namespace clang {
class ASTContext;
class CallExpr;
class FunctionDecl;
} // namespace clang

namespace asyncshift {

namespace check {
class FunctionModel;
class PathAnalyzer;
} // namespace check

/// Checks the functions of one translation unit; results of the functions it
/// looks into (callees, named continuations) are shared between calls.
class Checker {
public:
  explicit Checker(clang::ASTContext &Ctx);
  ~Checker();

  /// The findings for \p FD: its body and every lambda in it, in source
  /// order. With \p CompletionOnly, only called-twice and not-called.
  std::vector<Finding> check(const clang::FunctionDecl *FD, bool CompletionOnly = false);

  /// The dangling-capture findings for \p FD that are about `this`: a member
  /// function whose continuation captures `this`, called on a local object
  /// that is gone before it runs.
  std::vector<Finding> checkDanglingThis(const clang::FunctionDecl *FD);

  /// The findings for every function defined in the main file, in source order.
  std::vector<Finding> checkMainFile();

private:
  /// Whether \p Call (in \p M) may run its argument \p ArgIndex after it returned.
  bool runsLater(const check::FunctionModel &M, const clang::CallExpr *Call, unsigned ArgIndex);
  /// The dangling-capture findings of \p M (with \p ThisOnly, those about `this`).
  void danglingCaptures(const check::FunctionModel &M, bool ThisOnly, std::vector<Finding> &Out);
  /// Where \p Method's continuation captures `this` and runs after it
  /// returned (remembered per definition; a cycle of calls counts as none).
  std::optional<clang::SourceLocation> thisEscape(const clang::CXXMethodDecl *Method);

  clang::ASTContext &Ctx;
  std::unique_ptr<check::PathAnalyzer> Paths;
  llvm::DenseMap<const clang::FunctionDecl *, std::optional<clang::SourceLocation>> ThisEscapes;
};

} // namespace asyncshift

#endif
