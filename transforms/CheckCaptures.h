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
//===----------------------------------------------------------------------===//
#ifndef ASYNCSHIFT_TRANSFORMS_CHECKCAPTURES_H
#define ASYNCSHIFT_TRANSFORMS_CHECKCAPTURES_H

#include "CheckModel.h"
#include "Findings.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <vector>

namespace asyncshift {
namespace check {

/// Whether a call runs the lambda passed as its argument \p ArgIndex after it
/// returned (false when the callee is known to complete synchronously).
using RunsLaterFn = llvm::function_ref<bool(const clang::CallExpr *Call, unsigned ArgIndex)>;

/// Appends a finding for every lambda of \p M that runs later and captures by
/// reference a variable whose lifetime ends before it can run.
void checkDanglingCaptures(const FunctionModel &M, RunsLaterFn RunsLater, std::vector<Finding> &Out);

} // namespace check
} // namespace asyncshift

#endif
