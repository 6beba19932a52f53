//===- IRBuilder.cpp - From the Clang AST to the continuation IR ----------===//
//
// One pass over the body of an async function. Every statement is one of:
// a completion of the handler, a jump to a named continuation, an async call,
// an `if` around any of those, the definition of a named continuation, or a
// statement that never reaches the handler (kept verbatim as Sync). Anything
// else that reaches the handler is refused, with the construct named.
//
//===----------------------------------------------------------------------===//

#include "IRBuilder.h"
#include "AsyncModel.h"
#include "Idioms.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "clang/Basic/CharInfo.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <algorithm>

using namespace clang;

namespace asyncshift {
namespace {

bool isWithin(const DeclContext *DC, const FunctionDecl *FD) {
  for (; DC; DC = DC->getParent())
    if (DC == FD)
      return true;
  return false;
}

/// Does \p T (canonical) involve a class or enum declared inside \p FD: a
/// type no declaration outside the step that declares it can name?
static bool usesLocalTag(QualType T, const FunctionDecl *FD, unsigned Depth = 0) {
  if (T.isNull() || Depth > 8)
    return false;
  T = T.getCanonicalType().getNonReferenceType();
  if (QualType P = T->getPointeeType(); !P.isNull())
    return usesLocalTag(P, FD, Depth + 1);
  if (const ArrayType *A = T->getAsArrayTypeUnsafe())
    return usesLocalTag(A->getElementType(), FD, Depth + 1);
  const TagDecl *TD = T->getAsTagDecl();
  if (!TD)
    return false;
  if (isWithin(TD->getDeclContext(), FD))
    return true;
  if (const auto *CTS = dyn_cast<ClassTemplateSpecializationDecl>(TD))
    for (const TemplateArgument &A : CTS->getTemplateArgs().asArray())
      if (A.getKind() == TemplateArgument::Type && usesLocalTag(A.getAsType(), FD, Depth + 1))
        return true;
  return false;
}

/// Does \p T's spelling name a typedef or alias declared inside \p FD?
static bool namesLocalTypedef(QualType T, const FunctionDecl *FD) {
  class Finder : public RecursiveASTVisitor<Finder> {
  public:
    explicit Finder(const FunctionDecl *FD) : FD(FD) {}
    bool VisitTypedefType(TypedefType *T) {
      Found |= isWithin(T->getDecl()->getDeclContext(), FD);
      return !Found;
    }
    bool VisitUsingType(UsingType *T) {
      Found |= isWithin(T->getFoundDecl()->getDeclContext(), FD);
      return !Found;
    }
    const FunctionDecl *FD;
    bool Found = false;
  } F(FD);
  F.TraverseType(T);
  return F.Found;
}

/// Does structured binding \p BD name what another object holds (`auto &[a,
/// b] = x;`, or a tuple of references from std::tie)?
static bool bindsReference(const BindingDecl *BD) {
  const ValueDecl *DD = BD->getDecomposedDecl();
  return BD->getType()->isReferenceType() || (DD && DD->getType()->isReferenceType());
}

class Builder {
public:
  Builder(ASTContext &Ctx, const FunctionDecl *FD, const ConvertedSet &Converted, std::vector<Finding> &Findings)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), LO(Ctx.getLangOpts()), FD(FD), Converted(Converted),
        Findings(Findings) {}

  std::optional<AsyncFunction> run();

  // Used by the visitors below.
  void addRef(SourceLocation L, const ValueDecl *VD);
  void addThisUse(SourceLocation L) {
    if (std::optional<unsigned> Off = offsetOf(L))
      ThisUses.push_back(*Off);
  }
  bool isLocal(const ValueDecl *VD) const { return VD && isWithin(VD->getDeclContext(), FD); }
  /// The handler of the function or of any combinator branch, or a named
  /// continuation: a statement that mentions one is not plain code.
  bool isAsyncName(const VarDecl *VD) const { return VD && AsyncNames.count(VD); }

private:
  // Source text.
  std::optional<std::pair<unsigned, unsigned>> offsets(SourceRange R) const;
  std::optional<unsigned> offsetOf(SourceLocation L) const;
  std::string commentsBetween(unsigned Begin, unsigned End, std::string &Trailing) const;
  Text textAt(unsigned Begin, unsigned End) const;
  std::optional<Text> textOf(SourceRange R) const;
  std::optional<Text> textOf(const Stmt *S) const { return textOf(S->getSourceRange()); }
  std::string writtenType(const ValueDecl *D) const;

  // Findings.
  void refuse(const char *Id, SourceLocation L, SourceRange R, std::string Message);
  void refuse(const char *Id, const Stmt *S, std::string Message) {
    refuse(Id, S->getBeginLoc(), S->getSourceRange(), std::move(Message));
  }

  VarId varId(const ValueDecl *VD);
  /// Prints an operation's (or the function's) value type, noting in
  /// F.NoDefaultValueType the first that cannot be default-constructed.
  std::string valueType(QualType T);
  VarId syntheticVar(std::string Name, std::string Type, bool IsError);

  // Building.
  bool mentionsAsync(const Stmt *S) const;
  bool onlyCompletesHandler(const Stmt *S);
  bool checkCaptures(const LambdaExpr *L, StringRef What, StringRef WhyNotByRef);
  bool refuseOuterReferences(const LambdaExpr *L, StringRef What);
  void refuseGenericContinuation(const LambdaExpr *L);
  void buildBlock(const Stmt *S, Block &Out);
  void buildStmt(const Stmt *S, Block &Out);
  void buildValidationLoop(const Stmt *S, Block &Out);
  void buildCatch(const CXXTryStmt *S, Block &Out);
  void buildKeptStatement(const Stmt *S, const Stmt *Body, std::unique_ptr<IfNode> N, Block &Out);
  bool buildCall(const Expr *E, bool IsReturn, Block &Out);
  bool buildContinuation(const LambdaExpr *L, Continuation &C);
  bool buildCombinator(const LambdaExpr *L, Combinator::Kind K, const Expr *Count, AsyncCallNode &N);
  bool fillCallTexts(const CallExpr *C, const Expr *HandlerArg, AsyncCallNode &N);
  bool addSplices(Text &T, unsigned Begin, const std::vector<const CallExpr *> &Calls);
  void buildCounterLoop(const CounterLoopMatch &M, Block &Out);
  void buildRecursiveLoop(const RecursiveLoopMatch &M, Block &Out);
  bool buildRecur(const CallExpr *C, bool IsReturn, Block &Out);
  ErrorArg errorArg(const Expr *E);
  void buildSync(const Stmt *S, Block &Out);
  void describeDecl(const VarDecl *VD, SyncNode &N);
  std::vector<const CallExpr *> scanSync(const Stmt *S);
  void checkEscapes();
  bool isCallee(const DeclRefExpr *E) const;
  void refuseEscape(const DeclRefExpr *E);
  bool inGenericLambda(const Stmt *E) const;
  void checkJoinCaptures();
  void markCopiesThatChange();
  void collectJoinOuterNames();

  ASTContext &Ctx;
  SourceManager &SM;
  const LangOptions &LO;
  const FunctionDecl *FD;
  const ParmVarDecl *Handler = nullptr;
  const ConvertedSet &Converted;
  std::vector<Finding> &Findings;
  FileID MainFID;
  StringRef Buffer;

  AsyncFunction F;
  llvm::DenseMap<const ValueDecl *, VarId> VarIds; ///< variables and structured bindings
  std::vector<Text::Ref> Refs; ///< by file offset
  std::vector<unsigned> ThisUses; ///< file offsets of `this`, written or implicit; sorted
  llvm::DenseSet<unsigned> RefOffsets;
  llvm::DenseMap<const VarDecl *, unsigned> ContIds;
  llvm::DenseMap<const VarDecl *, const DeclStmt *> ContDecls;
  llvm::DenseSet<const DeclRefExpr *> Accounted;
  llvm::DenseSet<const VarDecl *> AsyncNames;
  /// The recursive-lambda loops being built, innermost last: (self, loop id).
  std::vector<std::pair<const ParmVarDecl *, unsigned>> Loops;
  unsigned NextLoop = 0;
  bool Failed = false;
};

/// The branch lambda of asyncshift::parallel(n, branch, done) or
/// each_series(n, branch, done), or null; \p K (if given) says which.
static const LambdaExpr *combinatorBranch(const CallExpr *C, Combinator::Kind *K = nullptr) {
  const FunctionDecl *Callee = C->getDirectCallee();
  if (!Callee || C->getNumArgs() != 3)
    return nullptr;
  std::string Name = Callee->getQualifiedNameAsString();
  if (Name != "asyncshift::parallel" && Name != "asyncshift::each_series")
    return nullptr;
  if (K)
    *K = Name == "asyncshift::parallel" ? Combinator::Kind::Parallel : Combinator::Kind::EachSeries;
  return dyn_cast<LambdaExpr>(stripArgument(C->getArg(1)));
}

/// The call operator a branch is built from, or null when the lambda is not
/// of the documented shape `(std::size_t i, callback<T> cb)` (the call then
/// stays a plain leaf call). For a generic lambda (`[=](std::size_t i, auto
/// cb)`) it is the one instantiation, whose handler has the type the
/// combinator passes (a class derived from callback<T>).
static const CXXMethodDecl *branchOperator(const LambdaExpr *L) {
  const CXXMethodDecl *Op = L->isGenericLambda() ? singleInstantiation(L) : L->getCallOperator();
  if (!Op || Op->getNumParams() != 2 || !asCallbackType(Op->getParamDecl(1)->getType()))
    return nullptr;
  return Op;
}

/// Finds every reference to a local variable: uses, declarations, explicit captures.
class RefCollector : public RecursiveASTVisitor<RefCollector> {
public:
  explicit RefCollector(Builder &B) : B(B) {}
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (isa<VarDecl, BindingDecl>(E->getDecl()) && B.isLocal(E->getDecl()))
      B.addRef(E->getLocation(), E->getDecl());
    return true;
  }
  bool VisitCXXThisExpr(CXXThisExpr *E) {
    B.addThisUse(E->getLocation());
    return true;
  }
  bool VisitVarDecl(VarDecl *VD) {
    if (B.isLocal(VD) && VD->getIdentifier())
      B.addRef(VD->getLocation(), VD);
    return true;
  }
  bool VisitBindingDecl(BindingDecl *BD) {
    if (B.isLocal(BD))
      B.addRef(BD->getLocation(), BD);
    return true;
  }
  // Visited before its arguments (pre-order), so the branch is known when
  // TraverseLambdaExpr reaches it.
  bool VisitCallExpr(CallExpr *C) {
    if (const LambdaExpr *L = combinatorBranch(C))
      Branches.insert(L);
    return true;
  }
  bool TraverseLambdaExpr(LambdaExpr *L) {
    for (const LambdaCapture &C : L->explicit_captures())
      if (C.capturesVariable())
        if (const auto *VD = dyn_cast<VarDecl>(C.getCapturedVar()))
          if (B.isLocal(VD) && !VD->isInitCapture())
            B.addRef(C.getLocation(), VD);
    // A generic branch of parallel or each_series is built from its one
    // instantiation (buildCombinator): its names must mean the instantiation's
    // declarations, at the same places in the text. Other generic lambdas (the
    // recursive-lambda idiom's) are built from their template.
    if (const CXXMethodDecl *Op = L->isGenericLambda() && Branches.count(L) ? branchOperator(L) : nullptr) {
      for (ParmVarDecl *P : Op->parameters())
        TraverseDecl(P);
      return TraverseStmt(Op->getBody());
    }
    return RecursiveASTVisitor::TraverseLambdaExpr(L);
  }

private:
  Builder &B;
  llvm::SmallPtrSet<const LambdaExpr *, 4> Branches;
};

/// Does a statement reach the handler or a named continuation?
class AsyncMentionFinder : public RecursiveASTVisitor<AsyncMentionFinder> {
public:
  explicit AsyncMentionFinder(const Builder &B) : B(B) {}
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (B.isAsyncName(dyn_cast<VarDecl>(E->getDecl()))) {
      Found = true;
      return false;
    }
    return true;
  }
  bool Found = false;

private:
  const Builder &B;
};

/// Collects references to the handler and named continuations.
class AsyncRefCollector : public RecursiveASTVisitor<AsyncRefCollector> {
public:
  explicit AsyncRefCollector(const Builder &B) : B(B) {}
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (B.isAsyncName(dyn_cast<VarDecl>(E->getDecl())))
      Found.push_back(E);
    return true;
  }
  std::vector<const DeclRefExpr *> Found;

private:
  const Builder &B;
};

/// The first use, inside a lambda's body, of a local reference variable
/// declared outside the lambda that the lambda does not capture: a reference
/// initialized with a constant expression (`const T &r = some_global;`),
/// which Clang does not capture and g++ copies.
class UncapturedReferenceUse : public RecursiveASTVisitor<UncapturedReferenceUse> {
public:
  explicit UncapturedReferenceUse(const LambdaExpr *L) : L(L), CallOp(L->getCallOperator()) {}
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    const auto *V = dyn_cast<VarDecl>(E->getDecl());
    if (!V || isa<ParmVarDecl>(V) || !V->hasLocalStorage() || !V->getType()->isReferenceType() ||
        captureOf(L, V))
      return true;
    const DeclContext *DC = V->getDeclContext();
    if (DC == CallOp || CallOp->Encloses(DC))
      return true;
    Found = E;
    return false;
  }
  const DeclRefExpr *Found = nullptr;

private:
  const LambdaExpr *L;
  const CXXMethodDecl *CallOp;
};

} // namespace

// ---- Source text --------------------------------------------------------------

void Builder::addRef(SourceLocation L, const ValueDecl *VD) {
  std::optional<unsigned> Off = offsetOf(L);
  if (!Off || !VD->getIdentifier())
    return;
  StringRef Name = VD->getName();
  if (Buffer.substr(*Off, Name.size()) != Name)
    return;
  if (!RefOffsets.insert(*Off).second)
    return;
  Refs.push_back({*Off, static_cast<unsigned>(Name.size()), varId(VD)});
}

std::optional<unsigned> Builder::offsetOf(SourceLocation L) const {
  if (L.isInvalid())
    return std::nullopt;
  if (L.isMacroID()) {
    if (!SM.isMacroArgExpansion(L))
      return std::nullopt;
    L = SM.getSpellingLoc(L);
  }
  auto [File, Offset] = SM.getDecomposedLoc(L);
  if (File != MainFID)
    return std::nullopt;
  return Offset;
}

std::optional<std::pair<unsigned, unsigned>> Builder::offsets(SourceRange R) const {
  CharSourceRange CR = Lexer::makeFileCharRange(CharSourceRange::getTokenRange(R), SM, LO);
  if (CR.isInvalid())
    return std::nullopt;
  auto [BF, B] = SM.getDecomposedLoc(CR.getBegin());
  auto [EF, E] = SM.getDecomposedLoc(CR.getEnd());
  if (BF != MainFID || EF != MainFID || E < B)
    return std::nullopt;
  return std::make_pair(B, E);
}

Text Builder::textAt(unsigned Begin, unsigned End) const {
  Text T;
  T.Source = Buffer.slice(Begin, End).str();
  auto First = std::lower_bound(Refs.begin(), Refs.end(), Begin,
                                [](const Text::Ref &R, unsigned Off) { return R.Offset < Off; });
  for (auto It = First; It != Refs.end() && It->Offset + It->Length <= End; ++It)
    T.Refs.push_back({It->Offset - Begin, It->Length, It->Var});
  auto This = std::lower_bound(ThisUses.begin(), ThisUses.end(), Begin);
  T.UsesThis = This != ThisUses.end() && *This < End;
  return T;
}

std::optional<Text> Builder::textOf(SourceRange R) const {
  auto Off = offsets(R);
  if (!Off)
    return std::nullopt;
  return textAt(Off->first, Off->second);
}

/// Whether \p S makes a std::initializer_list (a braced list passed where
/// one is taken, `f({a, b})`, `std::vector<int>{a, b}`) outside any lambda
/// body: its backing array is then a temporary of the expression.
static bool makesInitializerList(const Stmt *S) {
  if (!S)
    return false;
  if (isa<CXXStdInitializerListExpr>(S))
    return true;
  if (const auto *L = dyn_cast<LambdaExpr>(S)) {
    for (const Expr *Init : L->capture_inits())
      if (makesInitializerList(Init))
        return true;
    return false; // the body is a function of its own
  }
  for (const Stmt *Child : S->children())
    if (makesInitializerList(Child))
      return true;
  return false;
}

static Text concat(Text A, const Text &B) {
  unsigned Shift = static_cast<unsigned>(A.Source.size());
  A.Source += B.Source;
  A.UsesThis |= B.UsesThis;
  for (const Text::Ref &R : B.Refs)
    A.Refs.push_back({R.Offset + Shift, R.Length, R.Var});
  for (Splice S : B.Splices) {
    S.Offset += Shift;
    A.Splices.push_back(std::move(S));
  }
  return A;
}

std::string Builder::writtenType(const ValueDecl *D) const {
  QualType Plain = D->getType().getNonReferenceType().getUnqualifiedType();
  // An alias declared inside the function is spelt as what it names.
  const bool LocalAlias = namesLocalTypedef(Plain, FD);
  if (const TypeSourceInfo *TSI = isa<DeclaratorDecl>(D) ? cast<DeclaratorDecl>(D)->getTypeSourceInfo() : nullptr) {
    TypeLoc TL = TSI->getTypeLoc();
    if (auto Ref = TL.getAs<ReferenceTypeLoc>())
      TL = Ref.getPointeeLoc();
    if (auto Qual = TL.getAs<QualifiedTypeLoc>())
      TL = Qual.getUnqualifiedLoc();
    if (auto Off = offsets(TL.getSourceRange())) {
      std::string S = Buffer.slice(Off->first, Off->second).str();
      if (!S.empty() && S.find("auto") == std::string::npos && !isDeducedType(D->getType().getNonReferenceType()) &&
          !LocalAlias)
        return S;
    }
  }
  return printType(Plain, Ctx, /*Deduced=*/LocalAlias);
}

// ---- Findings ----------------------------------------------------------------

void Builder::refuse(const char *Id, SourceLocation L, SourceRange R, std::string Message) {
  Failed = true;
  Finding Fd;
  Fd.Id = Id;
  Fd.Message = std::move(Message);
  Fd.Where.Raw = L.getRawEncoding();
  if (R.isValid()) {
    Fd.RangeBegin.Raw = R.getBegin().getRawEncoding();
    Fd.RangeEnd.Raw = R.getEnd().getRawEncoding();
  }
  Findings.push_back(std::move(Fd));
}

// ---- Variables -----------------------------------------------------------------

/// Can a field of type \p T be default-constructed (`T x{};`), and assigned
/// when \p Assigned?
static bool isAssignableField(QualType T, bool Assigned = true) {
  if (T.isNull() || T->isReferenceType() || (Assigned && T.isConstQualified()) || T->isArrayType())
    return false;
  if (const CXXRecordDecl *RD = T->getAsCXXRecordDecl()) {
    if (!RD->hasDefinition() || RD->isLambda())
      return false;
    RD = RD->getDefinition();
    bool DefaultConstructible = RD->hasDefaultConstructor() || RD->needsImplicitDefaultConstructor() || RD->isAggregate();
    bool Assignable = RD->hasCopyAssignmentWithConstParam() || RD->needsImplicitCopyAssignment() ||
                      RD->hasMoveAssignment() || RD->needsImplicitMoveAssignment();
    return DefaultConstructible && (Assignable || !Assigned);
  }
  return true;
}

/// Can a parameter of type \p T be given an rvalue (by value, `const T&`,
/// `T&&`)?
static bool bindsRvalue(QualType T) {
  return !T->isLValueReferenceType() || T.getNonReferenceType().isConstQualified();
}

/// Is \p T a class that cannot be copied (a deleted or implicitly deleted
/// copy constructor)?
static bool isMoveOnly(QualType T) {
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  if (!RD || !RD->hasDefinition())
    return false;
  RD = RD->getDefinition();
  for (const CXXConstructorDecl *C : RD->ctors())
    if (C->isCopyConstructor())
      return C->isDeleted();
  return RD->defaultedCopyConstructorIsDeleted() || RD->hasUserDeclaredMoveConstructor() ||
         RD->hasUserDeclaredMoveAssignment();
}

VarId Builder::varId(const ValueDecl *VD) {
  auto [It, Inserted] = VarIds.try_emplace(VD, static_cast<VarId>(F.Vars.size()));
  if (Inserted) {
    Var V;
    V.Name = VD->getName().str();
    V.IsError = isErrorType(VD->getType());
    // A structured binding names part of its declaration's hidden object: a
    // copy of it stands for it only when that is not another object's.
    const auto *BD = dyn_cast<BindingDecl>(VD);
    V.IsReference = BD ? bindsReference(BD) : VD->getType()->isReferenceType();
    // A lambda's parameter taken by `const T&` or `T&&` (a continuation's
    // value) names the value its callback passed, which nothing else changes
    // while the continuation runs, and which a `[=]` capture copies: a value.
    if (const auto *P = dyn_cast<ParmVarDecl>(VD)) {
      const auto *M = dyn_cast<CXXMethodDecl>(P->getDeclContext());
      if (M && M->getParent()->isLambda() && bindsRvalue(P->getType()))
        V.IsReference = false;
    }
    V.DeclRaw = VD->getLocation().getRawEncoding();
    QualType Plain = VD->getType().getNonReferenceType();
    const CXXRecordDecl *RD = Plain->getAsCXXRecordDecl();
    // A type declared inside the function cannot be named by the chain
    // styles' state struct (declared before the step that declares it): an
    // alias is spelt as what it names, a local class leaves it unnamed.
    if (!(RD && RD->isLambda()) && !Plain->isUndeducedType() && !usesLocalTag(Plain, FD)) {
      V.StateType = printType(Plain.getUnqualifiedType(), Ctx,
                              isa<BindingDecl>(VD) || namesLocalTypedef(Plain, FD));
      // `auto it = totals.find(k)`: through the object's type as written.
      if (const auto *Var = dyn_cast<VarDecl>(VD); Var && Var->getInit() && !namesLocalTypedef(Plain, FD)) {
        const Expr *Init = Var->getInit()->IgnoreImplicit();
        if (const auto *Copy = dyn_cast<CXXConstructExpr>(Init); Copy && Copy->getNumArgs() == 1)
          Init = Copy->getArg(0)->IgnoreImplicit();
        if (const auto *Call = dyn_cast<CXXMemberCallExpr>(Init))
          if (const Expr *Object = Call->getImplicitObjectArgument(); Object && !usesLocalTag(Object->getType(), FD))
            if (auto Spelt = printMemberTypeOf(Plain.getUnqualifiedType(), Object->getType(), Ctx))
              V.StateType = *Spelt;
      }
    }
    V.Assignable = isAssignableField(Plain.getUnqualifiedType()) && !V.StateType.empty();
    V.MoveOnly = !V.IsReference && isMoveOnly(Plain);
    F.Vars.push_back(std::move(V));
  }
  return It->second;
}

std::string Builder::valueType(QualType T) {
  std::string Printed = printType(T, Ctx);
  QualType Plain = T.getNonReferenceType().getUnqualifiedType();
  if (F.NoDefaultValueType.empty() && !Plain->isDependentType() &&
      !isAssignableField(Plain, /*Assigned=*/false))
    F.NoDefaultValueType = Printed;
  return Printed;
}

VarId Builder::syntheticVar(std::string Name, std::string Type, bool IsError) {
  Var V;
  V.Name = std::move(Name);
  V.Type = std::move(Type);
  V.IsError = IsError;
  F.Vars.push_back(std::move(V));
  return static_cast<VarId>(F.Vars.size() - 1);
}

// ---- Building -----------------------------------------------------------------

bool Builder::mentionsAsync(const Stmt *S) const {
  AsyncMentionFinder Finder(*this);
  Finder.TraverseStmt(const_cast<Stmt *>(S));
  return Finder.Found;
}

/// Whether every use of the handler or a named continuation in \p S is a
/// direct call of the handler outside any lambda (`return done(error(...));`
/// in a validation loop): nothing in \p S starts async work.
bool Builder::onlyCompletesHandler(const Stmt *S) {
  AsyncRefCollector Refs(*this);
  Refs.TraverseStmt(const_cast<Stmt *>(S));
  for (const DeclRefExpr *E : Refs.Found) {
    if (E->getDecl() != Handler)
      return false;
    bool Called = false;
    for (DynTypedNodeList Parents = Ctx.getParents(*E); !Parents.empty(); Parents = Ctx.getParents(Parents[0])) {
      if (Parents[0].get<LambdaExpr>())
        return false;
      const auto *P = Parents[0].get<Stmt>();
      if (!P)
        return false; // a declaration's (a lambda's body, a variable's initializer)
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(P); Op && Op->getOperator() == OO_Call && !Called)
        Called = Op->getArg(0)->IgnoreParenImpCasts() == E;
      else if (!Called && !isa<ImplicitCastExpr, ParenExpr>(P))
        return false;
      if (P == S)
        break;
    }
    if (!Called)
      return false;
  }
  return true;
}

void Builder::refuseGenericContinuation(const LambdaExpr *L) {
  // Its body is a template: types the printers need (of the value, of what
  // the body computes) are only known per instantiation.
  SourceLocation Begin = L->getBeginLoc();
  refuse(ids::GenericContinuation, Begin, SourceRange(Begin, Begin),
         "continuation is a generic lambda ('auto' parameters); write its parameter types, "
         "as in (asyncshift::error err, T value), to convert it");
}

/// Keeps \p Trailing, a `//` comment written after the statement \p N was
/// built from, on its line: in a kept statement's code, or on a completion
/// (`done({}, v); // why`), also one that an `if` without `else` holds
/// alone (`if (c) return done(...); // why`). False if N is none of those.
static bool keepOnItsLine(Node &N, const std::string &Trailing) {
  if (auto *Sync = dyn<SyncNode>(&N)) {
    Sync->Code.Source += " " + Trailing;
    return true;
  }
  Node *Done = dyn<CompleteNode>(&N);
  if (auto *If = dyn<IfNode>(&N);
      If && !If->HasElse && If->Kept == IfNode::KeptStatement::None && If->Then.size() == 1)
    Done = dyn<CompleteNode>(If->Then.front().get());
  if (!Done)
    return false;
  Done->Trailing = Trailing;
  return true;
}

void Builder::buildBlock(const Stmt *S, Block &Out) {
  const auto *CS = dyn_cast<CompoundStmt>(S);
  if (!CS)
    return buildStmt(S, Out);
  // The idioms span statements: find them first.
  llvm::DenseSet<const Stmt *> Skip;
  llvm::DenseMap<const Stmt *, CounterLoopMatch> Counters;
  llvm::DenseMap<const Stmt *, RecursiveLoopMatch> Loops;
  const Stmt *const *Stmts = CS->body_begin();
  for (unsigned I = 0; I < CS->size(); ++I) {
    const Stmt *Child = Stmts[I];
    std::string WhyNot;
    if (isa<ForStmt>(Child) && mentionsAsync(Child)) {
      if (auto M = matchCounterLoop(CS, I, Handler, Ctx, WhyNot)) {
        for (const DeclStmt *D : M->IdiomDecls)
          Skip.insert(D);
        Counters[Child] = *M;
      } else if (!WhyNot.empty()) {
        refuse(ids::AsyncInLoop, Child->getBeginLoc(), SourceRange(Child->getBeginLoc(), Child->getBeginLoc()),
               "loop looks like the counter idiom but " + WhyNot + "; cannot convert");
        return;
      }
    } else if (isa<DeclStmt>(Child) && mentionsAsync(Child)) {
      if (auto M = matchRecursiveLoop(CS, I, WhyNot)) {
        Skip.insert(Child);
        Loops[M->Entry] = *M;
        AsyncNames.insert(M->Step);
      } else if (!WhyNot.empty()) {
        refuse(ids::UnsupportedStatement, Child->getBeginLoc(), SourceRange(Child->getBeginLoc(), Child->getBeginLoc()),
               "recursive lambda: " + WhyNot + "; cannot convert");
        return;
      }
    }
  }
  std::optional<unsigned> GapBegin = offsetOf(CS->getLBracLoc());
  if (GapBegin)
    ++*GapBegin;
  for (const Stmt *Child : CS->body()) {
    std::optional<unsigned> ChildBegin = offsetOf(Child->getBeginLoc());
    std::string Trailing;
    std::string Comment = GapBegin && ChildBegin ? commentsBetween(*GapBegin, *ChildBegin, Trailing) : "";
    // `stmt; // says what stmt does` stays on its statement's line.
    if (!Trailing.empty() && (Out.empty() || !keepOnItsLine(*Out.back(), Trailing)))
      Comment = Comment.empty() ? Trailing : Trailing + "\n" + Comment;
    if (auto End = offsets(Child->getSourceRange()))
      GapBegin = End->second;
    else
      GapBegin.reset();
    if (Skip.count(Child))
      continue;
    const std::size_t Before = Out.size();
    if (auto It = Counters.find(Child); It != Counters.end())
      buildCounterLoop(It->second, Out);
    else if (auto It = Loops.find(Child); It != Loops.end())
      buildRecursiveLoop(It->second, Out);
    else
      buildStmt(Child, Out);
    if (!Comment.empty() && Out.size() > Before)
      Out[Before]->Comment = std::move(Comment);
  }
  // Comments after the last statement: a `//` on its line stays there when
  // it is kept as written; the rest go after what it becomes.
  if (std::optional<unsigned> End = offsetOf(CS->getRBracLoc()); GapBegin && End && !Out.empty()) {
    std::string Trailing;
    std::string Comment = commentsBetween(*GapBegin, *End, Trailing);
    if (!Trailing.empty() && !keepOnItsLine(*Out.back(), Trailing))
      Comment = Comment.empty() ? Trailing : Trailing + "\n" + Comment;
    Out.back()->After = std::move(Comment);
  }
  // A continuation's leading error check that only passes the error on
  // (`if (err) return done(err);`, after any cleanup) is folded into the
  // await or the chain by most styles, and its comment with it: it goes to
  // the statement after the check instead. A check that does more (wraps
  // the error, say) is printed, and keeps its comment.
  auto passesErrorOn = [](const IfNode &If) {
    const Block &B = If.Test.Negated ? If.Else : If.Then;
    if (B.empty())
      return false;
    const Node *Last = B.back().get();
    if (const auto *C = dyn<CompleteNode>(Last))
      return !C->HasValue && C->Err.Var == If.Test.Err;
    if (const auto *J = dyn<JumpNode>(Last))
      return J->Err.Var == If.Test.Err;
    return false;
  };
  if (Out.size() >= 2 && !Out.front()->Comment.empty())
    if (const auto *If = dyn<IfNode>(Out.front().get()); If && If->Test.Err != NoVar && passesErrorOn(*If)) {
      Out[1]->Comment = Out.front()->Comment + (Out[1]->Comment.empty() ? "" : "\n" + Out[1]->Comment);
      Out.front()->Comment.clear();
    }
}

/// The comments in Buffer[Begin, End), one per line (`//` comments that
/// say nothing left out), or "" when the range holds anything but comments,
/// whitespace and semicolons (a preprocessor line, say). A `//` comment on
/// the line where the range begins goes to \p Trailing instead.
std::string Builder::commentsBetween(unsigned Begin, unsigned End, std::string &Trailing) const {
  std::string Out;
  StringRef Gap = Buffer.slice(Begin, End);
  bool SameLine = true;
  while (!Gap.empty()) {
    char C = Gap.front();
    if (C == '\n')
      SameLine = false;
    if (C == ';' || isWhitespace(C)) {
      Gap = Gap.drop_front();
    } else if (Gap.starts_with("//")) {
      StringRef Line = Gap.take_until([](char Ch) { return Ch == '\n'; });
      Gap = Gap.drop_front(Line.size());
      if (Line.drop_front(2).trim().empty())
        continue;
      if (SameLine && Out.empty())
        Trailing = Line.rtrim().str();
      else
        Out += Line.rtrim().str() + "\n";
    } else if (Gap.starts_with("/*")) {
      std::size_t Close = Gap.find("*/", 2);
      if (Close == StringRef::npos) {
        Trailing.clear();
        return "";
      }
      Out += Gap.take_front(Close + 2).str() + "\n";
      Gap = Gap.drop_front(Close + 2);
    } else {
      Trailing.clear();
      return "";
    }
  }
  if (!Out.empty())
    Out.pop_back();
  return Out;
}

/// How a diagnostic names a statement the converter does not take apart.
static std::string statementName(const Stmt *S) {
  if (isa<SwitchStmt>(S))
    return "a 'switch' statement";
  if (isa<CXXTryStmt>(S))
    return "a 'try' block";
  if (isa<CompoundStmt>(S))
    return "a nested block ('{ ... }')";
  if (isa<WhileStmt>(S))
    return "a 'while' loop";
  if (isa<DoStmt>(S))
    return "a 'do' loop";
  if (isa<ForStmt, CXXForRangeStmt>(S))
    return "a 'for' loop";
  return std::string("a '") + S->getStmtClassName() + "' statement";
}

/// Statements after a completion that are only `return;` fold into it.
static bool foldReturn(Block &Out) {
  if (Out.empty())
    return false;
  Node *Last = Out.back().get();
  if (auto *C = dyn<CompleteNode>(Last); C && !C->IsReturn)
    return C->IsReturn = true;
  if (auto *J = dyn<JumpNode>(Last); J && !J->IsReturn)
    return J->IsReturn = true;
  if (auto *A = dyn<AsyncCallNode>(Last); A && !A->IsReturn)
    return A->IsReturn = true;
  return false;
}

void Builder::buildStmt(const Stmt *S, Block &Out) {
  if (isa<NullStmt>(S))
    return;

  if (const auto *R = dyn_cast<ReturnStmt>(S)) {
    const Expr *V = R->getRetValue();
    if (!V) {
      if (!foldReturn(Out)) {
        auto N = std::make_unique<ReturnNode>();
        N->Where.Raw = S->getBeginLoc().getRawEncoding();
        Out.push_back(std::move(N));
      }
      return;
    }
    if (buildCall(V, /*IsReturn=*/true, Out))
      return;
    if (mentionsAsync(V))
      return refuse(ids::AsyncInExpression, S,
                    "the handler or a named continuation is used inside an expression; cannot convert");
    return refuse(ids::ReturnValue, S, "async function returns a value; cannot convert");
  }

  if (const auto *E = dyn_cast<Expr>(S)) {
    if (buildCall(E, /*IsReturn=*/false, Out))
      return;
    return buildSync(S, Out);
  }

  if (const auto *If = dyn_cast<IfStmt>(S)) {
    if (!mentionsAsync(If))
      return buildSync(S, Out);
    if (If->isConstexpr() || If->isConsteval() || If->getInit() || If->getConditionVariable())
      return refuse(ids::UnsupportedStatement, S,
                    "'if' with an initializer, a condition variable or constexpr around async work; cannot convert");
    if (mentionsAsync(If->getCond()))
      return refuse(ids::AsyncInExpression, If->getCond(),
                    "the handler or a named continuation is used in a condition; cannot convert");
    auto N = std::make_unique<IfNode>();
    N->Where.Raw = S->getBeginLoc().getRawEncoding();
    auto Cond = textOf(If->getCond());
    if (!Cond)
      return refuse(ids::Macro, If->getCond(), "condition comes from a macro expansion; cannot convert");
    N->Cond = *Cond;
    // Recognise `if (err)` and `if (!err)` on an error variable.
    const Expr *C = If->getCond()->IgnoreParenImpCasts();
    bool Negated = false;
    if (const auto *U = dyn_cast<UnaryOperator>(C); U && U->getOpcode() == UO_LNot) {
      Negated = true;
      C = U->getSubExpr()->IgnoreParenImpCasts();
    }
    if (const auto *Conv = dyn_cast<CXXMemberCallExpr>(C))
      if (isa_and_nonnull<CXXConversionDecl>(Conv->getMethodDecl()))
        C = Conv->getImplicitObjectArgument()->IgnoreParenImpCasts();
    if (const VarDecl *V = referencedVar(C); V && isErrorType(V->getType()) && VarIds.count(V)) {
      N->Test.Err = VarIds[V];
      N->Test.Negated = Negated;
    }
    buildBlock(If->getThen(), N->Then);
    if (const Stmt *Else = If->getElse()) {
      N->HasElse = true;
      buildBlock(Else, N->Else);
    }
    Out.push_back(std::move(N));
    return;
  }

  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    if (DS->isSingleDecl())
      if (const auto *VD = dyn_cast<VarDecl>(DS->getSingleDecl()))
        if (const Expr *Init = VD->getInit())
          if (const auto *L = dyn_cast<LambdaExpr>(stripArgument(Init)); L && isGenericContinuation(L) && mentionsAsync(L))
            return refuseGenericContinuation(L);
          else if (L && isContinuationShaped(L) && mentionsAsync(L)) {
            const CXXRecordDecl *RD = VD->getType()->getAsCXXRecordDecl();
            if (!RD || !RD->isLambda())
              return refuse(ids::UnsupportedContinuation, S,
                            "a named continuation must be declared 'auto' (a lambda); cannot convert");
            auto N = std::make_unique<ContDefNode>();
            N->Where.Raw = S->getBeginLoc().getRawEncoding();
            N->Name = varId(VD);
            if (!buildContinuation(L, N->Cont))
              return;
            N->Id = static_cast<unsigned>(F.Conts.size());
            F.Conts.push_back(N.get());
            ContIds[VD] = N->Id;
            AsyncNames.insert(VD);
            ContDecls[VD] = DS;
            Out.push_back(std::move(N));
            return;
          }
    return buildSync(S, Out);
  }

  if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S)) {
    if (mentionsAsync(S) && onlyCompletesHandler(S))
      return buildValidationLoop(S, Out);
    if (mentionsAsync(S) && isa<CXXForRangeStmt>(S))
      return refuse(ids::AsyncInLoop, S->getBeginLoc(), SourceRange(S->getBeginLoc(), S->getBeginLoc()),
                    "async call or handler use inside a range-for loop body; cannot convert (to start them all at "
                    "once, use asyncshift::parallel over the container's size, or write the counter idiom with an "
                    "index: `for (std::size_t i = 0; i < n; ++i)`; one after another, asyncshift::each_series or "
                    "the recursive-lambda idiom)");
    if (mentionsAsync(S))
      return refuse(ids::AsyncInLoop, S->getBeginLoc(), SourceRange(S->getBeginLoc(), S->getBeginLoc()),
                    "async call or handler use inside a loop body; cannot convert (use asyncshift::each_series "
                    "or the recursive-lambda idiom)");
    return buildSync(S, Out);
  }

  if (isa<GotoStmt, IndirectGotoStmt, LabelStmt>(S)) {
    if (isa<LabelStmt>(S) && !mentionsAsync(S))
      return refuse(ids::Goto, S, "label in an async function; cannot convert");
    return refuse(ids::Goto, S, "'goto' in an async function; cannot convert");
  }

  if (const auto *Try = dyn_cast<CXXTryStmt>(S); Try && mentionsAsync(S)) {
    if (mentionsAsync(Try->getTryBlock()))
      return refuse(ids::UnsupportedStatement, S->getBeginLoc(), SourceRange(S->getBeginLoc(), S->getBeginLoc()),
                    onlyCompletesHandler(Try->getTryBlock())
                        ? "the handler is completed inside a 'try' block; cannot convert (nothing in it waits: "
                          "compute the outcome there, as an asyncshift::error or a flag, and complete the handler "
                          "after it with `if (err) return done(err);`)"
                        : "async work inside a 'try' block; cannot convert (a failure of an async call arrives as "
                          "its callback's error, not as an exception)");
    if (!onlyCompletesHandler(S))
      return refuse(ids::UnsupportedStatement, S->getBeginLoc(), SourceRange(S->getBeginLoc(), S->getBeginLoc()),
                    "async work inside a 'catch' handler; cannot convert (a 'catch' may only complete the handler "
                    "with `return " + Handler->getName().str() + "(...);`)");
    if (Try->getNumHandlers() != 1)
      return refuse(ids::UnsupportedStatement, S->getBeginLoc(), SourceRange(S->getBeginLoc(), S->getBeginLoc()),
                    "a 'try' with several 'catch' handlers completes the handler; cannot convert (catch one "
                    "exception type, a common base such as 'const std::exception &', or '...')");
    return buildCatch(Try, Out);
  }
  if (const auto *Nested = dyn_cast<CompoundStmt>(S); Nested && mentionsAsync(S) && onlyCompletesHandler(S)) {
    auto N = std::make_unique<IfNode>();
    N->Kept = IfNode::KeptStatement::Block;
    N->Where.Raw = S->getBeginLoc().getRawEncoding();
    return buildKeptStatement(S, S, std::move(N), Out);
  }
  if (mentionsAsync(S) && onlyCompletesHandler(S))
    return refuse(ids::UnsupportedStatement, S->getBeginLoc(), SourceRange(S->getBeginLoc(), S->getBeginLoc()),
                  "the handler is completed inside " + statementName(S) +
                      "; cannot convert (nothing in it waits: compute the outcome there, as an asyncshift::error "
                      "or a flag, and complete the handler after it with `if (err) return done(err);`)");
  if (mentionsAsync(S))
    return refuse(ids::UnsupportedStatement, S->getBeginLoc(), SourceRange(S->getBeginLoc(), S->getBeginLoc()),
                  "async work inside " + statementName(S) + "; cannot convert");
  buildSync(S, Out);
}

/// The first completion in \p B (the body of a statement kept as written: a
/// validation loop's, a `catch`'s, a nested block's) that does not return,
/// or a `return;` that leaves without completing: what the statement cannot
/// hold.
static const Node *keptBodyLeak(const Block &B) {
  for (const NodePtr &N : B) {
    if (const auto *C = dyn<CompleteNode>(N.get()); C && !C->IsReturn)
      return C;
    if (isa<ReturnNode>(N.get()))
      return N.get();
    if (const auto *I = dyn<IfNode>(N.get())) {
      if (const Node *L = keptBodyLeak(I->Then))
        return L;
      if (const Node *L = keptBodyLeak(I->Else))
        return L;
    }
  }
  return nullptr;
}

/// Whether \p S holds a `break` that leaves the loop whose body it is (not
/// one of a nested loop or `switch`, nor of a lambda's body).
static bool breaksOut(const Stmt *S) {
  if (!S || isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt, SwitchStmt, LambdaExpr>(S))
    return false;
  if (isa<BreakStmt>(S))
    return true;
  for (const Stmt *Child : S->children())
    if (breaksOut(Child))
      return true;
  return false;
}

/// Whether the loop \p S is left only from inside its body, by a completion
/// that returns (`for (;;)`, `while (true)`, `do ... while (1)` with no
/// `break` of its own): no path goes on after it.
static bool isEndless(const Stmt *S, const ASTContext &Ctx) {
  const Expr *Cond = nullptr;
  const Stmt *Body = nullptr;
  if (const auto *For = dyn_cast<ForStmt>(S))
    Cond = For->getCond(), Body = For->getBody();
  else if (const auto *While = dyn_cast<WhileStmt>(S))
    Cond = While->getCond(), Body = While->getBody();
  else if (const auto *Do = dyn_cast<DoStmt>(S))
    Cond = Do->getCond(), Body = Do->getBody();
  else
    return false;
  bool True = false;
  if (Cond && (Cond->isValueDependent() || !Cond->EvaluateAsBooleanCondition(True, Ctx) || !True))
    return false;
  return !breaksOut(Body);
}

/// A loop that waits for nothing and only completes the handler (a
/// validation loop): an IfNode that keeps the loop's header as written.
void Builder::buildValidationLoop(const Stmt *S, Block &Out) {
  const Stmt *Body = nullptr;
  auto N = std::make_unique<IfNode>();
  N->Kept = IfNode::KeptStatement::Loop;
  N->Where.Raw = S->getBeginLoc().getRawEncoding();
  auto declares = [&](const Stmt *Init) {
    if (const auto *DS = dyn_cast_or_null<DeclStmt>(Init))
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D))
          N->HeaderDeclares.push_back(varId(VD));
  };
  if (const auto *For = dyn_cast<ForStmt>(S)) {
    Body = For->getBody();
    declares(For->getInit());
    if (const VarDecl *V = For->getConditionVariable())
      N->HeaderDeclares.push_back(varId(V));
  } else if (const auto *While = dyn_cast<WhileStmt>(S)) {
    Body = While->getBody();
    if (const VarDecl *V = While->getConditionVariable())
      N->HeaderDeclares.push_back(varId(V));
  } else if (const auto *Range = dyn_cast<CXXForRangeStmt>(S)) {
    Body = Range->getBody();
    declares(Range->getInit());
    if (const auto *DD = dyn_cast<DecompositionDecl>(Range->getLoopVariable()))
      for (const BindingDecl *BD : DD->bindings())
        N->HeaderDeclares.push_back(varId(BD));
    else
      N->HeaderDeclares.push_back(varId(Range->getLoopVariable()));
  } else if (const auto *Do = dyn_cast<DoStmt>(S)) {
    // `do` is the header; `while (...);` after the body is the tail.
    Body = Do->getBody();
    auto Whole = offsets(S->getSourceRange());
    auto Inner = offsets(Body->getSourceRange());
    if (!Whole || !Inner || Inner->second > Whole->second)
      return refuse(ids::Macro, S, "statement comes from a macro expansion; cannot convert");
    unsigned Begin = Inner->second; // past an unbraced body's `;`
    while (Begin < Whole->second && (Buffer[Begin] == ';' || isWhitespace(Buffer[Begin])))
      ++Begin;
    N->Tail = textAt(Begin, Whole->second);
    N->Tail.Source += ";";
  }
  N->Endless = isEndless(S, Ctx);
  buildKeptStatement(S, Body, std::move(N), Out);
}

/// A `try` whose handler completes the handler and whose try block waits for
/// nothing and completes nothing (`try { n = std::stoi(s); } catch (const
/// std::exception &e) { return done(error(e.what())); }`): an IfNode that
/// keeps `try { ... } catch (...)` as written, its handler in Then.
void Builder::buildCatch(const CXXTryStmt *S, Block &Out) {
  const CXXCatchStmt *Catch = S->getHandler(0);
  auto N = std::make_unique<IfNode>();
  N->Kept = IfNode::KeptStatement::Catch;
  N->Where.Raw = S->getBeginLoc().getRawEncoding();
  if (const VarDecl *E = Catch->getExceptionDecl(); E && E->getIdentifier())
    N->HeaderDeclares.push_back(varId(E));
  // What a verbatim statement must not hold (a `return` of the function, a
  // detached call of a function this run converts) the try block must not.
  if (!scanSync(S->getTryBlock()).empty())
    return refuse(ids::UnsupportedStatement, S->getBeginLoc(), SourceRange(S->getBeginLoc(), S->getBeginLoc()),
                  "a function this run converts is started inside a 'try' block whose 'catch' completes the "
                  "handler; cannot convert");
  if (Failed)
    return;
  buildKeptStatement(S, Catch->getHandlerBlock(), std::move(N), Out);
}

/// Completes an IfNode that keeps \p S as written up to \p Body, which
/// becomes its Then.
void Builder::buildKeptStatement(const Stmt *S, const Stmt *Body, std::unique_ptr<IfNode> N, Block &Out) {
  auto Whole = offsets(S->getSourceRange());
  auto Inner = Body ? offsets(Body->getSourceRange()) : std::nullopt;
  if (!Whole || !Inner || Inner->first < Whole->first || (Body != S && Inner->first == Whole->first))
    return refuse(ids::Macro, S, "statement comes from a macro expansion; cannot convert");
  std::string HeaderComments;
  if (Body != S) { // a nested block has no header
    // The header ends with its last token before the body: comments between
    // the two (`for (...) // why` above an unbraced body) go to the body.
    Lexer Raw(SM.getLocForStartOfFile(MainFID), LO, Buffer.begin(), Buffer.begin() + Whole->first, Buffer.end());
    unsigned HeaderEnd = Whole->first;
    for (Token Tok; !Raw.LexFromRawLexer(Tok);) {
      const unsigned At = SM.getFileOffset(Tok.getLocation());
      if (At >= Inner->first)
        break;
      HeaderEnd = At + Tok.getLength();
    }
    N->Cond = textAt(Whole->first, HeaderEnd);
    std::string Trailing;
    HeaderComments = commentsBetween(HeaderEnd, Inner->first, Trailing);
    if (!Trailing.empty())
      HeaderComments = HeaderComments.empty() ? Trailing : Trailing + "\n" + HeaderComments;
  }
  buildBlock(Body, N->Then);
  if (Failed)
    return;
  if (!HeaderComments.empty() && !N->Then.empty()) {
    std::string &First = N->Then.front()->Comment;
    First = First.empty() ? HeaderComments : HeaderComments + "\n" + First;
  }
  if (const Node *Leak = keptBodyLeak(N->Then)) {
    SourceLocation L = SourceLocation::getFromRawEncoding(Leak->Where.Raw);
    const bool Loop = N->Kept == IfNode::KeptStatement::Loop;
    const char *Where = Loop ? "a loop" : N->Kept == IfNode::KeptStatement::Catch ? "a 'catch'" : "a nested block";
    if (isa<ReturnNode>(Leak))
      return refuse(ids::NotCalled, L, SourceRange(L, L),
                    std::string("this path returns from inside ") + Where +
                        " without calling the handler; cannot convert");
    return refuse(Loop ? ids::AsyncInLoop : ids::UnsupportedStatement, L, SourceRange(L, L),
                  std::string("the handler is completed inside ") + Where +
                      " without returning at once; cannot convert (make it `return " + Handler->getName().str() +
                      "(...);`)");
  }
  Out.push_back(std::move(N));
}

void Builder::buildSync(const Stmt *S, Block &Out) {
  if (mentionsAsync(S)) {
    // Find the offending reference for a precise location.
    AsyncRefCollector Collector(*this);
    Collector.TraverseStmt(const_cast<Stmt *>(S));
    const DeclRefExpr *First = Collector.Found.empty() ? nullptr : Collector.Found.front();
    SourceLocation L = First ? First->getLocation() : S->getBeginLoc();
    if (First && First->getDecl() == Handler)
      return refuse(ids::HandlerEscapes, L, SourceRange(L, L),
                    "handler '" + Handler->getName().str() +
                        "' is used other than by calling or forwarding it; cannot convert");
    if (First)
      return refuseEscape(First);
    return refuse(ids::ContinuationEscapes, L, SourceRange(L, L),
                  "named continuation '?' is used other than by calling it or passing it as a handler; cannot convert");
  }
  std::vector<const CallExpr *> Detached = scanSync(S);
  auto Code = textOf(S);
  if (!Code)
    return refuse(ids::Macro, S, "statement comes from a macro expansion; cannot convert");
  auto N = std::make_unique<SyncNode>();
  N->Where.Raw = S->getBeginLoc().getRawEncoding();
  N->Code = std::move(*Code);
  // Detached calls of converted functions: the printer spells them.
  if (auto StmtOff = offsets(S->getSourceRange()); !StmtOff || !addSplices(N->Code, StmtOff->first, Detached))
    return;
  // Statements that end with an expression (`f();`, `for (...) x += v;`,
  // `if (c) g();`, `out = {v, w};`) do not include their semicolon in the
  // AST's range; a block (`if (c) { ... }`) has none.
  if (!N->Code.Source.empty() && N->Code.Source.back() != ';' && (N->Code.Source.back() != '}' || isa<Expr>(S))) {
    if (auto Off = offsets(S->getSourceRange())) {
      unsigned End = Off->second;
      while (End < Buffer.size() && isspace(static_cast<unsigned char>(Buffer[End])))
        ++End;
      if (End < Buffer.size() && Buffer[End] == ';')
        N->Code.Source += ";";
    }
  }
  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls())
      if (const auto *DD = dyn_cast<DecompositionDecl>(D)) {
        for (const BindingDecl *BD : DD->bindings())
          N->Declares.push_back(varId(BD));
        N->Decomposition = true;
      } else if (const auto *VD = dyn_cast<VarDecl>(D)) {
        N->Declares.push_back(varId(VD));
      }
    if (DS->isSingleDecl())
      if (const auto *VD = dyn_cast<VarDecl>(DS->getSingleDecl()); VD && VD->getIdentifier())
        describeDecl(VD, *N);
  }
  Out.push_back(std::move(N));
}

/// What a verbatim statement must not contain: a `return` or `goto` of the
/// async function itself, coroutine keywords, a detached call of a function
/// this run converts.
std::vector<const CallExpr *> Builder::scanSync(const Stmt *S) {
  class Scanner : public LambdaDepthVisitor<Scanner> {
  public:
    Scanner(Builder &B, const ConvertedSet &Converted) : B(B), Converted(Converted) {}
    bool VisitReturnStmt(ReturnStmt *R) {
      if (InLambda == 0 && !Bad)
        Bad = R, Id = ids::NotCalled,
        Msg = "this path returns without calling, forwarding or passing on the handler; cannot convert";
      return true;
    }
    bool VisitGotoStmt(GotoStmt *G) {
      if (InLambda == 0 && !Bad)
        Bad = G, Id = ids::Goto, Msg = "'goto' in an async function; cannot convert";
      return true;
    }
    bool VisitCoroutineBodyStmt(CoroutineBodyStmt *C) { return true; }
    bool VisitCoawaitExpr(CoawaitExpr *E) {
      if (InLambda == 0 && !Bad)
        Bad = E, Id = ids::UnsupportedStatement, Msg = "'co_await' in a callback-style function; cannot convert";
      return true;
    }
    bool VisitCallExpr(CallExpr *C) {
      if (const FunctionDecl *Callee = C->getDirectCallee())
        if (Converted.count(Callee->getCanonicalDecl()) && !Bad) {
          for (const CallExpr *Outer : Detached)
            if (Outer->getSourceRange().fullyContains(C->getSourceRange())) {
              Bad = C, Id = ids::DetachedConvertedCall,
              Msg = "detached call of '" + Callee->getNameAsString() +
                    "' inside the arguments of another; cannot convert";
              return true;
            }
          Detached.push_back(C);
        }
      return true;
    }
    std::vector<const CallExpr *> Detached;
    Builder &B;
    const ConvertedSet &Converted;
    const Stmt *Bad = nullptr;
    const char *Id = "";
    std::string Msg;
  } Scan(*this, Converted);
  Scan.TraverseStmt(const_cast<Stmt *>(S));
  if (Scan.Bad)
    refuse(Scan.Id, Scan.Bad, Scan.Msg);
  return Scan.Detached;
}

/// Splits `T x = e;`, `T x(args);`, `T x{...};` into type and initializer.
void Builder::describeDecl(const VarDecl *VD, SyncNode &N) {
  auto Whole = offsets(VD->getSourceRange());
  auto NameAt = offsetOf(VD->getLocation());
  const TypeSourceInfo *TSI = VD->getTypeSourceInfo();
  if (!Whole || !NameAt || !TSI)
    return;
  auto TypeOff = offsets(TSI->getTypeLoc().getSourceRange());
  if (!TypeOff)
    return;
  VarDeclInfo D;
  D.WrittenType = Buffer.slice(TypeOff->first, TypeOff->second).str();
  unsigned After = *NameAt + static_cast<unsigned>(VD->getName().size());
  if (After > Whole->second)
    return;
  StringRef Rest = Buffer.slice(After, Whole->second);
  unsigned Skip = static_cast<unsigned>(Rest.size() - Rest.ltrim().size());
  Rest = Rest.ltrim();
  if (!VD->hasInit()) {
    D.Kind = VarDeclInfo::InitKind::None;
  } else if (Rest.starts_with("=")) {
    D.Kind = VarDeclInfo::InitKind::Copy;
    StringRef Expr = Rest.drop_front(1);
    unsigned ExprSkip = static_cast<unsigned>(Expr.size() - Expr.ltrim().size());
    D.Initializer = textAt(After + Skip + 1 + ExprSkip, Whole->second);
  } else if (Rest.starts_with("(")) {
    D.Kind = VarDeclInfo::InitKind::Direct;
    D.Initializer = textAt(After + Skip, Whole->second);
  } else if (Rest.starts_with("{")) {
    D.Kind = VarDeclInfo::InitKind::List;
    D.Initializer = textAt(After + Skip, Whole->second);
  } else {
    return;
  }
  N.HasDecl = true;
  N.Decl = std::move(D);
  // The user's spelling of the type, for a state field holding the variable.
  if (N.Decl.WrittenType.find("auto") == std::string::npos)
    F.Vars[varId(VD)].Type = writtenType(VD);
}

/// `{}`, `T{}`, `T()`, `0`, `false`, `nullptr`: what a failing leaf of the
/// runtime passes along with its error.
static bool isDefaultValue(const Expr *E) {
  E = E->IgnoreImplicit()->IgnoreParens();
  if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E))
    E = Cast->getSubExpr()->IgnoreImplicit()->IgnoreParens();
  if (const auto *List = dyn_cast<InitListExpr>(E))
    return List->getNumInits() == 0;
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
    return Construct->getNumArgs() == 0;
  if (isa<CXXScalarValueInitExpr, ImplicitValueInitExpr, CXXNullPtrLiteralExpr>(E))
    return true;
  if (const auto *Int = dyn_cast<IntegerLiteral>(E))
    return Int->getValue() == 0;
  if (const auto *Bool = dyn_cast<CXXBoolLiteralExpr>(E))
    return !Bool->getValue();
  if (const auto *Float = dyn_cast<FloatingLiteral>(E))
    return Float->getValue().isZero();
  return false;
}

/// `done(err, v)` inside a continuation `(asyncshift::error err, T v)`: the
/// value that came with the error, passed on with it (a failing leaf's value
/// is a default one, by the callback convention).
static bool isForwardedValue(const Expr *Err, const Expr *Value) {
  const auto *E = dyn_cast_or_null<ParmVarDecl>(referencedVar(stripArgument(Err)));
  const auto *V = dyn_cast_or_null<ParmVarDecl>(referencedVar(stripArgument(Value)));
  return E && V && E->getDeclContext() == V->getDeclContext();
}

ErrorArg Builder::errorArg(const Expr *E) {
  ErrorArg A;
  A.Present = true;
  A.IsSuccess = isSuccessLiteral(E);
  A.IsFailure = isFailureConstruction(E);
  if (const VarDecl *V = referencedVar(stripArgument(E)); V && isErrorType(V->getType()) && VarIds.count(V))
    A.Var = VarIds[V];
  if (auto T = textOf(E))
    A.Expr = *T;
  else
    refuse(ids::Macro, E, "argument comes from a macro expansion; cannot convert");
  return A;
}

bool Builder::buildContinuation(const LambdaExpr *L, Continuation &C) {
  if (!checkCaptures(L, "continuation", "capture by value, as the continuation runs after this scope ends"))
    return false;
  const CXXMethodDecl *Call = L->getCallOperator();
  const ParmVarDecl *ErrParam = Call->getParamDecl(0);
  if (ErrParam->getIdentifier())
    C.Err = varId(ErrParam);
  if (Call->getNumParams() == 2) {
    C.HasValueParam = true;
    const ParmVarDecl *ValueParam = Call->getParamDecl(1);
    if (ValueParam->getIdentifier()) {
      C.Value = varId(ValueParam);
      F.Vars[C.Value].Type = writtenType(ValueParam);
    }
  }
  buildBlock(L->getBody(), C.Body);
  return true;
}

/// A local reference, or a structured binding that names what another
/// object holds (`auto &[a, b] = x;`, `auto [a, b] = std::tie(x, y);`).
static bool isLocalReference(const ValueDecl *V) {
  if (const auto *BD = dyn_cast_or_null<BindingDecl>(V))
    return bindsReference(BD);
  const auto *VD = dyn_cast_or_null<VarDecl>(V);
  return VD && VD->getType()->isReferenceType() && !isa<ParmVarDecl>(VD);
}

/// A lambda (\p What: a continuation, a branch, a loop lambda) reading a
/// reference variable declared outside it. Captured by copy, the lambda copies
/// what it refers to when it is made; a reference initialized with a constant
/// expression (`= some_global`) Clang does not capture at all, and g++ copies.
/// Flattened code would go on reading through the reference after the wait (a
/// coroutine frame keeps the reference itself), and so see later changes, or a
/// dead object. Refused, with the fix (declare a copy). Returns false when it
/// refused.
bool Builder::refuseOuterReferences(const LambdaExpr *L, StringRef What) {
  auto Refuse = [&](SourceLocation At, SourceRange R, const ValueDecl *V, const std::string &How) {
    const std::string Name = V->getNameAsString();
    refuse(ids::ReferenceVariable, At, R,
           What.str() + How + ", and converted code would read through the reference after the wait; cannot convert "
                              "(declare '" + Name + "' as a copy, not a reference)");
    Findings.back().Notes.push_back({Loc{V->getLocation().getRawEncoding()}, "'" + Name + "' is declared here"});
    return false;
  };
  for (const LambdaCapture &Cap : L->captures()) {
    if (!Cap.capturesVariable() || Cap.getCaptureKind() != LCK_ByCopy)
      continue;
    const ValueDecl *V = Cap.getCapturedVar();
    if (!isLocalReference(V))
      continue;
    SourceLocation At = Cap.isImplicit() ? L->getCaptureDefaultLoc() : Cap.getLocation();
    return Refuse(At, SourceRange(At, At), V,
                  " copies '" + V->getNameAsString() +
                      "', a reference: the copy is made when the " + What.str() + " is created");
  }
  UncapturedReferenceUse Uncaptured(L);
  Uncaptured.TraverseStmt(L->getBody());
  if (const DeclRefExpr *E = Uncaptured.Found) {
    const auto *V = cast<VarDecl>(E->getDecl());
    return Refuse(E->getLocation(), E->getSourceRange(), V,
                  " uses '" + V->getNameAsString() +
                      "', a reference declared outside it that it does not capture (it refers to a constant); g++ "
                      "copies what it refers to when the " + What.str() + " is created, Clang does not");
  }
  return true;
}

/// The capture list of a continuation or a branch lambda (\p What). Copies,
/// implicit (`[=]`) or named (`[done, k]`), become the variables themselves
/// once the code is flattened; `mutable`, references and init-captures
/// (`[n = k * 2]`, whose names would be left undeclared) are refused.
bool Builder::checkCaptures(const LambdaExpr *L, StringRef What, StringRef WhyNotByRef) {
  if (L->isMutable()) {
    refuse(ids::MutableContinuation, L->getBeginLoc(), L->getIntroducerRange(),
           "'mutable' " + std::string(What == "branch" ? "branch lambda" : What) +
               "; cannot convert (its captured copies would become shared variables)");
    return false;
  }
  for (auto [Cap, Init] : llvm::zip(L->captures(), L->capture_inits())) {
    if (!Cap.capturesVariable())
      continue;
    const auto *Captured = dyn_cast<VarDecl>(Cap.getCapturedVar());
    if (Captured && Captured->isInitCapture()) {
      SourceLocation At = Cap.getLocation();
      refuse(ids::InitCapture, At, SourceRange(At, At),
             What.str() + " init-captures '" + Captured->getNameAsString() +
                 "'; cannot convert (flattened code has no capture list: declare it before the call, or capture a "
                 "variable by copy)");
      return false;
    }
    if (Cap.getCaptureKind() == LCK_ByRef) {
      SourceLocation At = Cap.isImplicit() ? L->getCaptureDefaultLoc() : Cap.getLocation();
      refuse(ids::ReferenceCapture, At, SourceRange(At, At),
             What.str() + " captures '" + Cap.getCapturedVar()->getNameAsString() + "' by reference; cannot convert (" +
                 WhyNotByRef.str() + ")");
      return false;
    }
    // `[done]` names the handler in the capture list: a copy, not a use.
    if (!Cap.isImplicit() && Init) {
      AsyncRefCollector Refs(*this);
      Refs.TraverseStmt(const_cast<Expr *>(Init));
      Accounted.insert(Refs.Found.begin(), Refs.Found.end());
    }
  }
  return refuseOuterReferences(L, What);
}

/// Marks in \p T, the text from file offset \p Begin, each detached call
/// of a converted function in \p Calls that it holds, for the printer to
/// spell in its style. False when it refused (a call from a macro).
bool Builder::addSplices(Text &T, unsigned Begin, const std::vector<const CallExpr *> &Calls) {
  for (const CallExpr *C : Calls) {
    auto CallOff = offsets(C->getSourceRange());
    if (CallOff && (CallOff->first < Begin || CallOff->second > Begin + T.Source.size()))
      continue; // in another piece of the text
    CallArgs A = callArguments(C);
    AsyncCallNode Call;
    auto HandlerText = A.Args.empty() ? std::nullopt : textOf(A.Args.back());
    if (!CallOff || !HandlerText || !fillCallTexts(C, A.Args.back(), Call)) {
      refuse(ids::Macro, C, "detached call comes from a macro expansion; cannot convert");
      return false;
    }
    Splice Sp;
    Sp.Offset = CallOff->first - Begin;
    Sp.Length = CallOff->second - CallOff->first;
    Sp.Call = std::move(Call.WithoutHandler);
    Sp.Handler = std::move(*HandlerText);
    T.Splices.push_back(std::move(Sp));
    F.HasDetachedCalls = true;
  }
  llvm::sort(T.Splices, [](const Splice &X, const Splice &Y) { return X.Offset < Y.Offset; });
  return true;
}

/// The call's text around its handler argument, and whether the callee is
/// converted in this run.
bool Builder::fillCallTexts(const CallExpr *C, const Expr *HandlerArg, AsyncCallNode &N) {
  CallArgs A = callArguments(C);
  auto CallOff = offsets(C->getSourceRange());
  auto HandlerOff = offsets(HandlerArg->getSourceRange());
  if (!CallOff || !HandlerOff) {
    refuse(ids::Macro, C, "async call comes from a macro expansion; cannot convert");
    return false;
  }
  // Calls of converted functions in the other arguments, kept as they are
  // (`series(2, [=](std::size_t i, callback<int> step) { helper(i, step); },
  // done)`): started and delivered to their handler.
  // A parallel or each_series branch is built as an async function of its
  // own (buildCombinator), not kept.
  std::vector<const CallExpr *> Detached;
  const LambdaExpr *Branch = combinatorBranch(C);
  for (const Expr *Arg : A.Args)
    if (Arg != HandlerArg && stripArgument(Arg) != Branch)
      for (const CallExpr *D : scanSync(Arg))
        Detached.push_back(D);
  if (Failed)
    return false;
  N.Prefix = textAt(CallOff->first, HandlerOff->first);
  N.Suffix = textAt(HandlerOff->second, CallOff->second);
  if (!addSplices(N.Prefix, CallOff->first, Detached) || !addSplices(N.Suffix, HandlerOff->second, Detached))
    return false;
  if (A.Args.size() >= 2) {
    auto PrevOff = offsets(A.Args[A.Args.size() - 2]->getSourceRange());
    if (!PrevOff) {
      refuse(ids::Macro, C, "async call comes from a macro expansion; cannot convert");
      return false;
    }
    Text Head = textAt(CallOff->first, PrevOff->second);
    if (!addSplices(Head, CallOff->first, Detached))
      return false;
    N.WithoutHandler = concat(std::move(Head), N.Suffix);
  } else {
    Text P = N.Prefix;
    while (!P.Source.empty() && isspace(static_cast<unsigned char>(P.Source.back())))
      P.Source.pop_back();
    N.WithoutHandler = concat(P, N.Suffix);
  }
  // The handler is the last argument, so it binds the last parameter. A
  // template's specialization for an lvalue has `H&` there: ask the template,
  // whose `H&&` is a forwarding reference.
  auto TakesRvalue = [](const FunctionDecl *F) {
    if (const FunctionTemplateDecl *T = F->getPrimaryTemplate())
      F = T->getTemplatedDecl();
    if (F->getNumParams() == 0 || F->isVariadic())
      return false;
    return bindsRvalue(F->getParamDecl(F->getNumParams() - 1)->getType());
  };
  for (const Expr *Arg : A.Args)
    if (Arg != HandlerArg)
      N.ArgsMakeInitializerList |= makesInitializerList(Arg);
  const FunctionDecl *Callee = C->getDirectCallee();
  if (Callee) {
    N.CalleeConverted = Converted.count(Callee->getCanonicalDecl()) != 0;
    N.HandlerTakesRvalue = TakesRvalue(Callee);
  } else if (const auto *ULE = dyn_cast<UnresolvedLookupExpr>(C->getCallee()->IgnoreParenImpCasts())) {
    // A call in a template (a generic lambda's body): every candidate must take an rvalue.
    bool AllTakeRvalue = ULE->getNumDecls() != 0;
    for (const NamedDecl *D : ULE->decls()) {
      const NamedDecl *U = D->getUnderlyingDecl();
      if (const auto *FD = dyn_cast<FunctionDecl>(U)) {
        N.CalleeConverted |= Converted.count(FD->getCanonicalDecl()) != 0;
        AllTakeRvalue &= TakesRvalue(FD);
      } else if (const auto *FT = dyn_cast<FunctionTemplateDecl>(U)) {
        AllTakeRvalue &= TakesRvalue(FT->getTemplatedDecl());
      } else {
        AllTakeRvalue = false;
      }
    }
    N.HandlerTakesRvalue = AllTakeRvalue;
  }
  return true;
}

/// `self(self, args...)` inside a recursive-lambda loop: its next iteration.
bool Builder::buildRecur(const CallExpr *C, bool IsReturn, Block &Out) {
  for (auto It = Loops.rbegin(); It != Loops.rend(); ++It) {
    auto Args = recursionArgs(C, It->first);
    if (!Args)
      continue;
    auto N = std::make_unique<RecurNode>();
    N->Where.Raw = C->getBeginLoc().getRawEncoding();
    N->Loop = It->second;
    N->IsReturn = IsReturn;
    for (const Expr *A : *Args) {
      if (mentionsAsync(A)) {
        refuse(ids::AsyncInExpression, A, "handler or loop used in an argument; cannot convert");
        return true;
      }
      auto T = textOf(A);
      if (!T) {
        refuse(ids::Macro, A, "argument comes from a macro expansion; cannot convert");
        return true;
      }
      N->Args.push_back(*T);
    }
    // self(self, ...): both references are the recursion itself.
    class Mark : public RecursiveASTVisitor<Mark> {
    public:
      Mark(llvm::DenseSet<const DeclRefExpr *> &Accounted, const ParmVarDecl *Self) : Accounted(Accounted), Self(Self) {}
      bool VisitDeclRefExpr(DeclRefExpr *E) {
        if (E->getDecl() == Self)
          Accounted.insert(E);
        return true;
      }
      llvm::DenseSet<const DeclRefExpr *> &Accounted;
      const ParmVarDecl *Self;
    } M(Accounted, It->first);
    M.TraverseStmt(const_cast<Expr *>(C->getCallee()));
    M.TraverseStmt(const_cast<Expr *>(C->getArg(isa<CXXOperatorCallExpr>(C) ? 1 : 0)));
    if (isa<CXXOperatorCallExpr>(C))
      M.TraverseStmt(const_cast<Expr *>(C->getArg(0)));
    Out.push_back(std::move(N));
    return true;
  }
  return false;
}

/// The counter idiom becomes what it means: parallel(n, op, continuation).
void Builder::buildCounterLoop(const CounterLoopMatch &M, Block &Out) {
  auto N = std::make_unique<AsyncCallNode>();
  N->Where.Raw = M.Loop->getBeginLoc().getRawEncoding();
  auto Comb = std::make_unique<Combinator>();
  Comb->K = Combinator::Kind::Parallel;
  Comb->Where = N->Where;
  auto Count = textOf(M.Count);
  if (!Count)
    return refuse(ids::Macro, M.Count, "loop bound comes from a macro expansion; cannot convert");
  Comb->Count = *Count;
  Comb->Index = varId(M.Index);
  Comb->IndexType = writtenType(M.Index);
  Comb->Handler = syntheticVar("cb", "", false);
  const CXXMethodDecl *Op = M.Cont->getCallOperator();
  const ParmVarDecl *ValueParam = Op->getNumParams() == 2 ? Op->getParamDecl(1) : nullptr;
  if (M.Results && ValueParam)
    Comb->ItemType = writtenType(ValueParam);

  // Each branch is the loop body's call, passing its outcome on.
  CallArgs A = callArguments(M.Call);
  auto Branch = std::make_unique<AsyncCallNode>();
  Branch->Where = N->Where;
  Branch->IsReturn = true;
  Branch->Handler = AsyncCallNode::HandlerKind::Forward;
  if (!fillCallTexts(M.Call, A.Args.back(), *Branch))
    return;
  if (auto CT = asCallbackType(A.Args.back()->getType()); CT && CT->HasValue)
    Branch->ValueType = M.Results ? Comb->ItemType : valueType(CT->Value);
  else if (M.Results)
    Branch->ValueType = Comb->ItemType;
  if (!M.Results && !Branch->ValueType.empty()) {
    // The branch completes callback<>; the call's value is dropped.
    Branch->Handler = AsyncCallNode::HandlerKind::Continuation;
    Branch->IsReturn = false;
    auto Done = std::make_unique<CompleteNode>();
    Done->Err.Present = true;
    Done->Err.Var = syntheticVar("err", "asyncshift::error", true);
    Done->Err.Expr.Source = "err";
    Done->Err.Expr.Refs.push_back({0, 3, Done->Err.Var});
    Done->IsReturn = true;
    Branch->Cont.Err = Done->Err.Var;
    Branch->Cont.HasValueParam = true;
    Branch->Cont.Body.push_back(std::move(Done));
  }
  std::set<VarId> Captured;
  for (const Text *T : {&Branch->Prefix, &Branch->Suffix})
    for (const Text::Ref &R : T->Refs)
      if (R.Var != Comb->Index)
        Captured.insert(R.Var);
  Comb->Captured.assign(Captured.begin(), Captured.end());
  Comb->Body.push_back(std::move(Branch));
  N->Comb = std::move(Comb);

  // The join: the error branch (without `*failed = true`), then the last one.
  N->ValueType = M.Results ? "std::vector<" + N->Comb->ItemType + ">" : "";
  const ParmVarDecl *ErrParam = Op->getParamDecl(0);
  N->Cont.Err = varId(ErrParam);
  auto Check = std::make_unique<IfNode>();
  Check->Where.Raw = M.ErrorCheck->getBeginLoc().getRawEncoding();
  if (auto Cond = textOf(M.ErrorCheck->getCond()))
    Check->Cond = *Cond;
  Check->Test.Err = N->Cont.Err;
  auto ErrorBody = cast<CompoundStmt>(M.ErrorCheck->getThen())->body();
  bool First = true;
  for (const Stmt *S : ErrorBody) {
    if (First) { // `*failed = true;`
      First = false;
      continue;
    }
    buildStmt(S, Check->Then);
  }
  N->Cont.Body.push_back(std::move(Check));
  for (const Stmt *S : M.Success)
    buildStmt(S, N->Cont.Body);
  size_t Before = N->Cont.Body.size();
  buildCall(M.SuccessCompletion, /*IsReturn=*/true, N->Cont.Body);
  if (M.Results && N->Cont.Body.size() > Before) {
    N->Cont.HasValueParam = true;
    N->Cont.Value = syntheticVar(M.Results->getName().str(), N->ValueType, false);
    F.Vars[N->Cont.Value].StateType = N->ValueType;
    if (auto *Done = dyn<CompleteNode>(N->Cont.Body.back().get())) {
      Done->Value.Source = F.Vars[N->Cont.Value].Name;
      Done->Value.Refs = {{0, static_cast<unsigned>(Done->Value.Source.size()), N->Cont.Value}};
    }
  }
  Out.push_back(std::move(N));
}

/// The recursive-lambda idiom becomes a Loop node where it is started.
void Builder::buildRecursiveLoop(const RecursiveLoopMatch &M, Block &Out) {
  // Never nested: inside a loop lambda's (generic) body a second loop's start
  // is a dependent call the idiom matcher does not recognise, so it is refused
  // (test/lit/refuse/nested-loop-lambda.cpp); printers rely on that.
  assert(Loops.empty() && "loop lambda inside a loop lambda");
  auto N = std::make_unique<LoopNode>();
  N->Where.Raw = M.EntryCall->getBeginLoc().getRawEncoding();
  N->Id = NextLoop++;
  N->Name = varId(M.Step);
  N->Self = varId(M.Self);
  N->IsReturn = isa<ReturnStmt>(M.Entry);
  if (M.Lambda->isMutable()) {
    refuse(ids::MutableContinuation, M.Lambda->getBeginLoc(), M.Lambda->getIntroducerRange(),
           "'mutable' loop lambda; cannot convert");
    return;
  }
  for (const LambdaCapture &Cap : M.Lambda->captures())
    if (Cap.capturesVariable() && Cap.getCaptureKind() == LCK_ByRef) {
      SourceLocation At = Cap.isImplicit() ? M.Lambda->getCaptureDefaultLoc() : Cap.getLocation();
      refuse(ids::ReferenceCapture, At, SourceRange(At, At),
             "loop lambda captures '" + Cap.getCapturedVar()->getNameAsString() + "' by reference; cannot convert");
      return;
    }
  if (!refuseOuterReferences(M.Lambda, "loop lambda"))
    return;
  const CXXMethodDecl *Op = M.Lambda->getCallOperator();
  for (unsigned I = 1; I < Op->getNumParams(); ++I) {
    const ParmVarDecl *P = Op->getParamDecl(I);
    if (!P->getIdentifier()) {
      refuse(ids::UnsupportedStatement, P->getLocation(), SourceRange(), "unnamed loop parameter; cannot convert");
      return;
    }
    N->Params.push_back(varId(P));
    N->ParamTypes.push_back(writtenType(P));
  }
  if (M.EntryCall->getNumArgs() != Op->getNumParams() + 1) {
    refuse(ids::UnsupportedStatement, M.EntryCall, "loop started with the wrong number of arguments; cannot convert");
    return;
  }
  for (unsigned I = 2; I < M.EntryCall->getNumArgs(); ++I) {
    auto T = textOf(M.EntryCall->getArg(I));
    if (!T)
      return refuse(ids::Macro, M.EntryCall->getArg(I), "argument comes from a macro expansion; cannot convert");
    N->Init.push_back(*T);
  }
  // step(step, ...): both references start the loop.
  for (unsigned I = 0; I < 2; ++I)
    if (const auto *DRE = dyn_cast<DeclRefExpr>(M.EntryCall->getArg(I)->IgnoreParenImpCasts()))
      Accounted.insert(DRE);
  AsyncNames.insert(M.Self);
  Loops.emplace_back(M.Self, N->Id);
  buildBlock(M.Lambda->getBody(), N->Body);
  Loops.pop_back();
  Out.push_back(std::move(N));
}

/// The lambda of parallel(n, [=](std::size_t i, callback<T> cb) {...}, done)
/// or each_series: an async function of its own, built with its handler.
bool Builder::buildCombinator(const LambdaExpr *L, Combinator::Kind K, const Expr *Count, AsyncCallNode &N) {
  const CXXMethodDecl *Op = branchOperator(L);
  if (!Op)
    return true; // not the documented shape: the call stays a plain leaf call
  if (!checkCaptures(L, "branch", "branches may outlive this scope: capture by value"))
    return false;
  auto Comb = std::make_unique<Combinator>();
  Comb->K = K;
  Comb->Where.Raw = L->getBeginLoc().getRawEncoding();
  auto CountText = textOf(Count);
  if (!CountText) {
    refuse(ids::Macro, Count, "count comes from a macro expansion; cannot convert");
    return false;
  }
  Comb->Count = *CountText;
  const ParmVarDecl *Index = Op->getParamDecl(0);
  if (Index->getIdentifier())
    Comb->Index = varId(Index);
  Comb->IndexType = writtenType(Index);
  const ParmVarDecl *BranchHandler = Op->getParamDecl(1);
  if (!BranchHandler->getIdentifier()) {
    refuse(ids::NotCalled, BranchHandler->getLocation(), SourceRange(),
           "branch ignores its handler; it can never complete");
    return false;
  }
  Comb->Handler = varId(BranchHandler);
  if (auto CT = asCallbackType(BranchHandler->getType()); CT && CT->HasValue)
    Comb->ItemType = printType(CT->Value, Ctx);
  // What the branch reads from the enclosing function.
  class Captures : public RecursiveASTVisitor<Captures> {
  public:
    Captures(Builder &B, const CXXMethodDecl *Op) : B(B), Op(Op) {}
    bool VisitDeclRefExpr(DeclRefExpr *E) {
      if (const auto *VD = dyn_cast<VarDecl>(E->getDecl()))
        if (B.isLocal(VD) && !isWithin(VD->getDeclContext(), Op) && !B.isAsyncName(VD))
          Found.insert(VD);
      return true;
    }
    Builder &B;
    const CXXMethodDecl *Op;
    llvm::SetVector<const VarDecl *> Found;
  } Scan(*this, Op);
  Scan.TraverseStmt(Op->getBody());
  for (const VarDecl *VD : Scan.Found)
    Comb->Captured.push_back(varId(VD));

  // Build the body with the branch's own handler; the enclosing function's
  // handler and named continuations stay visible only to be refused.
  const ParmVarDecl *SavedHandler = Handler;
  auto SavedConts = std::move(ContIds);
  auto SavedLoops = std::move(Loops);
  ContIds.clear();
  Loops.clear();
  Handler = BranchHandler;
  AsyncNames.insert(BranchHandler);
  buildBlock(Op->getBody(), Comb->Body);
  Handler = SavedHandler;
  ContIds = std::move(SavedConts);
  Loops = std::move(SavedLoops);
  N.Comb = std::move(Comb);
  return !Failed;
}

bool Builder::buildCall(const Expr *E, bool IsReturn, Block &Out) {
  const auto *C = dyn_cast<CallExpr>(E->IgnoreImplicit());
  if (!C)
    return false;
  CallArgs A = callArguments(C);
  const VarDecl *ObjectVar = A.Object ? referencedVar(stripArgument(A.Object)) : nullptr;
  auto account = [&](const Expr *Ref) {
    if (const auto *DRE = dyn_cast_or_null<DeclRefExpr>(stripArgument(Ref)->IgnoreParenImpCasts()))
      Accounted.insert(DRE);
  };

  if (buildRecur(C, IsReturn, Out))
    return true;

  if (ObjectVar && isAsyncName(ObjectVar) && ObjectVar != Handler && !ContIds.count(ObjectVar)) {
    refuse(ids::ForeignHandler, C,
           "'" + ObjectVar->getNameAsString() +
               "' belongs to the enclosing function, not to this branch; cannot convert");
    return true;
  }

  // done(err) / done({}, v)
  if (ObjectVar && ObjectVar == Handler) {
    account(A.Object);
    auto N = std::make_unique<CompleteNode>();
    N->Where.Raw = C->getBeginLoc().getRawEncoding();
    N->IsReturn = IsReturn;
    if (A.Args.empty() || A.Args.size() > 2) {
      refuse(ids::UnsupportedStatement, C, "handler called with an unexpected number of arguments; cannot convert");
      return true;
    }
    for (const Expr *Arg : A.Args)
      if (mentionsAsync(Arg)) {
        refuse(ids::AsyncInExpression, Arg, "handler or named continuation used in an argument; cannot convert");
        return true;
      }
    N->Err = errorArg(A.Args[0]);
    if (A.Args.size() == 2) {
      N->HasValue = true;
      if (auto T = textOf(A.Args[1]))
        N->Value = *T;
      else
        refuse(ids::Macro, A.Args[1], "argument comes from a macro expansion; cannot convert");
      N->ValueWithError = !N->Err.IsSuccess && !isDefaultValue(A.Args[1]) && !isForwardedValue(A.Args[0], A.Args[1]);
    }
    Out.push_back(std::move(N));
    return true;
  }

  // next(err, v): a jump to a named continuation.
  if (ObjectVar && ContIds.count(ObjectVar)) {
    account(A.Object);
    auto N = std::make_unique<JumpNode>();
    N->Where.Raw = C->getBeginLoc().getRawEncoding();
    N->IsReturn = IsReturn;
    N->Target = ContIds[ObjectVar];
    for (const Expr *Arg : A.Args)
      if (mentionsAsync(Arg)) {
        refuse(ids::AsyncInExpression, Arg, "handler or named continuation used in an argument; cannot convert");
        return true;
      }
    if (A.Args.empty()) {
      refuse(ids::UnsupportedStatement, C, "named continuation called without an error argument; cannot convert");
      return true;
    }
    N->Err = errorArg(A.Args[0]);
    if (A.Args.size() >= 2) {
      N->HasValue = true;
      if (auto T = textOf(A.Args[1]))
        N->Value = *T;
    }
    Out.push_back(std::move(N));
    return true;
  }

  if (A.Args.empty())
    return false;
  const Expr *LastArg = A.Args.back();
  const Expr *Last = stripArgument(LastArg);
  const auto *Lambda = dyn_cast<LambdaExpr>(Last);
  const VarDecl *LastVar = referencedVar(Last);
  const bool IsContinuation = Lambda && isContinuationShaped(Lambda);
  const bool IsForward = LastVar && LastVar == Handler;
  const bool IsNamed = LastVar && ContIds.count(LastVar);
  if (LastVar && isAsyncName(LastVar) && !IsForward && !IsNamed) {
    refuse(ids::ForeignHandler, LastArg,
           "'" + LastVar->getNameAsString() + "' belongs to the enclosing function, not to this branch; cannot convert");
    return true;
  }
  if (Lambda && isGenericContinuation(Lambda) && mentionsAsync(Lambda)) {
    refuseGenericContinuation(Lambda);
    return true;
  }
  if (IsContinuation && !mentionsAsync(Lambda))
    return false; // detached (fire-and-forget): a plain statement
  if (!IsContinuation && !IsForward && !IsNamed) {
    if (LastVar && asCallbackType(LastVar->getType()) && mentionsAsync(LastArg))
      return false;
    return false;
  }
  // Handing a continuation or the handler to the standard library (a
  // container's push_back, a std::function, ...) stores it: not an async call.
  if (const FunctionDecl *Callee = C->getDirectCallee(); Callee && isInStd(Callee)) {
    SourceLocation L = LastArg->getBeginLoc();
    if (IsForward)
      refuse(ids::HandlerEscapes, L, SourceRange(L, L),
             "handler '" + Handler->getName().str() + "' is stored by the standard library; cannot convert");
    else
      refuse(ids::ContinuationEscapes, L, SourceRange(L, L),
             "continuation is stored by the standard library ('" + Callee->getQualifiedNameAsString() +
                 "'); cannot convert");
    return true;
  }
  for (unsigned I = 0; I + 1 < A.Args.size(); ++I)
    if (mentionsAsync(A.Args[I])) {
      refuse(ids::AsyncInExpression, A.Args[I], "handler or named continuation used in an argument; cannot convert");
      return true;
    }
  if (A.Object && mentionsAsync(A.Object)) {
    refuse(ids::AsyncInExpression, A.Object, "handler or named continuation used as a callee; cannot convert");
    return true;
  }

  auto N = std::make_unique<AsyncCallNode>();
  N->Where.Raw = C->getBeginLoc().getRawEncoding();
  N->IsReturn = IsReturn;
  if (!fillCallTexts(C, LastArg, *N))
    return true;

  // The value type: the callee's callback<T> as the argument was converted to.
  std::optional<CallbackType> CT = asCallbackType(LastArg->getType());
  if (!CT && IsForward)
    CT = asCallbackType(Handler->getType());

  Combinator::Kind K;
  if (const LambdaExpr *Branch = combinatorBranch(C, &K))
    if (!buildCombinator(Branch, K, C->getArg(0), *N))
      return true;

  if (IsForward) {
    account(LastArg);
    N->Handler = AsyncCallNode::HandlerKind::Forward;
    if (CT && CT->HasValue)
      N->ValueType = valueType(CT->Value);
    Out.push_back(std::move(N));
    return true;
  }

  if (IsNamed) {
    // std::move(next) and a use of next elsewhere: the other use would see a
    // moved-from lambda in the callback original.
    const Expr *Inner = LastArg->IgnoreImplicit();
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(Inner); Construct && Construct->getNumArgs() >= 1)
      Inner = Construct->getArg(0)->IgnoreImplicit();
    if (const auto *Move = dyn_cast<CallExpr>(Inner); Move && Move->getDirectCallee() &&
                                                       Move->getDirectCallee()->isInStdNamespace() &&
                                                       Move->getDirectCallee()->getName() == "move") {
      unsigned Uses = 0;
      class Count : public RecursiveASTVisitor<Count> {
      public:
        explicit Count(const VarDecl *V, unsigned &N) : V(V), N(N) {}
        bool VisitDeclRefExpr(DeclRefExpr *E) {
          N += E->getDecl() == V;
          return true;
        }
        const VarDecl *V;
        unsigned &N;
      } Counter(LastVar, Uses);
      Counter.TraverseStmt(FD->getBody());
      if (Uses > 1) {
        refuse(ids::MovedContinuation, LastArg,
               "named continuation '" + LastVar->getNameAsString() +
                   "' is moved here and used elsewhere; cannot convert (the other use sees a moved-from lambda)");
        return true;
      }
    }
    account(LastArg);
    // op(args, next) is op(args, [=](error e, T v) { next(e, v); }).
    const ContDefNode *Target = F.Conts[ContIds[LastVar]];
    const Var *TargetErr = Target->Cont.Err != NoVar ? &F.Vars[Target->Cont.Err] : nullptr;
    N->Cont.Err = syntheticVar(TargetErr ? TargetErr->Name : "err", "asyncshift::error", true);
    auto J = std::make_unique<JumpNode>();
    J->Where = N->Where;
    J->Target = Target->Id;
    J->Err.Present = true;
    J->Err.Var = N->Cont.Err;
    J->Err.Expr.Source = F.Vars[N->Cont.Err].Name;
    J->Err.Expr.Refs.push_back({0, static_cast<unsigned>(J->Err.Expr.Source.size()), N->Cont.Err});
    J->IsReturn = true;
    if (Target->Cont.HasValueParam) {
      N->Cont.HasValueParam = true;
      const Var *TargetValue = Target->Cont.Value != NoVar ? &F.Vars[Target->Cont.Value] : nullptr;
      N->Cont.Value = syntheticVar(TargetValue ? TargetValue->Name : "value", TargetValue ? TargetValue->Type : "", false);
      J->HasValue = true;
      J->Value.Source = F.Vars[N->Cont.Value].Name;
      J->Value.Refs.push_back({0, static_cast<unsigned>(J->Value.Source.size()), N->Cont.Value});
    }
    N->Cont.Body.push_back(std::move(J));
    if (CT && CT->HasValue)
      N->ValueType = valueType(CT->Value);
    Out.push_back(std::move(N));
    return true;
  }

  // An inline continuation.
  if (!buildContinuation(Lambda, N->Cont))
    return true;
  const CXXMethodDecl *Op = Lambda->getCallOperator();
  if (CT && CT->HasValue) {
    N->ValueType = valueType(CT->Value);
    if (Op->getNumParams() == 2) {
      const ParmVarDecl *P = Op->getParamDecl(1);
      QualType Declared = P->getType().getNonReferenceType().getUnqualifiedType();
      if (Ctx.hasSameType(Declared.getCanonicalType(), CT->Value.getCanonicalType()))
        N->ValueType = writtenType(P); // the user's spelling of the same type
      else
        N->ValueDeclType = writtenType(P);
    }
  } else if (!CT && Op->getNumParams() == 2) {
    N->ValueType = writtenType(Op->getParamDecl(1));
  }
  Out.push_back(std::move(N));
  return true;
}

// ---- Whole-function checks -------------------------------------------------------

/// Is \p E what a call calls (`next(err, v)`, a lambda's operator())?
bool Builder::isCallee(const DeclRefExpr *E) const {
  const Stmt *Child = E;
  // (A lambda body has two parents, the lambda and its call operator: either will do.)
  for (DynTypedNodeList Parents = Ctx.getParents(*E); !Parents.empty(); Parents = Ctx.getParents(Parents[0])) {
    const Stmt *P = Parents[0].get<Stmt>();
    if (!P)
      return false;
    if (isa<ImplicitCastExpr, ParenExpr>(P)) {
      Child = P;
      continue;
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(P))
      return Op->getOperator() == OO_Call && Op->getNumArgs() > 0 && Op->getArg(0) == Child;
    if (const auto *Call = dyn_cast<CallExpr>(P))
      return Call->getCallee() == Child;
    return false;
  }
  return false;
}

/// Is \p E inside a generic lambda (the recursive-lambda loop idiom's)?
bool Builder::inGenericLambda(const Stmt *E) const {
  for (DynTypedNodeList Parents = Ctx.getParents(*E); !Parents.empty(); Parents = Ctx.getParents(Parents[0])) {
    if (const auto *L = Parents[0].get<LambdaExpr>())
      return L->isGenericLambda();
    if (const auto *F = Parents[0].get<FunctionDecl>()) {
      const auto *M = dyn_cast<CXXMethodDecl>(F);
      return M && M->getParent()->isLambda() && M->getParent()->isGenericLambda();
    }
  }
  return false;
}

/// A use of a named continuation the IR cannot account for.
void Builder::refuseEscape(const DeclRefExpr *E) {
  SourceLocation L = E->getLocation();
  const std::string Name = E->getDecl()->getName().str();
  if (isCallee(E) && inGenericLambda(E))
    return refuse(ids::ContinuationEscapes, L, SourceRange(L, L),
                  "named continuation '" + Name +
                      "' is called inside a recursive-lambda loop in a way the loop cannot convert (a loop may "
                      "call a named continuation from one place, to end it); cannot convert (call '" + Name +
                      "' from one place in the loop, and end its other paths with the handler)");
  refuse(ids::ContinuationEscapes, L, SourceRange(L, L),
         "named continuation '" + Name + "' is used other than by calling it or passing it as a handler; cannot convert");
}

void Builder::checkEscapes() {
  AsyncRefCollector Collector(*this);
  Collector.TraverseStmt(FD->getBody());
  for (const DeclRefExpr *E : Collector.Found) {
    if (Accounted.count(E))
      continue;
    // The definition of a named continuation refers to itself only through
    // its DeclStmt, never through a DeclRefExpr; any other use escapes.
    SourceLocation L = E->getLocation();
    if (isa<ParmVarDecl>(E->getDecl()) && !ContIds.count(cast<VarDecl>(E->getDecl())))
      refuse(ids::HandlerEscapes, L, SourceRange(L, L),
             "handler '" + E->getDecl()->getName().str() +
                 "' is used other than by calling or forwarding it; cannot convert");
    else
      refuseEscape(E);
    return;
  }
}

/// The local references of \p Body that may change what they name (`auto &r
/// = v;`, not `const auto &`).
static std::vector<const VarDecl *> mutableReferencesIn(const Stmt *Body) {
  struct Finder : RecursiveASTVisitor<Finder> {
    std::vector<const VarDecl *> Refs;
    bool VisitVarDecl(VarDecl *D) {
      if (D->getType()->isReferenceType() && !D->getType().getNonReferenceType().isConstQualified() && D->getInit())
        Refs.push_back(D);
      return true;
    }
  } F;
  F.TraverseStmt(const_cast<Stmt *>(Body));
  return std::move(F.Refs);
}

/// \p V and those of \p Refs that name it, directly or through one another.
static std::vector<const VarDecl *> aliasesOf(const VarDecl *V, const std::vector<const VarDecl *> &Refs) {
  std::vector<const VarDecl *> Aliases{V};
  for (bool Grew = true; Grew;) {
    Grew = false;
    for (const VarDecl *R : Refs) {
      const auto *Named = dyn_cast<DeclRefExpr>(R->getInit()->IgnoreParenImpCasts());
      if (Named && llvm::is_contained(Aliases, Named->getDecl()) && !llvm::is_contained(Aliases, R)) {
        Aliases.push_back(R);
        Grew = true;
      }
    }
  }
  return Aliases;
}

/// A named continuation captured its variables by copy when it was defined;
/// after flattening it reads the variables themselves. Refuse when any of them
/// may change in between, directly or through a local reference to it.
void Builder::checkJoinCaptures() {
  std::optional<std::vector<const VarDecl *>> References; // found once, when a continuation captures something
  for (auto [VD, DS] : ContDecls) {
    const auto *L = dyn_cast<LambdaExpr>(stripArgument(VD->getInit()));
    if (!L)
      continue;
    // The statements after the definition, in the enclosing compound statement.
    const Stmt *Parent = nullptr;
    for (const auto &P : Ctx.getParents(*DS))
      if ((Parent = P.get<CompoundStmt>()))
        break;
    if (!Parent)
      continue;
    // Each captured variable, with the local references that can change it.
    std::vector<std::pair<const VarDecl *, std::vector<const VarDecl *>>> Watched;
    for (const LambdaCapture &Cap : L->captures()) {
      const auto *Captured = Cap.capturesVariable() ? dyn_cast<VarDecl>(Cap.getCapturedVar()) : nullptr;
      if (!Captured || Captured == Handler || ContIds.count(Captured))
        continue;
      if (!References)
        References = mutableReferencesIn(FD->getBody());
      Watched.emplace_back(Captured, aliasesOf(Captured, *References));
    }
    bool After = false;
    for (const Stmt *Sibling : cast<CompoundStmt>(Parent)->body()) {
      if (Sibling == DS) {
        After = true;
        continue;
      }
      if (!After)
        continue;
      ExprMutationAnalyzer Analyzer(*const_cast<Stmt *>(Sibling), Ctx);
      for (const auto &[Captured, Aliases] : Watched) {
        for (const VarDecl *Alias : Aliases) {
          if (!Analyzer.isMutated(Alias))
            continue;
          std::string Through =
              Alias == Captured ? "" : " (through reference '" + Alias->getNameAsString() + "')";
          refuse(ids::JoinCaptureModified, Sibling,
                 "'" + Captured->getNameAsString() + "' is modified" + Through + " after named continuation '" +
                     VD->getNameAsString() + "' captured it; cannot convert");
          return;
        }
      }
    }
  }
}

/// Var::CopiedThenChangedRaw: a lambda of the source that copies a variable
/// of the function, which changes later (a use after the lambda, outside
/// it, that the mutation analysis calls a mutation; or any mutation inside
/// a mutable lambda, which changes the copy).
void Builder::markCopiesThatChange() {
  struct Collect : RecursiveASTVisitor<Collect> {
    bool VisitLambdaExpr(LambdaExpr *L) {
      Lambdas.push_back(L);
      return true;
    }
    bool VisitDeclRefExpr(DeclRefExpr *E) {
      Uses.push_back(E);
      return true;
    }
    std::vector<const LambdaExpr *> Lambdas;
    std::vector<const DeclRefExpr *> Uses;
  } All;
  All.TraverseStmt(FD->getBody());
  if (All.Lambdas.empty())
    return;
  ExprMutationAnalyzer Whole(*FD->getBody(), Ctx);
  for (const LambdaExpr *L : All.Lambdas) {
    const SourceRange Inside = L->getSourceRange();
    auto within = [&](SourceLocation Loc) {
      return !SM.isBeforeInTranslationUnit(Loc, Inside.getBegin()) && !SM.isBeforeInTranslationUnit(Inside.getEnd(), Loc);
    };
    std::optional<ExprMutationAnalyzer> InBody;
    for (const LambdaCapture &Cap : L->captures()) {
      if (!Cap.capturesVariable() || Cap.getCaptureKind() != LCK_ByCopy)
        continue;
      const ValueDecl *D = Cap.getCapturedVar();
      auto Id = VarIds.find(D);
      if (Id == VarIds.end() || F.Vars[Id->second].CopiedThenChangedRaw)
        continue;
      bool Changes = false;
      for (const DeclRefExpr *E : All.Uses) {
        if (E->getDecl() != D || Changes)
          continue;
        if (within(E->getLocation())) {
          if (L->isMutable()) {
            if (!InBody)
              InBody.emplace(*L->getBody(), Ctx);
            Changes = InBody->isMutated(E);
          }
        } else if (SM.isBeforeInTranslationUnit(Inside.getEnd(), E->getLocation())) {
          Changes = Whole.isMutated(E);
        }
      }
      if (Changes)
        F.Vars[Id->second].CopiedThenChangedRaw = Cap.getLocation().getRawEncoding();
    }
  }
}

/// Identifiers in named continuations that are not the function's variables
/// (globals, functions, types): flattened declarations must not shadow them.
void Builder::collectJoinOuterNames() {
  for (auto [VD, DS] : ContDecls) {
    auto Off = offsets(DS->getSourceRange());
    if (!Off)
      continue;
    Text T = textAt(Off->first, Off->second);
    Lexer Raw(SM.getLocForStartOfFile(MainFID), LO, Buffer.begin(), Buffer.begin() + Off->first,
              Buffer.begin() + Off->second);
    Token Tok;
    tok::TokenKind Prev = tok::unknown;
    while (!Raw.LexFromRawLexer(Tok)) {
      if (Tok.is(tok::raw_identifier) && Prev != tok::period && Prev != tok::arrow && Prev != tok::coloncolon) {
        unsigned Offset = SM.getFileOffset(Tok.getLocation());
        if (!RefOffsets.count(Offset))
          F.JoinOuterNames.insert(Tok.getRawIdentifier().str());
      }
      Prev = Tok.getKind();
      if (SM.getFileOffset(Tok.getLocation()) >= Off->second)
        break;
    }
    (void)T;
  }
}

std::optional<AsyncFunction> Builder::run() {
  if (FD->isTemplated()) {
    refuse(ids::TemplateFunction, FD->getLocation(), SourceRange(FD->getLocation(), FD->getLocation()),
           std::string("async function template; cannot convert yet (to keep it in callback style and convert the "
                       "rest, mark it ") +
               LeafAttribute + ")");
    return std::nullopt;
  }
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD); MD && MD->isVirtual()) {
    // Its signature is shared with the base class and every override; the
    // others (a leaf override, a base declared elsewhere) would keep theirs.
    refuse(ids::VirtualFunction, FD->getLocation(), SourceRange(FD->getLocation(), FD->getLocation()),
           "virtual member function '" + FD->getNameAsString() +
               "': converting it changes a signature its base and overrides share; cannot convert (to keep it in "
               "callback style and convert the rest, mark it " +
               LeafAttribute + ")");
    return std::nullopt;
  }
  for (const FunctionDecl *Redecl : FD->redecls()) {
    const ParmVarDecl *H = Redecl->getParamDecl(Redecl->getNumParams() - 1);
    if (H->hasDefaultArg() && !H->hasInheritedDefaultArg()) {
      // Calls that leave it out would need a handler made up for them.
      refuse(ids::DefaultedHandler, H->getLocation(), H->getSourceRange(),
             "handler parameter of '" + FD->getNameAsString() +
                 "' has a default argument: a call that leaves it out would have no handler once converted; cannot "
                 "convert yet (drop the default and pass a handler at each call)");
      return std::nullopt;
    }
  }
  Handler = handlerParam(FD);
  assert(Handler && "not an async function");
  AsyncNames.insert(Handler);
  MainFID = SM.getMainFileID();
  Buffer = SM.getBufferData(MainFID);
  F.Name = FD->getNameAsString();
  F.Where.Raw = FD->getLocation().getRawEncoding();
  F.Handler = varId(Handler);
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
    F.IsMember = MD->isInstance();
  for (const ParmVarDecl *P : FD->parameters())
    if (P != Handler && P->getIdentifier())
      F.Params.push_back(varId(P));
  if (auto CT = asCallbackType(Handler->getType()); CT && CT->HasValue) {
    F.ResultType = valueType(CT->Value);
    // The handler's written template argument, when it is there to read.
    if (const TypeSourceInfo *TSI = Handler->getTypeSourceInfo()) {
      TypeLoc TL = TSI->getTypeLoc();
      if (auto Ref = TL.getAs<ReferenceTypeLoc>())
        TL = Ref.getPointeeLoc();
      if (auto Qual = TL.getAs<QualifiedTypeLoc>())
        TL = Qual.getUnqualifiedLoc();
      if (auto Elab = TL.getAs<ElaboratedTypeLoc>())
        TL = Elab.getNamedTypeLoc();
      if (auto Spec = TL.getAs<TemplateSpecializationTypeLoc>(); Spec && Spec.getNumArgs() == 1)
        if (auto Off = offsets(Spec.getArgLoc(0).getSourceRange()))
          F.ResultType = Buffer.slice(Off->first, Off->second).str();
    }
  }

  // Every identifier in the function, for fresh names.
  if (auto Off = offsets(FD->getSourceRange())) {
    Lexer Raw(SM.getLocForStartOfFile(MainFID), LO, Buffer.begin(), Buffer.begin() + Off->first,
              Buffer.begin() + Off->second);
    Token Tok;
    while (!Raw.LexFromRawLexer(Tok) && SM.getFileOffset(Tok.getLocation()) < Off->second)
      if (Tok.is(tok::raw_identifier))
        F.Identifiers.insert(Tok.getRawIdentifier().str());
  }

  RefCollector Collector(*this);
  Collector.TraverseDecl(const_cast<FunctionDecl *>(FD));
  llvm::sort(Refs, [](const Text::Ref &A, const Text::Ref &B) { return A.Offset < B.Offset; });
  llvm::sort(ThisUses);

  // Reference parameters would dangle once the function suspends.
  for (const ParmVarDecl *P : FD->parameters())
    if (P != Handler && P->getType()->isReferenceType()) {
      refuse(ids::ReferenceParameter, P->getLocation(), P->getSourceRange(),
             "parameter '" + P->getNameAsString() +
                 "' is a reference; cannot convert (the converted function outlives the call: take it by value, "
                 "or by pointer for an object whose state the call must share, which must then outlive it)");
      return std::nullopt;
    }

  buildBlock(FD->getBody(), F.Body);
  if (!Failed)
    checkEscapes();
  if (!Failed)
    checkJoinCaptures();
  if (Failed)
    return std::nullopt;
  markCopiesThatChange();
  collectJoinOuterNames();
  return std::move(F);
}

std::optional<AsyncFunction> buildIR(ASTContext &Ctx, const FunctionDecl *FD, const ConvertedSet &Converted,
                                     std::vector<Finding> &Findings) {
  Builder B(Ctx, FD, Converted, Findings);
  return B.run();
}

/// A callback<...>, or another object that is called like one
/// (`thread_completion<T>`, what `from_any_thread(cb)` makes).
static bool returnsHandler(QualType T) {
  if (asCallbackType(T))
    return true;
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  if (!RD || !RD->hasDefinition() || RD->isLambda())
    return false;
  return !RD->lookup(RD->getASTContext().DeclarationNames.getCXXOperatorName(OO_Call)).empty();
}

bool isAsyncFunction(const FunctionDecl *FD) {
  const ParmVarDecl *Handler = handlerParam(FD);
  if (!Handler)
    Handler = dependentHandlerParam(FD);
  if (!Handler || !FD->hasBody() || isForcedLeaf(FD))
    return false;
  // An async call reaches the handler: it forwards it, or its continuation
  // (transitively) refers to it. Named continuations count through their uses.
  class Finder : public RecursiveASTVisitor<Finder> {
  public:
    explicit Finder(const ParmVarDecl *H) : Handler(H) {}
    bool VisitCallExpr(CallExpr *C) {
      CallArgs A = callArguments(C);
      if (A.Args.empty())
        return true;
      // Not async calls: the standard library's (`std::move(cb)` into a
      // capture, `queue.push_back(std::move(done))`), and calls that wrap the
      // handler into another (`from_any_thread(std::move(cb))`): a function
      // that only keeps its handler somewhere to complete it later is a leaf.
      if ((A.Callee && isInStd(A.Callee)) || returnsHandler(C->getType()))
        return true;
      const Expr *Last = stripArgument(A.Args.back());
      // Generic continuations count too, so that they are refused rather
      // than left unconverted without a word.
      if (const auto *L = dyn_cast<LambdaExpr>(Last); L && (isContinuationShaped(L) || isGenericContinuation(L))) {
        Found = true;
        return false;
      }
      if (const VarDecl *V = referencedVar(Last)) {
        const auto *Init = V->getInit() ? dyn_cast<LambdaExpr>(stripArgument(V->getInit())) : nullptr;
        if (V == Handler || isContinuationVar(V) || isGenericContinuation(Init)) {
          Found = true;
          return false;
        }
      }
      return true;
    }
    const ParmVarDecl *Handler;
    bool Found = false;
  } Find(Handler);
  Find.TraverseStmt(FD->getBody());
  return Find.Found;
}

} // namespace asyncshift
