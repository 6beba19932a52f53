//===- CheckPaths.h - Walking the paths of callback code --------*- C++ -*-===//
//
// Walks every path through a function or lambda (Clang's CFG, so loops,
// switch, early returns and short-circuits are all paths) and follows what
// each path does with the handler it must complete (CheckModel.h): is it
// called, passed on, called a second time, never called; is the error
// parameter read? The walk is path-sensitive for conditions that test an
// unmodified variable (`if (err) ...; if (!err) ...` is one path, not four)
// and for tests of the handler itself (`if (!done) return;`).
//
// The result keeps one witness per outcome: the notes that lead a reader
// along the path (`assuming 'err' is true`, `'done' already called here`).
// This file decides what statements mean (events, which lambdas count,
// when a completion happens); CheckWalk.h walks the paths.
//
//===----------------------------------------------------------------------===//
#ifndef ASYNCSHIFT_TRANSFORMS_CHECKPATHS_H
#define ASYNCSHIFT_TRANSFORMS_CHECKPATHS_H

#include "CheckModel.h"
#include "Findings.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace asyncshift {
namespace check {

/// The notes that walk a reader along one path.
using Witness = std::vector<FindingNote>;

/// When a path completes its handler, relative to the call of its function.
enum TimingBits : unsigned {
  TimingSync = 1,  ///< before the function returns
  TimingAsync = 2, ///< after it returned (from an async operation)
};

struct PathResult {
  /// False when the walk gave up (no CFG, or too many paths): report nothing.
  bool Complete = false;
  std::vector<Event> Events;
  /// Some path completes or passes on the handler.
  bool AnyDischarge = false;
  /// A path that finishes with the handler neither called nor passed on.
  std::optional<Witness> NotCalled;
  struct TwiceOnPath {
    unsigned First = 0, Second = 0;
    Witness Path; ///< leads to Second, with a note at First
  };
  /// One per event that can happen after the handler was already completed.
  std::vector<TwiceOnPath> Twice;
  struct FirstOnPath {
    unsigned Event = 0;
    Witness Path; ///< leads to the event (without a note at it)
  };
  /// Every event that is the first completion on some path.
  std::vector<FirstOnPath> Firsts;
  /// A path that finishes without reading the error parameter: any such path,
  /// and one that also completed or passed on the handler.
  std::optional<Witness> ErrorIgnored, ErrorIgnoredCompleting;
};

struct PreparedWalk;

/// Walks paths, remembering results (and the functions it looked into) for
/// the lifetime of one translation unit.
class PathAnalyzer {
public:
  explicit PathAnalyzer(clang::ASTContext &Ctx);
  ~PathAnalyzer();

  /// The model of \p Root (a function defined somewhere in the TU).
  const FunctionModel &modelOf(const clang::FunctionDecl *Root);

  /// Walks \p C with the obligation to complete \p Handler (may be null: then
  /// only the error parameter is followed). \p ErrorIs, when set, is what the
  /// continuation's error parameter is known to be (a named continuation
  /// called with `{}` gets a success).
  const PathResult &walk(const FunctionModel &M, const Callable &C, const clang::ParmVarDecl *Handler,
                         std::optional<bool> ErrorIs = std::nullopt);

  /// Whether the lambda an event calls or passes on may complete the handler
  /// on some paths but not all (a branch of a fan-out join).
  bool isPartial(const FunctionModel &M, const Event &E, const clang::ParmVarDecl *Handler);

  /// Whether the lambda an event calls or passes on completes the handler
  /// exactly when its error parameter is set (`[=](error err) { if (err)
  /// return done(err); }`): partial, but guarded by nothing a join would
  /// share (a counter, a flag), so two failures complete the handler twice.
  bool isFailureOnly(const FunctionModel &M, const Event &E, const clang::ParmVarDecl *Handler);

  /// When the event completes the handler (TimingBits; 0 when unknown).
  unsigned timingOf(const FunctionModel &M, const Event &E, const clang::ParmVarDecl *Handler, unsigned Depth = 0);
  /// Where \p E completes \p Handler with timing \p Bit (TimingSync or
  /// TimingAsync): inside the helper lambda it calls (the recursive-lambda
  /// idiom's first round), the completion that does, else E's own site.
  const clang::Stmt *siteWithTiming(const FunctionModel &M, const Event &E, const clang::ParmVarDecl *Handler,
                                    unsigned Bit, unsigned Depth = 0);

  /// When \p Callee completes the handler passed as its argument \p ArgIndex
  /// (TimingBits; 0 when unknown): a function declared elsewhere or in the
  /// runtime is an async operation; one defined here is walked.
  unsigned calleeTiming(const FunctionModel &M, const clang::FunctionDecl *Callee, unsigned ArgIndex,
                        unsigned Depth = 0);

private:
  const PreparedWalk &prepare(const FunctionModel &M, const Callable &C, const clang::ParmVarDecl *Handler);
  bool isSignificant(const FunctionModel &M, const Event &E, const clang::ParmVarDecl *Handler);
  void run(const FunctionModel &M, const Callable &C, const clang::ParmVarDecl *Handler, std::optional<bool> ErrorIs,
           PathResult &Out);

  clang::ASTContext &Ctx;
  std::map<const clang::FunctionDecl *, std::unique_ptr<FunctionModel>> Models;
  std::map<std::pair<const Callable *, const clang::ParmVarDecl *>, std::unique_ptr<PreparedWalk>> PreparedWalks;
  std::map<std::tuple<const Callable *, const clang::ParmVarDecl *, int>, std::unique_ptr<PathResult>> Results;
  std::set<std::tuple<const Callable *, const clang::ParmVarDecl *, int>> InProgress;
  const PathResult Incomplete;
};

/// How a message names the handler: 'done'.
std::string quoted(const clang::NamedDecl *D);

} // namespace check
} // namespace asyncshift

#endif
