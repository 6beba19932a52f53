//===- CheckModel.cpp - What the checker knows about one function ---------===//

#include "CheckModel.h"
#include "AsyncModel.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace asyncshift {
namespace check {

bool isInNamespace(const Decl *D, llvm::StringRef NS) {
  const NamespaceDecl *Outermost = nullptr;
  for (const DeclContext *DC = D ? D->getDeclContext() : nullptr; DC; DC = DC->getParent())
    if (const auto *N = dyn_cast<NamespaceDecl>(DC))
      Outermost = N;
  return Outermost && Outermost->getIdentifier() && Outermost->getName() == NS;
}

bool isCallableType(QualType T) {
  if (T.isNull())
    return false;
  T = T.getNonReferenceType();
  if (T->isDependentType() || T->isUndeducedType() || asCallbackType(T))
    return true;
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  if (!RD)
    return false;
  if (RD->isLambda())
    return true;
  if (!RD->hasDefinition())
    return false;
  DeclarationName Call = RD->getASTContext().DeclarationNames.getCXXOperatorName(OO_Call);
  return !RD->lookup(Call).empty();
}

static bool isWithin(const DeclContext *DC, const FunctionDecl *FD) {
  for (; DC; DC = DC->getParent())
    if (DC == FD)
      return true;
  return false;
}

namespace {

/// The function a call names when overload resolution waits for a template
/// argument (a generic lambda's body read as written: `read_int(k, [=](...)
/// { self(self, ...); })` depends on `self`'s type) and the name has one
/// candidate, a function that is no template.
const FunctionDecl *onlyCandidate(const CallExpr *C) {
  const auto *Lookup = dyn_cast<UnresolvedLookupExpr>(C->getCallee()->IgnoreParenImpCasts());
  if (!Lookup || Lookup->getNumDecls() != 1)
    return nullptr;
  return dyn_cast<FunctionDecl>((*Lookup->decls_begin())->getUnderlyingDecl());
}

/// Walks a function once: its lambdas, bindings of local variables, calls.
class Collector : public RecursiveASTVisitor<Collector> {
public:
  Collector(const FunctionDecl *Root, std::vector<std::unique_ptr<Callable>> &Callables,
            llvm::DenseMap<const Stmt *, const Callable *> &StmtOwner,
            std::vector<std::pair<const VarDecl *, const Expr *>> &Bindings)
      : Root(Root), Callables(Callables), StmtOwner(StmtOwner), Bindings(Bindings) {
    Stack.push_back(Callables.front().get());
  }

  bool TraverseCXXRecordDecl(CXXRecordDecl *RD) {
    return RD->isLambda() ? RecursiveASTVisitor::TraverseCXXRecordDecl(RD) : true; // local classes are not ours
  }

  bool TraverseLambdaExpr(LambdaExpr *L) {
    StmtOwner.try_emplace(L, Stack.back());
    auto C = std::make_unique<Callable>();
    // A generic lambda with one instantiation (`[=](std::size_t i, auto cb)`
    // handed to parallel) is read from that instantiation, where its handler
    // has a callback type, as the rewriter reads it.
    const CXXMethodDecl *Instance = singleInstantiation(L);
    C->Decl = Instance ? Instance : L->getCallOperator();
    C->Lambda = L;
    C->Body = Instance ? Instance->getBody() : L->getBody();
    C->Parent = Stack.back();
    if (const ParmVarDecl *H = handlerParam(C->Decl); H && H->getIdentifier())
      C->OwnHandler = H;
    C->ContinuationShaped = isContinuationShaped(L);
    if (C->ContinuationShaped && C->Decl->getParamDecl(0)->getIdentifier())
      C->ErrorParam = C->Decl->getParamDecl(0);
    Stack.push_back(C.get());
    Callables.push_back(std::move(C));
    bool R = true;
    if (Instance) {
      for (Expr *Init : L->capture_inits())
        if (Init && !(R = TraverseStmt(Init)))
          break;
      R = R && TraverseStmt(Instance->getBody());
    } else {
      R = RecursiveASTVisitor::TraverseLambdaExpr(L);
    }
    Stack.pop_back();
    return R;
  }

  bool VisitStmt(Stmt *S) {
    StmtOwner.try_emplace(S, Stack.back());
    return true;
  }

  bool VisitVarDecl(VarDecl *V) {
    if (const Expr *Init = V->getInit(); Init && isWithin(V->getDeclContext(), Root))
      Bindings.emplace_back(V, Init);
    return true;
  }

  bool VisitCallExpr(CallExpr *C) {
    Calls.push_back(C);
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(C); Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2)
      if (const VarDecl *V = referencedVar(Op->getArg(0)); V && isWithin(V->getDeclContext(), Root))
        Bindings.emplace_back(V, Op->getArg(1));
    return true;
  }

  std::vector<const CallExpr *> Calls;

private:
  const FunctionDecl *Root;
  std::vector<std::unique_ptr<Callable>> &Callables;
  llvm::DenseMap<const Stmt *, const Callable *> &StmtOwner;
  std::vector<std::pair<const VarDecl *, const Expr *>> &Bindings;
  std::vector<const Callable *> Stack;
};

} // namespace

FunctionModel::FunctionModel(ASTContext &Ctx, const FunctionDecl *Root) : Ctx(Ctx) {
  auto R = std::make_unique<Callable>();
  R->Decl = Root;
  R->Body = Root->getBody();
  if (const ParmVarDecl *H = handlerParam(Root); H && H->getIdentifier())
    R->OwnHandler = H;
  Callables.push_back(std::move(R));
  collect();
}

void FunctionModel::collect() {
  Collector C(root().Decl, Callables, StmtOwner, Bindings);
  if (root().Body)
    C.TraverseStmt(const_cast<Stmt *>(root().Body));
  for (const auto &Call : Callables) {
    ByDecl[Call->Decl] = Call.get();
    if (Call->Lambda)
      ByLambda[Call->Lambda] = Call.get();
  }
  // Named lambdas: `auto next = [=](...) {...};`
  for (auto &[V, Init] : Bindings)
    if (const auto *L = dyn_cast_or_null<LambdaExpr>(stripArgument(Init)))
      if (const Callable *LC = callableOf(L); LC && V->getInit() == Init && !ByVar.count(V)) {
        ByVar[V] = LC;
        const_cast<Callable *>(LC)->NamedAs = V;
      }
  for (const CallExpr *Call : C.Calls) {
    CallArgs A = callArguments(Call);
    if (A.IsOperator)
      continue;
    const VarDecl *CalleeVar = referencedVar(stripArgument(A.Object ? A.Object : Call->getCallee()));
    if (CalleeVar && ByVar.count(CalleeVar))
      LocalLambdaCalls.push_back(Call);
  }
  computeObligations();
  // Lambdas handed to calls that run them later.
  for (const CallExpr *Call : C.Calls) {
    CallArgs A = callArguments(Call);
    if (A.IsOperator || (A.Callee && isInNamespace(A.Callee, "std")))
      continue;
    const VarDecl *CalleeVar = referencedVar(stripArgument(A.Object ? A.Object : Call->getCallee()));
    for (const Expr *Arg : A.Args) {
      const Expr *S = stripArgument(Arg);
      S = S ? S->IgnoreParenImpCasts() : nullptr;
      const Callable *LC = nullptr;
      if (const auto *L = dyn_cast_or_null<LambdaExpr>(S))
        LC = callableOf(L);
      else if (const VarDecl *V = referencedVar(S); V && V != CalleeVar)
        LC = lambdaOfVar(V);
      if (LC && (LC->ContinuationShaped || asCallbackType(Arg->getType()) || LC->Obligation))
        const_cast<Callable *>(LC)->DeferredBy.push_back(Call);
    }
  }
}

void FunctionModel::computeObligations() {
  for (auto &C : Callables) {
    if (C->OwnHandler) {
      C->Obligation = C->OwnHandler;
      continue;
    }
    if (!C->Lambda)
      continue;
    for (const Callable *P = C->Parent; P; P = P->Parent)
      if (P->OwnHandler && capturesCarrier(P->OwnHandler, C->Lambda)) {
        C->Obligation = P->OwnHandler;
        break;
      }
  }
}

const Callable *FunctionModel::callableOf(const LambdaExpr *L) const {
  auto It = ByLambda.find(L);
  return It == ByLambda.end() ? nullptr : It->second;
}

const Callable *FunctionModel::callableOfDecl(const FunctionDecl *FD) const {
  auto It = ByDecl.find(FD);
  return It == ByDecl.end() ? nullptr : It->second;
}

const Callable *FunctionModel::lambdaOfVar(const VarDecl *V) const {
  auto It = ByVar.find(V);
  return It == ByVar.end() ? nullptr : It->second;
}

const Callable *FunctionModel::callableContaining(const Stmt *S) const {
  auto It = StmtOwner.find(S);
  return It == StmtOwner.end() ? nullptr : It->second;
}

// ---- Carriers ---------------------------------------------------------------------

static bool mentionsAny(const Stmt *S, const llvm::DenseSet<const VarDecl *> &Set) {
  if (!S)
    return false;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
    return Set.count(dyn_cast<VarDecl>(DRE->getDecl())) != 0;
  for (const Stmt *Child : S->children())
    if (mentionsAny(Child, Set))
      return true;
  return false;
}

static bool carrierExprIn(const llvm::DenseSet<const VarDecl *> &Set, const Expr *E) {
  E = stripArgument(E);
  if (!E)
    return false;
  E = E->IgnoreParenImpCasts();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    return Set.count(dyn_cast<VarDecl>(DRE->getDecl())) != 0;
  if (const auto *L = dyn_cast<LambdaExpr>(E)) {
    for (const LambdaCapture &Cap : L->captures())
      if (Cap.capturesVariable())
        if (const auto *V = dyn_cast<VarDecl>(Cap.getCapturedVar()); V && Set.count(V))
          return true;
    // In a template (a generic lambda's body) captures are only known once
    // instantiated: look for the uses themselves.
    return mentionsAny(L->getBody(), Set);
  }
  if (const auto *IL = dyn_cast<InitListExpr>(E)) {
    for (const Expr *I : IL->inits())
      if (carrierExprIn(Set, I))
        return true;
    return false;
  }
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
    for (const Expr *A : CE->arguments())
      if (carrierExprIn(Set, A))
        return true;
    return false;
  }
  if (const auto *CO = dyn_cast<ConditionalOperator>(E))
    return carrierExprIn(Set, CO->getTrueExpr()) || carrierExprIn(Set, CO->getFalseExpr());
  return false;
}

void FunctionModel::computeCarriers(const ParmVarDecl *Handler) const {
  if (Carriers.count(Handler))
    return;
  llvm::DenseSet<const VarDecl *> Set;
  Set.insert(Handler);
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (auto &[V, Init] : Bindings)
      if (!Set.count(V) && isCallableType(V->getType()) && carrierExprIn(Set, Init))
        Changed |= Set.insert(V).second;
    // step(step, 0): the lambda's parameters bound to carriers carry the handler.
    for (const CallExpr *Call : LocalLambdaCalls) {
      CallArgs A = callArguments(Call);
      const VarDecl *CalleeVar = referencedVar(stripArgument(A.Object ? A.Object : Call->getCallee()));
      const Callable *LC = lambdaOfVar(CalleeVar);
      if (!LC || !Set.count(CalleeVar))
        continue;
      for (unsigned I = 0; I < A.Args.size() && I < LC->Decl->getNumParams(); ++I)
        if (carrierExprIn(Set, A.Args[I]))
          Changed |= Set.insert(LC->Decl->getParamDecl(I)).second;
    }
  }
  Carriers[Handler] = std::move(Set);
}

bool FunctionModel::isCarrier(const ParmVarDecl *Handler, const VarDecl *V) const {
  if (!Handler || !V)
    return false;
  computeCarriers(Handler);
  return Carriers[Handler].count(V) != 0;
}

bool FunctionModel::isCarrierExpr(const ParmVarDecl *Handler, const Expr *E) const {
  if (!Handler || !E)
    return false;
  computeCarriers(Handler);
  return carrierExprIn(Carriers[Handler], E);
}

bool FunctionModel::capturesCarrier(const ParmVarDecl *Handler, const LambdaExpr *L) const {
  return isCarrierExpr(Handler, L);
}

// ---- Events -------------------------------------------------------------------------

std::optional<Event> FunctionModel::eventOf(const ParmVarDecl *H, const Stmt *S) const {
  if (!H || !S)
    return std::nullopt;
  auto isLocalVar = [&](const Expr *E) {
    const VarDecl *V = referencedVar(E);
    return V && isWithin(V->getDeclContext(), root().Decl);
  };
  auto passedLambda = [&](const Expr *Arg) -> const Callable * {
    const Expr *E = stripArgument(Arg);
    E = E ? E->IgnoreParenImpCasts() : nullptr;
    if (const auto *L = dyn_cast_or_null<LambdaExpr>(E))
      return callableOf(L);
    return lambdaOfVar(referencedVar(E));
  };

  if (const auto *C = dyn_cast<CallExpr>(S)) {
    if (stripArgument(C) != C)
      return std::nullopt; // std::move(done): the call it is an argument of decides
    CallArgs A = callArguments(C);
    if (A.IsOperator) {
      // handler_slot = done: stored where this path cannot see it again.
      const auto *Op = cast<CXXOperatorCallExpr>(C);
      if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 && !isLocalVar(Op->getArg(0)) &&
          isCarrierExpr(H, Op->getArg(1))) {
        Event E;
        E.K = Event::Kind::Store;
        E.Site = S;
        E.Target = passedLambda(Op->getArg(1));
        return E;
      }
      return std::nullopt;
    }
    const Expr *CalleeExpr = stripArgument(A.Object ? A.Object : C->getCallee());
    CalleeExpr = CalleeExpr ? CalleeExpr->IgnoreParenImpCasts() : nullptr;
    if (const VarDecl *V = referencedVar(CalleeExpr); V && isCarrier(H, V)) {
      Event E;
      E.Site = S;
      E.Via = V;
      if ((E.Target = lambdaOfVar(V))) {
        E.K = Event::Kind::Invoke;
        E.FirstArg = A.Args.empty() ? nullptr : A.Args.front();
      } else {
        E.K = Event::Kind::Call;
        E.FirstArg = A.Args.empty() ? nullptr : A.Args.front();
      }
      return E;
    }
    if (const auto *L = dyn_cast_or_null<LambdaExpr>(CalleeExpr); L && capturesCarrier(H, L)) {
      Event E;
      E.K = Event::Kind::Invoke;
      E.Site = S;
      E.Target = callableOf(L);
      E.FirstArg = A.Args.empty() ? nullptr : A.Args.front();
      return E;
    }
    for (unsigned I = 0; I < A.Args.size(); ++I)
      if (isCarrierExpr(H, A.Args[I])) {
        Event E;
        E.K = Event::Kind::PassOn;
        E.Site = S;
        E.Via = referencedVar(stripArgument(A.Args[I]));
        E.Target = passedLambda(A.Args[I]);
        E.Callee = A.Callee ? A.Callee : onlyCandidate(C);
        E.ArgIndex = A.FirstParam + I;
        return E;
      }
    return std::nullopt;
  }

  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls())
      if (const auto *V = dyn_cast<VarDecl>(D))
        if (const Expr *Init = V->getInit(); Init && !isCallableType(V->getType()) && isCarrierExpr(H, Init)) {
          Event E;
          E.K = Event::Kind::Store;
          E.Site = S;
          return E;
        }
    return std::nullopt;
  }

  if (const auto *R = dyn_cast<ReturnStmt>(S)) {
    if (const Expr *V = R->getRetValue(); V && isCarrierExpr(H, V)) {
      Event E;
      E.K = Event::Kind::Store;
      E.Site = S;
      E.Target = passedLambda(V);
      return E;
    }
    return std::nullopt;
  }

  if (const auto *B = dyn_cast<BinaryOperator>(S)) {
    if (B->getOpcode() == BO_Assign && !isLocalVar(B->getLHS()) && isCarrierExpr(H, B->getRHS())) {
      Event E;
      E.K = Event::Kind::Store;
      E.Site = S;
      return E;
    }
  }
  return std::nullopt;
}

} // namespace check
} // namespace asyncshift
