//===- CheckCaptures.h - Continuations that outlive what they capture -*- C++ -*-===//
//
// asyncshift-dangling-capture: a continuation handed to a call runs after
// that call returns; by then the locals of callback code (which never waits)
// are gone, so a capture by reference of one of them dangles. Plain code may
// wait for the loop after starting work (`op(..., [&] {...}); loop.run();`),
// so there a capture dangles only when nothing follows the call before the
// variable's scope ends. Separate from the path walk: this is about scopes,
// not about paths.
//
// The same goes for `this`: a member function that hands a continuation
// capturing `this` to a call that runs it later (or calls such a member
// function on `this`) must not be called on a local object that is gone
// before the continuation runs.
//
//===----------------------------------------------------------------------===//
#ifndef ASYNCSHIFT_TRANSFORMS_CHECKCAPTURES_H
#define ASYNCSHIFT_TRANSFORMS_CHECKCAPTURES_H

#include "CheckModel.h"
#include "Findings.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <vector>

namespace asyncshift {
namespace check {

/// Whether a call runs the lambda passed as its argument \p ArgIndex after it
/// returned (false when the callee is known to complete synchronously).
using RunsLaterFn = llvm::function_ref<bool(const clang::CallExpr *Call, unsigned ArgIndex)>;

/// Where a member function's continuation captures `this` and runs after
/// the function returned, if one does (the capture's location).
using ThisEscapeFn = llvm::function_ref<std::optional<clang::SourceLocation>(const clang::CXXMethodDecl *Method)>;

/// Appends a finding for every lambda of \p M that runs later and captures by
/// reference a variable whose lifetime ends before it can run, and for every
/// call of a member function whose `this` escapes (\p ThisEscape) on a local
/// object whose lifetime so ends. With \p ThisOnly, only the latter.
void checkDanglingCaptures(const FunctionModel &M, RunsLaterFn RunsLater, ThisEscapeFn ThisEscape, bool ThisOnly,
                           std::vector<Finding> &Out);

/// Where the member function of model \p M hands a lambda that captures
/// `this` to a call that runs it later (\p RunsLater), or calls on `this` a
/// member function whose `this` escapes (\p Callee).
std::optional<clang::SourceLocation> thisEscapeOf(const FunctionModel &M, RunsLaterFn RunsLater, ThisEscapeFn Callee);

} // namespace check
} // namespace asyncshift

#endif
