//===- CheckCaptures.cpp - Continuations that outlive what they capture ---===//

#include "CheckCaptures.h"
#include "AsyncModel.h"
#include "CheckPaths.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"

using namespace clang;

namespace asyncshift {
namespace check {
namespace {

Loc locOf(SourceLocation L) { return Loc{L.getRawEncoding()}; }

SourceLocation endOf(const Stmt *Body) {
  if (const auto *CS = dyn_cast_or_null<CompoundStmt>(Body))
    return CS->getRBracLoc();
  return Body ? Body->getEndLoc() : SourceLocation();
}

/// A statement after which nothing can wait for the loop.
bool isTrivial(const Stmt *S) {
  if (isa<NullStmt>(S))
    return true;
  if (const auto *R = dyn_cast<ReturnStmt>(S)) {
    struct HasCall {
      static bool in(const Stmt *S) {
        if (!S)
          return false;
        if (isa<CallExpr>(S) || isa<CXXConstructExpr>(S))
          return true;
        for (const Stmt *Child : S->children())
          if (in(Child))
            return true;
        return false;
      }
    };
    return !HasCall::in(R->getRetValue());
  }
  return false;
}

class CaptureChecker {
public:
  CaptureChecker(const FunctionModel &M, RunsLaterFn RunsLater, std::vector<Finding> &Out)
      : M(M), Ctx(M.context()), RunsLater(RunsLater), Out(Out) {}

  void run() {
    for (const auto &C : M.callables())
      if (C->isLambda())
        if (const CallExpr *Site = deferral(*C))
          checkLambda(*C, Site);
  }

private:
  /// The first call that runs \p L after it returned.
  const CallExpr *deferral(const Callable &L) {
    for (const CallExpr *Call : L.DeferredBy) {
      CallArgs A = callArguments(Call);
      for (unsigned I = 0; I < A.Args.size(); ++I) {
        const Expr *Arg = stripArgument(A.Args[I]);
        Arg = Arg ? Arg->IgnoreParenImpCasts() : nullptr;
        bool IsL = Arg == L.Lambda || (L.NamedAs && referencedVar(Arg) == L.NamedAs);
        if (IsL && RunsLater(Call, A.FirstParam + I))
          return Call;
      }
    }
    return nullptr;
  }

  /// The compound statement whose end destroys local \p V, if it is one.
  const Stmt *scopeOf(const VarDecl *V) {
    DynTypedNodeList Parents = Ctx.getParents(*V);
    while (!Parents.empty()) {
      const DynTypedNode &P = Parents[0];
      if (const auto *CS = P.get<CompoundStmt>())
        return CS;
      if (const auto *S = P.get<Stmt>(); S && !isa<DeclStmt>(S))
        return S; // a for/if/while/switch init: the statement is the scope
      Parents = Ctx.getParents(P);
    }
    return nullptr;
  }

  /// True if nothing that could wait for the loop runs after \p Site before
  /// \p Scope ends.
  bool nothingFollows(const Stmt *Site, const Stmt *Scope) {
    DynTypedNode N = DynTypedNode::create(*Site);
    const Stmt *Current = Site;
    for (unsigned Depth = 0; Depth < 256; ++Depth) {
      DynTypedNodeList Parents = Ctx.getParents(N);
      if (Parents.empty())
        return true;
      const DynTypedNode &P = Parents[0];
      if (P.get<LambdaExpr>() || P.get<FunctionDecl>())
        return true;
      if (const auto *CS = P.get<CompoundStmt>()) {
        bool After = false;
        for (const Stmt *Child : CS->body()) {
          if (After && !isTrivial(Child))
            return false;
          if (Child == Current)
            After = true;
        }
      }
      if (const Stmt *S = P.get<Stmt>()) {
        if (S == Scope)
          return true;
        Current = S;
      }
      N = P;
    }
    return true;
  }

  void checkLambda(const Callable &L, const CallExpr *Site) {
    for (const LambdaCapture &Cap : L.Lambda->captures()) {
      if (!Cap.capturesVariable() || Cap.getCaptureKind() != LCK_ByRef)
        continue;
      const auto *V = dyn_cast<VarDecl>(Cap.getCapturedVar());
      if (V && V->isInitCapture() && V->getDeclContext() == L.Decl)
        V = referencedVar(V->getInit()); // [&r = x] refers to x
      if (!V || !V->hasLocalStorage() || V->getType()->isReferenceType())
        continue;
      checkCapture(L, Site, Cap, V);
    }
  }

  void checkCapture(const Callable &L, const Stmt *Site, const LambdaCapture &Cap, const VarDecl *V) {
    const Stmt *Started = Site;
    const Callable *S = M.callableContaining(Site);
    for (unsigned Depth = 0; S && Depth < 8; ++Depth) {
      if (V->getDeclContext() == S->Decl) {
        const Stmt *Scope = isa<ParmVarDecl>(V) ? S->Body : scopeOf(V);
        if (!Scope)
          Scope = S->Body;
        if (S->isCallbackCode() || nothingFollows(Site, Scope))
          report(L, Started, Cap, V, endOf(Scope), "goes out of scope here");
        return;
      }
      if (!S->Lambda)
        return;
      const LambdaCapture *Outer = captureOf(S->Lambda, V);
      if (!Outer)
        return;
      if (Outer->getCaptureKind() == LCK_ByCopy) {
        // The reference is to the enclosing lambda's copy, gone when it is.
        if (S->isCallbackCode() || nothingFollows(Site, S->Body))
          report(L, Started, Cap, V, endOf(S->Body), "the enclosing lambda's copy is destroyed here");
        return;
      }
      Site = deferral(*S);
      if (!Site)
        return; // used synchronously: the variable's owner decides
      S = M.callableContaining(Site);
    }
  }

  void report(const Callable &L, const Stmt *Started, const LambdaCapture &Cap, const VarDecl *V,
              SourceLocation End, const char *EndWhat) {
    const char *What = L.ContinuationShaped ? "continuation" : "lambda";
    Finding F;
    F.Id = ids::DanglingCapture;
    F.Where = locOf(Cap.getLocation());
    F.Message = std::string(What) + " captures " + quoted(V) + " by reference, but " + quoted(V) +
                " is destroyed before the " + What + " runs";
    F.Notes.push_back({locOf(Started->getBeginLoc()),
                       std::string("the ") + What + " runs after this call returns"});
    F.Notes.push_back({locOf(V->getLocation()), quoted(V) + " declared here"});
    if (End.isValid())
      F.Notes.push_back({locOf(End), EndWhat});
    Out.push_back(std::move(F));
  }

  const FunctionModel &M;
  ASTContext &Ctx;
  RunsLaterFn RunsLater;
  std::vector<Finding> &Out;
};

} // namespace

void checkDanglingCaptures(const FunctionModel &M, RunsLaterFn RunsLater, std::vector<Finding> &Out) {
  CaptureChecker(M, RunsLater, Out).run();
}

} // namespace check
} // namespace asyncshift
