//===- Analysis.h - Analyses over the continuation IR -----------*- C++ -*-===//
//
// Questions every printer asks of an async function, answered once here:
//
//  - completion paths: does every path call the handler exactly once, with
//    nothing after it? (the same finding ids as --check)
//  - error handling: does a continuation begin with `if (err) { cleanup;
//    return done(err); }` and never read the error again? Then the error can
//    travel as an exception or a rejection, with the cleanup attached.
//  - joins: where do the paths that call a named continuation meet, and must
//    its error parameter stay a value?
//
// Everything here works on the IR alone (no Clang), so it is unit-testable.
//
//===----------------------------------------------------------------------===//
#ifndef ASYNCSHIFT_TRANSFORMS_ANALYSIS_H
#define ASYNCSHIFT_TRANSFORMS_ANALYSIS_H

#include "Findings.h"
#include "IR.h"

#include <map>
#include <vector>

namespace asyncshift {

/// Appends a finding for every path that calls the handler twice, never, or
/// runs statements after it (or after an async call that takes over the path).
void checkCompletionPaths(const AsyncFunction &F, std::vector<Finding> &Out);

/// Appends a warning for every read of a leaf operation's value on a path
/// where its error is known to be set (`if (err) log(v);`,
/// `if (err) return done(err, "partial:" + v);`). By the callback convention
/// (SPEC §3) a failing operation passes its error alone and the value is a
/// default one, which is what the converted code reads there; an operation
/// that passes a value with its error (`cb(error("HTTP 503"), body)`) loses
/// it, since no converted style carries one (a rejected promise, a failed
/// future, an exception and a settled result hold only the error). Passing
/// it on with its own error (`done(err, v)`) is not reported, nor is a
/// converted callee's value (a default with an error in either form).
void checkValuesReadWithError(const AsyncFunction &F, std::vector<Finding> &Out);

/// Makes every join structured: `if (c) { ...; return next(...); } rest`
/// becomes `if (c) { ... } else { rest }` when the `if` arm jumps to a named
/// continuation, so the paths that reach a join always meet right after one
/// `if`. Behaviour is unchanged: the arm returned, so `rest` ran only otherwise.
void normalizeJoins(AsyncFunction &F);

/// True if any Text, error argument or error test in \p B (deeply) uses \p V.
bool references(const Block &B, VarId V);
bool references(const Node &N, VarId V);

/// How a continuation treats its error.
struct ErrorHandling {
  enum class Kind {
    /// `if (err) { cleanup...; return done(err); }` first, `err` unused after.
    Propagate,
    /// The error parameter is unnamed or never read.
    Ignored,
    /// Anything else: the error must stay a value.
    Value,
  } K = Kind::Value;
  /// The cleanup statements that run before propagating (Propagate only).
  std::vector<const SyncNode *> Cleanup;
  /// The nodes that run on success (Propagate), or the whole body.
  std::vector<const Node *> Rest;
  /// The comments in the propagating arm that are not a cleanup statement's
  /// (before and after its `return done(err);`), one per line (Propagate
  /// only): a style that folds the check prints them with the cleanup, or
  /// where the success path goes on.
  std::string Comments;
};

ErrorHandling classifyErrorHandling(const Continuation &C);

/// Every jump to each named continuation, and the continuation (if any) whose
/// body is exactly that jump (so the jump passes that async call's outcome on).
struct JumpSite {
  const JumpNode *Jump = nullptr;
  /// The async call whose continuation body is just this jump, or null.
  const AsyncCallNode *Forwarder = nullptr;
  /// The async call whose leading error check ends with this jump
  /// (`if (err) { cleanup; return next(err, ...); }`), or null.
  const AsyncCallNode *CheckedBy = nullptr;
};
std::map<unsigned, std::vector<JumpSite>> collectJumpSites(const AsyncFunction &F);

/// How each named continuation's error travels, decided once for a style.
struct JoinPlan {
  struct Join {
    /// The error parameter must stay a value (declared, assigned at each jump).
    bool ErrorAsValue = false;
    /// Why, when its leading check propagates: that check's cleanup reads
    /// the continuation's value parameter.
    bool CleanupReadsValue = false;
    /// Why, otherwise: the first call that passes an error no operation
    /// before it reported (`next(asyncshift::error("too small"), 0)`).
    const JumpNode *OwnErrorSite = nullptr;
    /// The continuation's own error handling (its leading check).
    ErrorHandling Leading;
    std::vector<JumpSite> Sites;
  };
  std::map<unsigned, Join> Joins;
  /// Async calls whose continuation only passes their outcome to a join: they
  /// take the join's error handling (its cleanup), so the error never needs a
  /// variable.
  std::map<const AsyncCallNode *, unsigned> Forwarders;
  /// Async calls whose leading error check passes the error to a join that
  /// only propagates it: they propagate with both cleanups.
  std::map<const AsyncCallNode *, unsigned> CheckJumps;
};

/// How the outcome of \p A travels in a style: its own leading check, or the
/// join it passes its error to. Propagate means the error can be an exception
/// or a rejection (with Cleanup run first); Rest is what runs on success.
ErrorHandling errorHandlingOf(const AsyncCallNode &A, const JoinPlan &Plan, bool ErrorsAsValues);

/// Plans every join of \p F. With \p ErrorsAsValues, errors always stay values.
JoinPlan planJoins(const AsyncFunction &F, bool ErrorsAsValues);

/// Counts the jumps to \p Target inside \p B (deeply, through continuations
/// and the named continuations defined inside \p B).
unsigned countJumps(const Block &B, unsigned Target);
unsigned countJumps(const Node &N, unsigned Target);

/// True when the \p Sites calls of named continuation \p Target meet right
/// after \p I: all of them are inside it and neither arm holds them all (then
/// a nested `if`, or the arm itself, is where they meet, and the named
/// continuation may read variables declared in that arm).
bool joinsAfter(const IfNode &I, unsigned Target, std::size_t Sites);

/// The nodes of a block, as pointers (for splicing sequences).
std::vector<const Node *> nodesOf(const Block &B);

} // namespace asyncshift

#endif
