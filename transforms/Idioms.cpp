//===- Idioms.cpp - Hand-written fan-out and loop idioms ------------------===//

#include "Idioms.h"
#include "AsyncModel.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace asyncshift {
namespace {

const Expr *strip(const Expr *E) {
  if (!E)
    return nullptr;
  E = E->IgnoreImplicit()->IgnoreParenImpCasts();
  if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(E))
    E = Cleanups->getSubExpr()->IgnoreParenImpCasts();
  return E;
}

const VarDecl *varOf(const Expr *E) {
  if (const auto *DRE = dyn_cast_or_null<DeclRefExpr>(strip(E)))
    return dyn_cast<VarDecl>(DRE->getDecl());
  return nullptr;
}

/// `*p` for a raw or smart pointer variable p.
const VarDecl *derefVar(const Expr *E) {
  E = strip(stripArgument(E));
  if (const auto *U = dyn_cast_or_null<UnaryOperator>(E); U && U->getOpcode() == UO_Deref)
    return varOf(U->getSubExpr());
  if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(E); Op && Op->getOperator() == OO_Star && Op->getNumArgs() == 1)
    return varOf(Op->getArg(0));
  return nullptr;
}

/// The statements of \p S (a compound statement, or one statement).
std::vector<const Stmt *> statements(const Stmt *S) {
  std::vector<const Stmt *> Out;
  if (const auto *CS = dyn_cast_or_null<CompoundStmt>(S))
    Out.assign(CS->body_begin(), CS->body_end());
  else if (S)
    Out.push_back(S);
  return Out;
}

/// `return;` alone.
bool isPlainReturn(const Stmt *S) {
  auto Body = statements(S);
  return Body.size() == 1 && isa<ReturnStmt>(Body[0]) && !cast<ReturnStmt>(Body[0])->getRetValue();
}

/// A call of \p Handler, written as `done(...)` or `return done(...)`.
const Expr *handlerCall(const Stmt *S, const VarDecl *Handler) {
  const Expr *E = nullptr;
  if (const auto *R = dyn_cast<ReturnStmt>(S))
    E = R->getRetValue();
  else
    E = dyn_cast<Expr>(S);
  if (!E)
    return nullptr;
  const auto *C = dyn_cast_or_null<CallExpr>(strip(E));
  if (!C)
    return nullptr;
  CallArgs A = callArguments(C);
  if (A.Object && varOf(A.Object) == Handler)
    return C;
  return nullptr;
}

/// `std::make_shared<...>(args)`: its arguments.
const CallExpr *makeShared(const Expr *Init) {
  const auto *C = dyn_cast_or_null<CallExpr>(strip(Init));
  if (!C || !C->getDirectCallee())
    return nullptr;
  const FunctionDecl *FD = C->getDirectCallee();
  if (!FD->isInStdNamespace() || !FD->getDeclName().isIdentifier() || FD->getName() != "make_shared")
    return nullptr;
  return C;
}

/// Counts the references to \p V in \p S.
unsigned countRefs(const Stmt *S, const VarDecl *V) {
  class Counter : public RecursiveASTVisitor<Counter> {
  public:
    explicit Counter(const VarDecl *V) : V(V) {}
    bool VisitDeclRefExpr(DeclRefExpr *E) {
      N += E->getDecl() == V;
      return true;
    }
    const VarDecl *V;
    unsigned N = 0;
  } C(V);
  C.TraverseStmt(const_cast<Stmt *>(S));
  return C.N;
}

bool isZero(const Expr *E) {
  if (const auto *L = dyn_cast_or_null<IntegerLiteral>(strip(E)))
    return L->getValue() == 0;
  return false;
}

} // namespace

bool sameTokens(const Expr *A, const Expr *B, const ASTContext &Ctx) {
  auto TextOf = [&](const Expr *E) {
    StringRef T = Lexer::getSourceText(CharSourceRange::getTokenRange(E->getSourceRange()), Ctx.getSourceManager(),
                                       Ctx.getLangOpts());
    std::string Out;
    for (char C : T)
      if (!isspace(static_cast<unsigned char>(C)))
        Out += C;
    return Out;
  };
  std::string TA = TextOf(A), TB = TextOf(B);
  return !TA.empty() && TA == TB;
}

std::optional<CounterLoopMatch> matchCounterLoop(const CompoundStmt *Body, unsigned At, const VarDecl *Handler,
                                                 ASTContext &Ctx, std::string &WhyNot) {
  const Stmt *const *Stmts = Body->body_begin();
  const auto *For = dyn_cast<ForStmt>(Stmts[At]);
  if (!For)
    return std::nullopt;
  CounterLoopMatch M;
  M.Loop = For;

  // for (T i = 0; i < n; ++i)
  const auto *Init = dyn_cast_or_null<DeclStmt>(For->getInit());
  if (!Init || !Init->isSingleDecl())
    return std::nullopt;
  M.Index = dyn_cast<VarDecl>(Init->getSingleDecl());
  if (!M.Index || !M.Index->getType()->isIntegerType() || !isZero(M.Index->getInit()))
    return std::nullopt;
  const auto *Cond = dyn_cast_or_null<BinaryOperator>(strip(For->getCond()));
  if (!Cond || Cond->getOpcode() != BO_LT || varOf(Cond->getLHS()) != M.Index)
    return std::nullopt;
  M.Count = Cond->getRHS()->IgnoreImpCasts();
  const Expr *Inc = strip(For->getInc());
  bool Increments = false;
  if (const auto *U = dyn_cast_or_null<UnaryOperator>(Inc))
    Increments = U->isIncrementOp() && varOf(U->getSubExpr()) == M.Index;
  if (!Increments)
    return std::nullopt;

  // One async call whose continuation is the guard/counter shape.
  auto LoopBody = statements(For->getBody());
  if (LoopBody.size() != 1 || !isa<Expr>(LoopBody[0]))
    return std::nullopt;
  M.Call = dyn_cast<CallExpr>(strip(cast<Expr>(LoopBody[0])));
  if (!M.Call)
    return std::nullopt;
  CallArgs A = callArguments(M.Call);
  if (A.Args.empty())
    return std::nullopt;
  M.Cont = dyn_cast<LambdaExpr>(stripArgument(A.Args.back()));
  if (!M.Cont || !isContinuationShaped(M.Cont))
    return std::nullopt;
  // From here on the loop is meant as the idiom: say why when it is not.
  auto Miss = [&](const std::string &Why) -> std::optional<CounterLoopMatch> {
    WhyNot = Why;
    return std::nullopt;
  };
  const CXXMethodDecl *Op = M.Cont->getCallOperator();
  const ParmVarDecl *Err = Op->getParamDecl(0);
  const ParmVarDecl *Value = Op->getNumParams() == 2 ? Op->getParamDecl(1) : nullptr;
  auto Body2 = statements(M.Cont->getBody());
  if (Body2.size() < 3)
    return Miss("the continuation is not `if (*failed) return; if (err) {...} ... if (--*pending == 0) ...`");

  // if (*failed) return;
  const auto *Guard = dyn_cast<IfStmt>(Body2[0]);
  if (!Guard || Guard->getElse() || !isPlainReturn(Guard->getThen()) || !(M.Failed = derefVar(Guard->getCond())))
    return Miss("the continuation does not begin with `if (*failed) return;`");

  // if (err) { *failed = true; cleanup...; return done(err); }
  M.ErrorCheck = dyn_cast<IfStmt>(Body2[1]);
  if (!M.ErrorCheck || M.ErrorCheck->getElse())
    return Miss("the error check `if (err) { *failed = true; ...; return done(err); }` does not follow the guard");
  const Expr *Tested = strip(M.ErrorCheck->getCond());
  if (const auto *Conv = dyn_cast_or_null<CXXMemberCallExpr>(Tested))
    Tested = Conv->getImplicitObjectArgument();
  if (varOf(Tested) != Err)
    return Miss("the error check does not test the continuation's error");
  auto ErrorBody = statements(M.ErrorCheck->getThen());
  if (ErrorBody.size() < 2)
    return Miss("the error branch does not set `*failed = true` and call the handler");
  const auto *Set = dyn_cast_or_null<BinaryOperator>(strip(dyn_cast<Expr>(ErrorBody[0])));
  if (!Set || Set->getOpcode() != BO_Assign || derefVar(Set->getLHS()) != M.Failed ||
      !isa<CXXBoolLiteralExpr>(strip(Set->getRHS())) || !cast<CXXBoolLiteralExpr>(strip(Set->getRHS()))->getValue())
    return Miss("the error branch does not begin with `*failed = true;`");
  const Stmt *Last = ErrorBody.back();
  unsigned CleanupEnd = static_cast<unsigned>(ErrorBody.size()) - 1;
  if (isa<ReturnStmt>(Last) && !cast<ReturnStmt>(Last)->getRetValue() && ErrorBody.size() >= 3) {
    Last = ErrorBody[ErrorBody.size() - 2];
    --CleanupEnd;
  }
  M.ErrorCompletion = handlerCall(Last, Handler);
  if (!M.ErrorCompletion)
    return Miss("the error branch does not end by calling the handler with the error");
  for (unsigned I = 1; I < CleanupEnd; ++I)
    M.Cleanup.push_back(ErrorBody[I]);

  // (*results)[i] = v;   (with values)
  unsigned Next = 2;
  if (Value && Body2.size() >= 4) {
    // A scalar value is stored with the built-in `=`, a class-type one
    // (a struct, a std::string) with its operator=.
    const Expr *StoreLhs = nullptr, *StoreRhs = nullptr;
    const Expr *StoreExpr = strip(dyn_cast<Expr>(Body2[2]));
    if (const auto *B = dyn_cast_or_null<BinaryOperator>(StoreExpr); B && B->getOpcode() == BO_Assign) {
      StoreLhs = B->getLHS();
      StoreRhs = B->getRHS();
    } else if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(StoreExpr);
               Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2) {
      StoreLhs = Op->getArg(0);
      StoreRhs = Op->getArg(1);
    }
    if (StoreLhs) {
      const auto *Sub = dyn_cast<CXXOperatorCallExpr>(strip(StoreLhs));
      if (!Sub || Sub->getOperator() != OO_Subscript || !(M.Results = derefVar(Sub->getArg(0))) ||
          varOf(Sub->getArg(1)) != M.Index || varOf(stripArgument(StoreRhs)) != Value)
        return Miss("the value is not stored as `(*results)[i] = v;`");
      Next = 3;
    }
  }

  // if (--*pending == 0) { success...; done(...); }
  if (Next + 1 < Body2.size())
    return Miss(std::string("the continuation has a statement between its error check and `if (--*pending == 0) ...` "
                            "that is not ") +
                (Value ? "`(*results)[i] = v;`" : "allowed there") +
                " (it would run once per branch, also after another failed)");
  if (Next + 1 != Body2.size())
    return Miss("the continuation does not end with `if (--*pending == 0) ...`");
  const auto *Count = dyn_cast<IfStmt>(Body2[Next]);
  const auto *Eq = Count ? dyn_cast_or_null<BinaryOperator>(strip(Count->getCond())) : nullptr;
  const auto *Dec = Eq ? dyn_cast_or_null<UnaryOperator>(strip(Eq->getLHS())) : nullptr;
  if (!Count || Count->getElse() || !Eq || Eq->getOpcode() != BO_EQ || !isZero(Eq->getRHS()) || !Dec ||
      Dec->getOpcode() != UO_PreDec || !(M.Pending = derefVar(Dec->getSubExpr())))
    return Miss("the continuation does not end with `if (--*pending == 0) ...`");
  auto SuccessBody = statements(Count->getThen());
  if (SuccessBody.empty() || !(M.SuccessCompletion = handlerCall(SuccessBody.back(), Handler)))
    return Miss("the last branch does not end by calling the handler");
  // `*failed = true;` beside the last completion changes nothing (every
  // branch has run by then): it is dropped with the flag.
  unsigned FlagSetsOnSuccess = 0;
  for (auto It = SuccessBody.begin(); It + 1 != SuccessBody.end(); ++It) {
    const auto *SetAgain = dyn_cast_or_null<BinaryOperator>(strip(dyn_cast<Expr>(*It)));
    if (SetAgain && SetAgain->getOpcode() == BO_Assign && derefVar(SetAgain->getLHS()) == M.Failed &&
        isa<CXXBoolLiteralExpr>(strip(SetAgain->getRHS())) &&
        cast<CXXBoolLiteralExpr>(strip(SetAgain->getRHS()))->getValue()) {
      ++FlagSetsOnSuccess;
      continue;
    }
    M.Success.push_back(*It);
  }

  // The declarations: pending = make_shared(n), failed = make_shared(false), results = make_shared(n).
  bool ZeroGuard = false;
  if (const auto *Literal = dyn_cast<IntegerLiteral>(strip(M.Count)); Literal && Literal->getValue() != 0)
    ZeroGuard = true;
  for (unsigned I = 0; I < At; ++I) {
    const Stmt *S = Stmts[I];
    if (const auto *DS = dyn_cast<DeclStmt>(S); DS && DS->isSingleDecl()) {
      const auto *VD = dyn_cast<VarDecl>(DS->getSingleDecl());
      if (!VD || (VD != M.Pending && VD != M.Failed && VD != M.Results))
        continue;
      const CallExpr *Make = makeShared(VD->getInit());
      if (!Make || Make->getNumArgs() != 1)
        return Miss("the counter, flag and results must be made with std::make_shared");
      if (VD == M.Failed) {
        const auto *False = dyn_cast<CXXBoolLiteralExpr>(strip(Make->getArg(0)));
        if (!False || False->getValue())
          return Miss("the failure flag must start as std::make_shared<bool>(false)");
      } else if (!sameTokens(Make->getArg(0), M.Count, Ctx)) {
        return Miss("the counter (and results) must be made with the loop's bound");
      }
      M.IdiomDecls.push_back(DS);
      continue;
    }
    // if (n == 0) return done(...);
    if (const auto *If = dyn_cast<IfStmt>(S)) {
      const auto *ZeroTest = dyn_cast_or_null<BinaryOperator>(strip(If->getCond()));
      auto Then = statements(If->getThen());
      bool TestsZero = ZeroTest && ZeroTest->getOpcode() == BO_EQ && isZero(ZeroTest->getRHS()) &&
                       sameTokens(ZeroTest->getLHS()->IgnoreImpCasts(), M.Count, Ctx);
      // `if (keys.empty())` before `i < keys.size()`
      const auto *Empty = dyn_cast_or_null<CXXMemberCallExpr>(strip(If->getCond()));
      const auto *Size = dyn_cast_or_null<CXXMemberCallExpr>(strip(M.Count));
      if (Empty && Size && Empty->getMethodDecl() && Size->getMethodDecl() &&
          Empty->getMethodDecl()->getName() == "empty" && Size->getMethodDecl()->getName() == "size" &&
          Empty->getNumArgs() == 0 && Size->getNumArgs() == 0 &&
          sameTokens(Empty->getImplicitObjectArgument(), Size->getImplicitObjectArgument(), Ctx))
        TestsZero = true;
      if (TestsZero && !Then.empty() && isa<ReturnStmt>(Then.back()))
        ZeroGuard = true;
    }
  }
  if (M.IdiomDecls.size() != (M.Results ? 3u : 2u))
    return Miss("the counter, flag (and results) must be declared in the same block as the loop");
  // The idiom's variables are used nowhere else.
  auto UsedOutside = [&](const VarDecl *V, const char *What, const char *Allowed) {
    return Miss(std::string("the ") + What + " '" + V->getNameAsString() + "' is used outside the idiom (" + Allowed +
                ")");
  };
  if (countRefs(Body, M.Pending) != 1)
    return UsedOutside(M.Pending, "counter", "only `if (--*pending == 0)` may use it");
  if (countRefs(Body, M.Failed) != 2 + FlagSetsOnSuccess)
    return UsedOutside(M.Failed, "flag",
                       "only the guard, the error branch's `*failed = true;` and one beside the last completion may "
                       "use it");
  if (M.Results && countRefs(Body, M.Results) != 2)
    return UsedOutside(M.Results, "results", "only `(*results)[i] = v;` and the last completion may use them");
  if (M.Results) {
    const auto *Done = cast<CallExpr>(strip(M.SuccessCompletion));
    CallArgs DA = callArguments(Done);
    if (DA.Args.size() != 2 || derefVar(DA.Args[1]) != M.Results)
      return Miss("the handler must receive `*results` when every branch has succeeded");
  }
  if (!ZeroGuard)
    return Miss("with a bound of 0 the counter idiom never completes; add `if (" +
                Lexer::getSourceText(CharSourceRange::getTokenRange(M.Count->getSourceRange()), Ctx.getSourceManager(),
                                     Ctx.getLangOpts())
                    .str() +
                " == 0) return ...;` before it (testing the loop's bound as written)");
  return M;
}

std::optional<std::vector<const Expr *>> recursionArgs(const CallExpr *C, const ParmVarDecl *Self) {
  const Expr *Callee = nullptr;
  unsigned First = 0;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(C)) {
    if (Op->getOperator() != OO_Call)
      return std::nullopt;
    Callee = Op->getArg(0);
    First = 1;
  } else {
    Callee = C->getCallee();
  }
  if (varOf(Callee) != Self || C->getNumArgs() < First + 1 || varOf(C->getArg(First)) != Self)
    return std::nullopt;
  std::vector<const Expr *> Args;
  for (unsigned I = First + 1; I < C->getNumArgs(); ++I)
    Args.push_back(C->getArg(I));
  return Args;
}

std::optional<RecursiveLoopMatch> matchRecursiveLoop(const CompoundStmt *Body, unsigned At, std::string &WhyNot) {
  const Stmt *const *Stmts = Body->body_begin();
  const auto *DS = dyn_cast<DeclStmt>(Stmts[At]);
  if (!DS || !DS->isSingleDecl())
    return std::nullopt;
  RecursiveLoopMatch M;
  M.Decl = DS;
  M.Step = dyn_cast<VarDecl>(DS->getSingleDecl());
  if (!M.Step || !M.Step->getInit())
    return std::nullopt;
  M.Lambda = dyn_cast<LambdaExpr>(stripArgument(M.Step->getInit()));
  if (!M.Lambda || !M.Lambda->isGenericLambda())
    return std::nullopt;
  const CXXMethodDecl *Op = M.Lambda->getCallOperator();
  if (Op->getNumParams() < 1)
    return std::nullopt;
  const ParmVarDecl *Self = Op->getParamDecl(0);
  QualType SelfType = Self->getType();
  if (!SelfType->isReferenceType() || !SelfType.getNonReferenceType()->getAs<TemplateTypeParmType>())
    return std::nullopt;
  M.Self = Self;
  for (unsigned I = 1; I < Op->getNumParams(); ++I)
    if (Op->getParamDecl(I)->getType()->isDependentType()) {
      WhyNot = "the loop's parameters after `self` must have written types (not auto)";
      return std::nullopt;
    }
  // The one entry: step(step, init...).
  unsigned Entries = 0;
  for (unsigned I = At + 1; I < Body->size(); ++I) {
    const Stmt *S = Stmts[I];
    const Expr *E = isa<ReturnStmt>(S) ? cast<ReturnStmt>(S)->getRetValue() : dyn_cast<Expr>(S);
    const auto *C = E ? dyn_cast<CXXOperatorCallExpr>(strip(E)) : nullptr;
    if (C && C->getOperator() == OO_Call && varOf(C->getArg(0)) == M.Step && C->getNumArgs() >= 2 &&
        varOf(C->getArg(1)) == M.Step) {
      M.Entry = S;
      M.EntryCall = C;
      M.EntryIndex = I;
      ++Entries;
    }
  }
  if (Entries != 1) {
    WhyNot = Entries ? "a recursive-lambda loop must be started exactly once, as `step(step, ...)`"
                     : "a recursive-lambda loop must be started in the block that declares it, as `step(step, ...)`";
    return std::nullopt;
  }
  if (countRefs(Body, M.Step) != 2) {
    WhyNot = "the loop's lambda is used other than by starting it once";
    return std::nullopt;
  }
  return M;
}

} // namespace asyncshift
