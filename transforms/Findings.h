//===- Findings.h - Refusals and analysis findings ---------------*- C++ -*-===//
//
// A finding is a diagnostic with a stable id: a refusal of the rewriter
// ("cannot convert") or a bug reported by the checker. The ids are part of
// the product (users grep for them, lit tests pin them); every id in use is
// listed here with the message it comes with.
//
//===----------------------------------------------------------------------===//
#ifndef ASYNCSHIFT_TRANSFORMS_FINDINGS_H
#define ASYNCSHIFT_TRANSFORMS_FINDINGS_H

#include "IR.h"

#include <string>
#include <vector>

namespace clang {
class DiagnosticsEngine;
} // namespace clang

namespace asyncshift {

namespace ids {
// Refusals: constructs outside SPEC §3.
inline constexpr const char *AsyncInLoop = "asyncshift-async-in-loop";
inline constexpr const char *AsyncInExpression = "asyncshift-async-in-expression";
inline constexpr const char *AsyncNotInTail = "asyncshift-async-not-in-tail";
inline constexpr const char *CompletionNotInTail = "asyncshift-completion-not-in-tail";
inline constexpr const char *HandlerEscapes = "asyncshift-handler-escapes";
inline constexpr const char *ContinuationEscapes = "asyncshift-escaping-continuation";
inline constexpr const char *ForeignHandler = "asyncshift-foreign-handler";
inline constexpr const char *MovedContinuation = "asyncshift-moved-continuation";
inline constexpr const char *Goto = "asyncshift-goto";
inline constexpr const char *Macro = "asyncshift-macro";
inline constexpr const char *PreprocessorConditional = "asyncshift-preprocessor-conditional";
inline constexpr const char *MutableContinuation = "asyncshift-mutable-continuation";
inline constexpr const char *InitCapture = "asyncshift-init-capture";
inline constexpr const char *ReferenceCapture = "asyncshift-reference-capture";
inline constexpr const char *ReferenceParameter = "asyncshift-reference-parameter";
inline constexpr const char *ReferenceVariable = "asyncshift-reference-variable";
inline constexpr const char *TemplateFunction = "asyncshift-template-function";
inline constexpr const char *VirtualFunction = "asyncshift-virtual-function";
inline constexpr const char *FunctionAsValue = "asyncshift-function-as-value";
inline constexpr const char *DefaultedHandler = "asyncshift-defaulted-handler";
inline constexpr const char *GenericContinuation = "asyncshift-generic-continuation";
inline constexpr const char *UnsupportedContinuation = "asyncshift-unsupported-continuation";
inline constexpr const char *UnsupportedJoin = "asyncshift-unsupported-join";
inline constexpr const char *UnsupportedStatement = "asyncshift-unsupported-statement";
inline constexpr const char *StateVariable = "asyncshift-state-variable";
inline constexpr const char *JoinCaptureModified = "asyncshift-join-capture-modified";
inline constexpr const char *JoinType = "asyncshift-join-type";
inline constexpr const char *ValueType = "asyncshift-value-type";
inline constexpr const char *DetachedConvertedCall = "asyncshift-detached-converted-call";
inline constexpr const char *DeclaredElsewhere = "asyncshift-declared-elsewhere";
inline constexpr const char *OverloadConflict = "asyncshift-overload-conflict";
inline constexpr const char *ReturnValue = "asyncshift-return-value";
inline constexpr const char *ValueWithError = "asyncshift-value-with-error";
// Findings shared with --check.
inline constexpr const char *CalledTwice = "asyncshift-callback-called-twice";
inline constexpr const char *NotCalled = "asyncshift-callback-not-called";
inline constexpr const char *ErrorIgnored = "asyncshift-error-ignored";
inline constexpr const char *DanglingCapture = "asyncshift-dangling-capture";
inline constexpr const char *MixedSyncAsync = "asyncshift-mixed-sync-async";
// Warnings of the rewriter: the file is converted, with a caveat.
inline constexpr const char *SyncCompletionReordered = "asyncshift-sync-completion-reordered";
inline constexpr const char *ValueReadWithError = "asyncshift-value-read-with-error";
} // namespace ids

struct FindingNote {
  Loc Where;
  std::string Message;
};

struct Finding {
  const char *Id = "";
  std::string Message;
  Loc Where;
  Loc RangeBegin, RangeEnd; ///< optional highlighted range
  bool IsWarning = false;
  std::vector<FindingNote> Notes;
};

/// Reports \p F through Clang's diagnostics ("file:line:col: error: message [id]").
void report(clang::DiagnosticsEngine &Diags, const Finding &F);

} // namespace asyncshift

#endif
