//===- CheckCaptures.cpp - Continuations that outlive what they capture ---===//

#include "CheckCaptures.h"
#include "AsyncModel.h"
#include "CheckPaths.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
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

/// The first call \p L is handed to whose parameter \p Accept takes.
const CallExpr *firstCallTaking(const Callable &L, RunsLaterFn Accept) {
  for (const CallExpr *Call : L.DeferredBy) {
    CallArgs A = callArguments(Call);
    for (unsigned I = 0; I < A.Args.size(); ++I) {
      const Expr *Arg = stripArgument(A.Args[I]);
      Arg = Arg ? Arg->IgnoreParenImpCasts() : nullptr;
      bool IsL = Arg == L.Lambda || (L.NamedAs && referencedVar(Arg) == L.NamedAs);
      if (IsL && Accept(Call, A.FirstParam + I))
        return Call;
    }
  }
  return nullptr;
}

/// The first call that runs \p L after it returned.
const CallExpr *deferralOf(const Callable &L, RunsLaterFn RunsLater) { return firstCallTaking(L, RunsLater); }

/// Every member function call in a function's body, its lambdas' included.
struct MemberCalls : RecursiveASTVisitor<MemberCalls> {
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *E) {
    Calls.push_back(E);
    return true;
  }
  std::vector<const CXXMemberCallExpr *> Calls;
};

std::vector<const CXXMemberCallExpr *> memberCallsIn(const Stmt *Body) {
  MemberCalls V;
  V.TraverseStmt(const_cast<Stmt *>(Body));
  return std::move(V.Calls);
}

/// The object a member function is called on, when it is a local object
/// (not a reference or a pointer to one).
const VarDecl *localObjectOf(const CXXMemberCallExpr *Call) {
  const Expr *Obj = Call->getImplicitObjectArgument();
  const auto *DRE = Obj ? dyn_cast<DeclRefExpr>(Obj->IgnoreParenImpCasts()) : nullptr;
  const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!V || !V->hasLocalStorage() || V->getType()->isReferenceType() || V->getType()->isPointerType())
    return nullptr;
  return V;
}

/// Whether \p E is `this` (written or implicit).
bool isThis(const Expr *E) { return E && isa<CXXThisExpr>(E->IgnoreParenImpCasts()); }

class CaptureChecker {
public:
  CaptureChecker(const FunctionModel &M, RunsLaterFn RunsLater, ThisEscapeFn ThisEscape, std::vector<Finding> &Out)
      : M(M), Ctx(M.context()), RunsLater(RunsLater), ThisEscape(ThisEscape), Out(Out) {}

  void run(bool ThisOnly) {
    if (!ThisOnly)
      for (const auto &C : M.callables())
        if (C->isLambda())
          if (const CallExpr *Site = deferral(*C))
            checkLambda(*C, Site);
    for (const CXXMemberCallExpr *Call : memberCallsIn(M.root().Body))
      if (const VarDecl *Object = localObjectOf(Call))
        if (const CXXMethodDecl *Method = Call->getMethodDecl())
          if (std::optional<SourceLocation> Capture = ThisEscape(Method))
            if (std::optional<Death> D = diesBefore(Call, Object))
              reportThis(Call, Method, *Capture, Object, *D);
  }

private:
  const CallExpr *deferral(const Callable &L) { return deferralOf(L, RunsLater); }

  /// The call \p L is handed to, if any (one that runs it before returning,
  /// when deferral() found none).
  static const CallExpr *runBy(const Callable &L) {
    return firstCallTaking(L, [](const CallExpr *, unsigned) { return true; });
  }

  /// Where a variable dies before what was started at a site can run.
  struct Death {
    const Stmt *Started; ///< the call that starts what runs later
    SourceLocation End;
    const char *EndWhat;
  };

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
      const ValueDecl *Named = Cap.getCapturedVar();
      const auto *V = dyn_cast<VarDecl>(Named);
      if (V && V->isInitCapture() && V->getDeclContext() == L.Decl)
        Named = V = referencedVar(V->getInit()); // [&r = x] refers to x
      else
        V = objectBehind(Named);
      if (!V || !V->hasLocalStorage() || V->getType()->isReferenceType())
        continue;
      if (std::optional<Death> D = diesBefore(Site, V))
        report(L, Cap, Named, V, *D);
    }
  }

  /// The local object that a captured name stands for: a variable itself;
  /// for a local reference, the local it is bound to (`const std::string &r
  /// = s;`, or a range-for element of a local container or by-value
  /// parameter); for a structured binding, the hidden variable that holds
  /// what it names. Null for a reference whose object is not known to be
  /// local (a reference parameter is the caller's object).
  const VarDecl *objectBehind(const ValueDecl *D) {
    for (unsigned Depth = 0; D && Depth < 8; ++Depth) {
      if (const auto *B = dyn_cast<BindingDecl>(D)) {
        D = B->getDecomposedDecl();
        continue;
      }
      const auto *V = dyn_cast<VarDecl>(D);
      if (!V || !V->getType()->isReferenceType())
        return V;
      if (isa<ParmVarDecl>(V) || !V->hasLocalStorage())
        return nullptr;
      if (const CXXForRangeStmt *For = rangeForOf(V)) {
        D = objectOf(For->getRangeInit());
        continue;
      }
      D = objectOf(V->getInit());
    }
    return nullptr;
  }

  /// The variable whose object \p E names: `s`, or `s.part.more`.
  static const VarDecl *objectOf(const Expr *E) {
    while (E) {
      E = E->IgnoreParenImpCasts();
      if (const auto *M = dyn_cast<MemberExpr>(E); M && !M->isArrow()) {
        E = M->getBase();
        continue;
      }
      return referencedVar(E);
    }
    return nullptr;
  }

  /// The range-for whose element \p V is.
  const CXXForRangeStmt *rangeForOf(const VarDecl *V) {
    DynTypedNodeList Parents = Ctx.getParents(*V);
    if (Parents.empty())
      return nullptr;
    if (const auto *DS = Parents[0].get<DeclStmt>()) {
      DynTypedNodeList Up = Ctx.getParents(*DS);
      const auto *For = Up.empty() ? nullptr : Up[0].get<CXXForRangeStmt>();
      if (For && For->getLoopVariable() == V)
        return For;
    }
    return nullptr;
  }

  /// Whether \p V is gone before what \p Site starts can run: \p V's
  /// scope ends with nothing that could wait for the loop after \p Site,
  /// or \p Site is in callback code; followed out through lambdas that
  /// capture \p V and themselves run later.
  std::optional<Death> diesBefore(const Stmt *Site, const VarDecl *V) {
    const Stmt *Started = Site;
    const Callable *S = M.callableContaining(Site);
    for (unsigned Depth = 0; S && Depth < 8; ++Depth) {
      if (V->getDeclContext() == S->Decl) {
        const Stmt *Scope = isa<ParmVarDecl>(V) ? S->Body : scopeOf(V);
        if (!Scope)
          Scope = S->Body;
        if (S->isCallbackCode() || nothingFollows(Site, Scope))
          return Death{Started, endOf(Scope), "goes out of scope here"};
        return std::nullopt;
      }
      if (!S->Lambda)
        return std::nullopt;
      const LambdaCapture *Outer = captureOf(S->Lambda, V);
      if (!Outer)
        return std::nullopt;
      if (Outer->getCaptureKind() == LCK_ByCopy) {
        // The reference is to the enclosing lambda's copy, gone when it is.
        if (S->isCallbackCode() || nothingFollows(Site, S->Body))
          return Death{Started, endOf(S->Body), "the enclosing lambda's copy is destroyed here"};
        return std::nullopt;
      }
      Site = deferral(*S);
      if (!Site)
        Site = runBy(*S); // run before that call returns (a parallel branch): what it started runs after
      if (!Site)
        return std::nullopt; // used synchronously: the variable's owner decides
      S = M.callableContaining(Site);
    }
    return std::nullopt;
  }

  void report(const Callable &L, const LambdaCapture &Cap, const ValueDecl *Named, const VarDecl *V,
              const Death &D) {
    const char *What = L.ContinuationShaped ? "continuation" : "lambda";
    Finding F;
    F.Where = locOf(Cap.getLocation());
    const std::string Name = quoted(Named);
    F.Message = std::string(What) + " captures " + Name + " by reference, but " +
                (Named == V ? Name : "what " + Name + " refers to") + " is destroyed before the " + What + " runs";
    F.Notes.push_back({locOf(D.Started->getBeginLoc()), std::string("the ") + What + " runs after this call returns"});
    if (Named != V && V->getIdentifier())
      F.Notes.push_back({locOf(Named->getLocation()), Name + " refers to " + quoted(V)});
    else if (Named != V)
      F.Notes.push_back({locOf(V->getLocation()), Name + " names a part of this structured binding"});
    push(std::move(F), V, D);
  }

  void reportThis(const CXXMemberCallExpr *Call, const CXXMethodDecl *Method, SourceLocation Capture,
                  const VarDecl *Object, const Death &D) {
    const std::string Name = quoted(Method);
    Finding F;
    F.Where = locOf(Call->getBeginLoc());
    F.Message = quoted(Object) + " is destroyed before the continuation that " + Name +
                " leaves, which captures 'this', runs";
    F.Notes.push_back({locOf(Capture), Name + " starts a continuation that captures 'this' and runs after the call returns"});
    push(std::move(F), Object, D);
  }

  /// Ends finding \p F with where \p V was declared and where it dies.
  void push(Finding F, const VarDecl *V, const Death &D) {
    F.Id = ids::DanglingCapture;
    if (V->getIdentifier()) // (a structured binding's note is its report's)
      F.Notes.push_back({locOf(V->getLocation()), quoted(V) + " declared here"});
    if (D.End.isValid())
      F.Notes.push_back({locOf(D.End), D.EndWhat});
    Out.push_back(std::move(F));
  }

  const FunctionModel &M;
  ASTContext &Ctx;
  RunsLaterFn RunsLater;
  ThisEscapeFn ThisEscape;
  std::vector<Finding> &Out;
};

} // namespace

void checkDanglingCaptures(const FunctionModel &M, RunsLaterFn RunsLater, ThisEscapeFn ThisEscape, bool ThisOnly,
                           std::vector<Finding> &Out) {
  CaptureChecker(M, RunsLater, ThisEscape, Out).run(ThisOnly);
}

std::optional<SourceLocation> thisEscapeOf(const FunctionModel &M, RunsLaterFn RunsLater, ThisEscapeFn Callee) {
  for (const auto &C : M.callables()) {
    if (!C->isLambda())
      continue;
    for (const LambdaCapture &Cap : C->Lambda->captures())
      if (Cap.getCaptureKind() == LCK_This && deferralOf(*C, RunsLater)) // [*this] is a copy
        return Cap.getLocation();
  }
  for (const CXXMemberCallExpr *Call : memberCallsIn(M.root().Body))
    if (isThis(Call->getImplicitObjectArgument()))
      if (const CXXMethodDecl *Method = Call->getMethodDecl())
        if (std::optional<SourceLocation> Capture = Callee(Method))
          return Capture;
  return std::nullopt;
}

} // namespace check
} // namespace asyncshift
