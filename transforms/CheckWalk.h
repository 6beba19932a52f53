//===- CheckWalk.h - One breadth-first walk over a CFG's paths ---*- C++ -*-===//
//
// The engine under CheckPaths.h: a CFG whose blocks have been reduced to what
// the checker cares about (handler events, reads of the error parameter,
// ends of paths, remembered conditions), and the breadth-first walk over
// (block, state) pairs that fills a PathResult, with a witness (the notes
// along the shortest path) for each outcome. Separate so that deciding what
// a statement means (CheckPaths.cpp) and walking paths (CheckWalk.cpp) can be
// read on their own.
//
//===----------------------------------------------------------------------===//
#ifndef ASYNCSHIFT_TRANSFORMS_CHECKWALK_H
#define ASYNCSHIFT_TRANSFORMS_CHECKWALK_H

#include "CheckPaths.h"

#include "clang/Analysis/CFG.h"
#include "llvm/ADT/DenseMap.h"

#include <memory>
#include <optional>
#include <vector>

namespace asyncshift {
namespace check {

/// What happens in a block, in order.
struct Action {
  enum class Kind {
    Event,     ///< PreparedWalk::Events[Index] happens
    ReadError, ///< the error parameter is read
    Stop,      ///< the path ends without returning (throw, [[noreturn]] call)
    Assign,    ///< the flag of bit Index is set to Value (`found = true;`)
    Forget,    ///< the flag of bit Index takes a value the walk does not know
  } K = Kind::Event;
  unsigned Index = 0;
  bool Value = false;
};

/// A two-way branch the walk can remember: a test of an unmodified variable
/// or of a local flag (a bit of the path's assumptions), or of the handler's
/// emptiness.
struct Atom {
  bool IsHandler = false;
  unsigned Bit = 0;
  bool Negated = false; ///< `!x`: the first successor means x is false
};

/// A CFG reduced to actions, for one callable and one handler.
struct PreparedWalk {
  std::unique_ptr<clang::CFG> Graph;
  std::vector<Event> Events;
  std::vector<std::vector<Action>> Actions;  ///< by block id
  std::vector<std::optional<Atom>> Atoms;    ///< by block id
  std::vector<const clang::CFGBlock *> Blocks; ///< by block id
  /// By block id, aligned with the block's succs(): where a path may go next
  /// (nullptr: nowhere). Clang prunes every edge whose condition it can
  /// evaluate; the walk keeps only the prunings the source spells as a
  /// constant (`while (true)`, `if (0)`, `if constexpr`) and those of a switch
  /// (an enum fully covered), so that code under `if (n % 5 == 0)` with a
  /// constant n is still walked, as it is rewritten.
  std::vector<std::vector<const clang::CFGBlock *>> Next;
  llvm::DenseMap<const clang::VarDecl *, unsigned> AtomBits;
  /// The bit of the error parameter, when it is a condition the walk remembers.
  std::optional<unsigned> ErrorBit;
};

/// Walks every path of \p P (a walk of \p C for \p Handler) and fills \p Out.
/// \p Significant says which events complete the handler; \p ErrorIs, when
/// set, is what the error parameter is known to be.
void walkPaths(clang::ASTContext &Ctx, const PreparedWalk &P, const Callable &C, const clang::ParmVarDecl *Handler,
               const std::vector<bool> &Significant, std::optional<bool> ErrorIs, PathResult &Out);

/// Source text of \p S quoted for a message, or \p Fallback if it is long or
/// comes from a macro.
std::string describe(const clang::ASTContext &Ctx, const clang::Stmt *S, llvm::StringRef Fallback);

/// Whether \p S names \p V (outside sizeof, which does not read it).
bool mentionsVar(const clang::Stmt *S, const clang::VarDecl *V);

} // namespace check
} // namespace asyncshift

#endif
