//===- CheckPaths.cpp - Walking the paths of callback code ----------------===//

#include "CheckPaths.h"
#include "AsyncModel.h"
#include "CheckWalk.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/DenseSet.h"

#include <functional>

using namespace clang;

namespace asyncshift {
namespace check {

namespace {

constexpr unsigned TimingUnknown = 4;

/// Whether \p Body uses the callable parameter \p P only by calling it
/// (`f()`, `f(x)`, `std::forward<F>(f)()`), outside any lambda: a wrapper
/// that runs what it is given before it returns (a lock, a tracing span, a
/// timer), never keeping it for later.
bool onlyCalledIn(const Stmt *Body, const ParmVarDecl *P) {
  struct Visitor : LambdaDepthVisitor<Visitor> {
    const ParmVarDecl *P;
    llvm::DenseSet<const DeclRefExpr *> Called;
    bool Escapes = false;
    static const DeclRefExpr *calledRef(const Expr *Callee, const ParmVarDecl *P) {
      Callee = Callee ? Callee->IgnoreParenImpCasts() : nullptr;
      if (const auto *C = dyn_cast_or_null<CallExpr>(Callee)) { // std::forward<F>(f), std::move(f)
        const FunctionDecl *FD = C->getDirectCallee();
        if (FD && FD->isInStdNamespace() && C->getNumArgs() == 1 &&
            (FD->getName() == "forward" || FD->getName() == "move"))
          Callee = C->getArg(0)->IgnoreParenImpCasts();
      }
      const auto *DRE = dyn_cast_or_null<DeclRefExpr>(Callee);
      return DRE && DRE->getDecl() == P ? DRE : nullptr;
    }
    bool VisitCallExpr(CallExpr *C) {
      const Expr *Callee = C->getCallee();
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(C); Op && Op->getOperator() == OO_Call)
        Callee = Op->getArg(0);
      else if (const auto *M = dyn_cast<CXXMemberCallExpr>(C))
        Callee = M->getImplicitObjectArgument();
      if (const DeclRefExpr *DRE = calledRef(Callee, P); DRE && !InLambda)
        Called.insert(DRE);
      return true;
    }
    bool VisitDeclRefExpr(DeclRefExpr *DRE) {
      if (DRE->getDecl() == P && (InLambda || !Called.count(DRE)))
        Escapes = true;
      return true;
    }
  } V;
  V.P = P;
  V.TraverseStmt(const_cast<Stmt *>(Body));
  return !V.Escapes;
}

/// The local flags of \p C: bool variables declared in its body whose every
/// use there is a read or an assignment of `true` or `false`, none of them
/// in a nested lambda. The walk follows their values (`found = true; break;`
/// ... `if (!found) done(...)`), as it follows unmodified variables.
llvm::DenseSet<const VarDecl *> flagsOf(const Callable &C) {
  struct Visitor : LambdaDepthVisitor<Visitor> {
    const FunctionDecl *Owner;
    llvm::DenseSet<const VarDecl *> Candidates, Spoiled;
    llvm::DenseSet<const DeclRefExpr *> Fine;
    bool VisitVarDecl(VarDecl *V) {
      if (!InLambda && V->getType()->isBooleanType() && !V->getType()->isReferenceType() && !isa<ParmVarDecl>(V) &&
          V->hasLocalStorage() && V->getParentFunctionOrMethod() == Owner)
        Candidates.insert(V);
      return true;
    }
    bool VisitBinaryOperator(BinaryOperator *B) {
      const auto *DRE = dyn_cast<DeclRefExpr>(B->getLHS()->IgnoreParens());
      if (B->getOpcode() == BO_Assign && DRE && isa<CXXBoolLiteralExpr>(B->getRHS()->IgnoreParenImpCasts()))
        Fine.insert(DRE);
      return true;
    }
    bool VisitImplicitCastExpr(ImplicitCastExpr *E) {
      if (E->getCastKind() == CK_LValueToRValue)
        if (const auto *DRE = dyn_cast<DeclRefExpr>(E->getSubExpr()->IgnoreParens()))
          Fine.insert(DRE);
      return true;
    }
    bool VisitDeclRefExpr(DeclRefExpr *DRE) {
      if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()); V && (InLambda || !Fine.contains(DRE)))
        Spoiled.insert(V);
      return true;
    }
  } V;
  V.Owner = C.Decl;
  V.TraverseStmt(const_cast<Stmt *>(C.Body));
  llvm::DenseSet<const VarDecl *> Out;
  for (const VarDecl *Var : V.Candidates)
    if (!V.Spoiled.contains(Var))
      Out.insert(Var);
  return Out;
}

/// What a CFG element stores into a flag: `flag = true;`, or its declaration
/// (an initializer that is not a literal: a value the walk does not know).
struct FlagStore {
  const VarDecl *Var;
  std::optional<bool> Value;
};
std::optional<FlagStore> flagStoreOf(const Stmt *S, const llvm::DenseSet<const VarDecl *> &Flags) {
  if (Flags.empty())
    return std::nullopt;
  if (const auto *B = dyn_cast<BinaryOperator>(S); B && B->getOpcode() == BO_Assign)
    if (const auto *DRE = dyn_cast<DeclRefExpr>(B->getLHS()->IgnoreParens()))
      if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()); V && Flags.contains(V))
        if (const auto *L = dyn_cast<CXXBoolLiteralExpr>(B->getRHS()->IgnoreParenImpCasts()))
          return FlagStore{V, L->getValue()};
  if (const auto *DS = dyn_cast<DeclStmt>(S); DS && DS->isSingleDecl())
    if (const auto *V = dyn_cast<VarDecl>(DS->getSingleDecl()); V && Flags.contains(V)) {
      const auto *L = V->getInit() ? dyn_cast<CXXBoolLiteralExpr>(V->getInit()->IgnoreParenImpCasts()) : nullptr;
      return FlagStore{V, L ? std::optional<bool>(L->getValue()) : std::nullopt};
    }
  return std::nullopt;
}

/// Whether the edges Clang pruned at the end of \p B stay pruned: the branch
/// tests a constant as written, or is a switch (whose pruned default is what
/// says that every enumerator has its case).
bool keepsPruning(const CFGBlock *B) {
  const Stmt *T = B->getTerminatorStmt();
  if (const auto *If = dyn_cast_or_null<IfStmt>(T); If && If->isConstexpr())
    return true;
  if (isa_and_nonnull<SwitchStmt>(T))
    return true;
  const auto *Cond = dyn_cast_or_null<Expr>(B->getTerminatorCondition());
  if (!Cond)
    return true; // `for (;;)`, or no branch at all
  const Expr *E = Cond->IgnoreParenImpCasts();
  return isa<CXXBoolLiteralExpr, IntegerLiteral, CXXNullPtrLiteralExpr>(E);
}

bool isThrow(const Stmt *S) {
  const auto *E = dyn_cast<Expr>(S);
  return E && isa<CXXThrowExpr>(E->IgnoreImplicit());
}

} // namespace

std::string quoted(const NamedDecl *D) { return "'" + (D ? D->getNameAsString() : std::string("?")) + "'"; }

PathAnalyzer::PathAnalyzer(ASTContext &Ctx) : Ctx(Ctx) {}
PathAnalyzer::~PathAnalyzer() = default;

const FunctionModel &PathAnalyzer::modelOf(const FunctionDecl *Root) {
  auto &Slot = Models[Root];
  if (!Slot)
    Slot = std::make_unique<FunctionModel>(Ctx, Root);
  return *Slot;
}

/// Clang's CFG (built without exception edges) leaves the handlers of a
/// `try` unreachable. Every block of the try block that completes nothing
/// gets one more successor, past its own: its `try` (the block that
/// dispatches to the handlers), whose edges are then the handlers alone (an
/// exception no handler takes leaves the function, which completes nothing
/// and is not followed). So a path may leave the try block after such a
/// block, with what it did done, into any handler: `try { n = parse(s); }
/// catch (...) { return done(err); }` completes synchronously on that path.
/// A block that completes is assumed not to throw after it: in `try {
/// done({}, parse(s)); } catch (...) { done(err); }` what throws is the
/// argument, before the call (a second call needs the handler itself to
/// throw, which callback code does not plan for).
static void addCatchEdges(const CFG &Graph, const std::vector<std::vector<Action>> &Actions,
                          std::vector<std::vector<const CFGBlock *>> &Next) {
  for (const CFGBlock *Dispatch : Graph) {
    const auto *Try = dyn_cast_or_null<CXXTryStmt>(Dispatch->getTerminatorStmt());
    if (!Try)
      continue;
    std::vector<const CFGBlock *> &Handlers = Next[Dispatch->getBlockID()];
    for (const CFGBlock *&H : Handlers)
      if (H && !isa_and_nonnull<CXXCatchStmt>(H->getLabel()))
        H = nullptr;
    const SourceRange Body = Try->getTryBlock()->getSourceRange();
    for (const CFGBlock *B : Graph) {
      bool Inside = false;
      for (const CFGElement &E : *B)
        if (auto CS = E.getAs<CFGStmt>(); CS && Body.fullyContains(CS->getStmt()->getSourceRange())) {
          Inside = true;
          break;
        }
      if (Inside && llvm::none_of(Actions[B->getBlockID()], [](const Action &A) { return A.K == Action::Kind::Event; }))
        Next[B->getBlockID()].push_back(Dispatch);
    }
  }
}

const PreparedWalk &PathAnalyzer::prepare(const FunctionModel &M, const Callable &C, const ParmVarDecl *H) {
  auto &Slot = PreparedWalks[{&C, H}];
  if (Slot)
    return *Slot;
  Slot = std::make_unique<PreparedWalk>();
  PreparedWalk &P = *Slot;
  if (!C.Body || isa<CoroutineBodyStmt>(C.Body))
    return P;
  CFG::BuildOptions Options;
  Options.PruneTriviallyFalseEdges = true;
  P.Graph = CFG::buildCFG(C.Decl, const_cast<Stmt *>(C.Body), &Ctx, Options);
  if (!P.Graph)
    return P;

  llvm::DenseSet<const Stmt *> Elements;
  for (const CFGBlock *B : *P.Graph)
    for (const CFGElement &E : *B)
      if (auto S = E.getAs<CFGStmt>())
        Elements.insert(S->getStmt());

  ExprMutationAnalyzer Mutations(*C.Body, Ctx);
  const llvm::DenseSet<const VarDecl *> Flags = flagsOf(C);
  auto stable = [&](const VarDecl *V) {
    return V && !V->getType()->isReferenceType() && (Flags.contains(V) || !Mutations.isMutated(V));
  };
  auto bitOf = [&](const VarDecl *V) -> std::optional<unsigned> {
    if (auto It = P.AtomBits.find(V); It != P.AtomBits.end())
      return It->second;
    if (P.AtomBits.size() >= 32 || !stable(V))
      return std::nullopt;
    unsigned Bit = P.AtomBits.size();
    P.AtomBits[V] = Bit;
    return Bit;
  };
  if (C.ErrorParam)
    P.ErrorBit = bitOf(C.ErrorParam);

  // Events of one element: sub-expressions first (evaluation order), never
  // inside a lambda body (it runs later) nor into sub-expressions the CFG
  // lists as elements of their own (branches of ?:, && and ||).
  std::function<void(const Stmt *, bool, std::vector<Action> &)> Scan = [&](const Stmt *S, bool Top,
                                                                            std::vector<Action> &Out) {
    if (!S || (!Top && Elements.count(S)) || isa<LambdaExpr>(S) || isa<UnaryExprOrTypeTraitExpr>(S))
      return;
    for (const Stmt *Child : S->children())
      Scan(Child, false, Out);
    if (!H)
      return;
    if (std::optional<Event> E = M.eventOf(H, S)) {
      P.Events.push_back(*E);
      Out.push_back({Action::Kind::Event, static_cast<unsigned>(P.Events.size() - 1)});
    }
  };

  unsigned N = P.Graph->getNumBlockIDs();
  P.Actions.resize(N);
  P.Atoms.resize(N);
  P.Blocks.resize(N);
  P.Next.resize(N);
  for (const CFGBlock *B : *P.Graph) {
    unsigned Id = B->getBlockID();
    P.Blocks[Id] = B;
    bool KeepPruned = keepsPruning(B);
    for (const CFGBlock::AdjacentBlock &Succ : B->succs())
      P.Next[Id].push_back(Succ.getReachableBlock() || KeepPruned ? Succ.getReachableBlock()
                                                                   : Succ.getPossiblyUnreachableBlock());
    std::vector<Action> &Out = P.Actions[Id];
    for (const CFGElement &E : *B) {
      auto CS = E.getAs<CFGStmt>();
      if (!CS)
        continue;
      const Stmt *S = CS->getStmt();
      Scan(S, true, Out);
      if (std::optional<FlagStore> F = flagStoreOf(S, Flags))
        if (auto Bit = bitOf(F->Var))
          Out.push_back({F->Value ? Action::Kind::Assign : Action::Kind::Forget, *Bit, F->Value.value_or(false)});
      if (C.ErrorParam && mentionsVar(S, C.ErrorParam))
        Out.push_back({Action::Kind::ReadError, 0});
      if (isThrow(S))
        Out.push_back({Action::Kind::Stop, 0});
    }
    if (B->hasNoReturnElement())
      Out.push_back({Action::Kind::Stop, 0});

    // A two-way branch on a variable the walk can remember.
    if (B->succ_size() != 2 || !B->getTerminatorStmt() || isa<CXXForRangeStmt>(B->getTerminatorStmt()))
      continue;
    const Stmt *CondStmt = B->getTerminatorCondition();
    const auto *Cond = dyn_cast_or_null<Expr>(CondStmt);
    if (!Cond)
      continue;
    Atom A;
    const Expr *X = Cond->IgnoreParenImpCasts();
    for (;;) {
      if (const auto *U = dyn_cast<UnaryOperator>(X); U && U->getOpcode() == UO_LNot) {
        A.Negated = !A.Negated;
        X = U->getSubExpr()->IgnoreParenImpCasts();
        continue;
      }
      if (const auto *MC = dyn_cast<CXXMemberCallExpr>(X); MC && isa_and_nonnull<CXXConversionDecl>(MC->getMethodDecl())) {
        X = MC->getImplicitObjectArgument()->IgnoreParenImpCasts();
        continue;
      }
      break;
    }
    const VarDecl *V = referencedVar(X);
    if (!V)
      continue;
    if (H && M.isCarrier(H, V)) {
      A.IsHandler = true;
      P.Atoms[Id] = A;
    } else if (auto Bit = bitOf(V)) {
      A.Bit = *Bit;
      P.Atoms[Id] = A;
    }
  }
  addCatchEdges(*P.Graph, P.Actions, P.Next);
  return P;
}

bool PathAnalyzer::isSignificant(const FunctionModel &M, const Event &E, const ParmVarDecl *H) {
  if (!E.Target)
    return true;
  if (InProgress.count({E.Target, H, -1}))
    return true; // a cycle: assume the lambda completes
  const PathResult &R = walk(M, *E.Target, H);
  return !R.Complete || R.AnyDischarge;
}

bool PathAnalyzer::isPartial(const FunctionModel &M, const Event &E, const ParmVarDecl *H) {
  if (!E.Target || InProgress.count({E.Target, H, -1}))
    return false;
  const PathResult &R = walk(M, *E.Target, H);
  return R.Complete && R.AnyDischarge && R.NotCalled.has_value();
}

bool PathAnalyzer::isFailureOnly(const FunctionModel &M, const Event &E, const ParmVarDecl *H) {
  if (!E.Target || !E.Target->ErrorParam || InProgress.count({E.Target, H, 0}) || InProgress.count({E.Target, H, 1}))
    return false;
  const PathResult &Failed = walk(M, *E.Target, H, true);
  if (!Failed.Complete || !Failed.AnyDischarge || Failed.NotCalled)
    return false;
  const PathResult &Succeeded = walk(M, *E.Target, H, false);
  return Succeeded.Complete && !Succeeded.AnyDischarge;
}

const PathResult &PathAnalyzer::walk(const FunctionModel &M, const Callable &C, const ParmVarDecl *H,
                                     std::optional<bool> ErrorIs) {
  auto Key = std::make_tuple(&C, H, ErrorIs ? int(*ErrorIs) : -1);
  if (auto It = Results.find(Key); It != Results.end())
    return *It->second;
  if (!InProgress.insert(Key).second)
    return Incomplete; // a cycle (a lambda reaching itself): nothing is known yet
  auto Result = std::make_unique<PathResult>();
  run(M, C, H, ErrorIs, *Result);
  InProgress.erase(Key);
  auto &Stored = Results[Key];
  Stored = std::move(Result);
  return *Stored;
}

void PathAnalyzer::run(const FunctionModel &M, const Callable &C, const ParmVarDecl *H, std::optional<bool> ErrorIs,
                       PathResult &Out) {
  const PreparedWalk &P = prepare(M, C, H);
  std::vector<bool> Significant(P.Events.size());
  for (unsigned I = 0; I < P.Events.size(); ++I)
    Significant[I] = isSignificant(M, P.Events[I], H);
  walkPaths(Ctx, P, C, H, Significant, ErrorIs, Out);
}

unsigned PathAnalyzer::timingOf(const FunctionModel &M, const Event &E, const ParmVarDecl *H, unsigned Depth) {
  if (Depth > 6)
    return TimingUnknown;
  auto firsts = [&](const FunctionModel &FM, const Callable &C, const ParmVarDecl *CH, std::optional<bool> ErrorIs) {
    if (InProgress.count({&C, CH, ErrorIs ? int(*ErrorIs) : -1}))
      return TimingUnknown;
    const PathResult &R = walk(FM, C, CH, ErrorIs);
    if (!R.Complete)
      return TimingUnknown;
    unsigned Bits = 0;
    for (const auto &F : R.Firsts)
      Bits |= timingOf(FM, R.Events[F.Event], CH, Depth + 1);
    return Bits;
  };
  switch (E.K) {
  case Event::Kind::Call:
    return TimingSync;
  case Event::Kind::Store:
    return TimingUnknown;
  case Event::Kind::Invoke: {
    if (!E.Target)
      return TimingUnknown; // a lambda not known here (the recursive-lambda idiom's `self`)
    if (!E.Target->ContinuationShaped) // a helper lambda (the idiom's first round): run before it returns
      return firsts(M, *E.Target, H, std::nullopt);
    std::optional<bool> ErrorIs;
    if (E.FirstArg && isSuccessLiteral(E.FirstArg))
      ErrorIs = false;
    else if (E.FirstArg && isFailureConstruction(E.FirstArg))
      ErrorIs = true;
    return firsts(M, *E.Target, H, ErrorIs);
  }
  case Event::Kind::PassOn: {
    unsigned CalleeTiming = calleeTiming(M, E.Callee, E.ArgIndex, Depth + 1);
    if (CalleeTiming == TimingSync) // it runs what it is given before returning
      return E.Target ? firsts(M, *E.Target, H, std::nullopt) : TimingSync;
    return CalleeTiming == TimingAsync ? TimingAsync : TimingUnknown;
  }
  }
  return TimingUnknown;
}

const Stmt *PathAnalyzer::siteWithTiming(const FunctionModel &M, const Event &E, const ParmVarDecl *H, unsigned Bit,
                                         unsigned Depth) {
  if (E.K != Event::Kind::Invoke || !E.Target || E.Target->ContinuationShaped || Depth > 6 ||
      InProgress.count({E.Target, H, -1}))
    return E.Site;
  const PathResult &R = walk(M, *E.Target, H);
  if (R.Complete)
    for (const auto &F : R.Firsts)
      if (timingOf(M, R.Events[F.Event], H) & Bit)
        return siteWithTiming(M, R.Events[F.Event], H, Bit, Depth + 1);
  return E.Site;
}

unsigned PathAnalyzer::calleeTiming(const FunctionModel &M, const FunctionDecl *Callee, unsigned ArgIndex,
                                    unsigned Depth) {
  if (!Callee || Depth > 6)
    return TimingUnknown;
  if (isInNamespace(Callee, "asyncshift")) {
    // parallel calls each branch before it returns (a branch may capture the
    // caller's locals by reference); every other argument of the runtime's
    // operations runs from the loop.
    if (Callee->getName() == "parallel" && ArgIndex == 1 && Callee->getNumParams() == 3)
      return TimingSync;
    return TimingAsync;
  }
  if (isInNamespace(Callee, "std"))
    return TimingUnknown;
  const FunctionDecl *Def = nullptr;
  if (!Callee->hasBody(Def) || !Def)
    return TimingAsync; // a leaf declared elsewhere: an async operation
  if (ArgIndex < Def->getNumParams()) {
    const ParmVarDecl *P = Def->getParamDecl(ArgIndex);
    if (!asCallbackType(P->getType()) && !isa<CoroutineBodyStmt>(Def->getBody()) && onlyCalledIn(Def->getBody(), P))
      return TimingSync; // a wrapper that runs it before returning
  }
  const ParmVarDecl *CH = handlerParam(Def);
  if (!CH || !CH->getIdentifier() || ArgIndex + 1 != Def->getNumParams())
    return TimingUnknown;
  const FunctionModel *CM = &M;
  const Callable *CC = M.callableOfDecl(Def);
  if (!CC) {
    if (const auto *Method = dyn_cast<CXXMethodDecl>(Def); Method && Method->getParent()->isLambda())
      return TimingUnknown;
    CM = &modelOf(Def);
    CC = &CM->root();
  }
  if (InProgress.count({CC, CH, -1}))
    return TimingUnknown;
  const PathResult &R = walk(*CM, *CC, CH);
  if (!R.Complete)
    return TimingUnknown;
  unsigned Bits = 0;
  for (const auto &F : R.Firsts)
    Bits |= timingOf(*CM, R.Events[F.Event], CH, Depth + 1);
  return Bits;
}

} // namespace check
} // namespace asyncshift
