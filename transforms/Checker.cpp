//===- Checker.cpp - Static analysis of callback code (--check) -----------===//
//
// Turns what the path walk (CheckPaths.h) and the capture check
// (CheckCaptures.h) found into findings, and decides the one thing neither
// can decide alone: which lambdas are branches of a fan-out join. A lambda
// that completes the handler on some paths only, passed on more than once on
// one path (or in a loop), is the counter idiom of SPEC §3 pattern 6: its
// early returns wait for the other branches, so they are not reported.
//
//===----------------------------------------------------------------------===//

#include "Checker.h"
#include "AsyncModel.h"
#include "CheckCaptures.h"
#include "CheckPaths.h"

#include "clang/AST/ASTLambda.h"
#include "clang/AST/Attr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

#include <algorithm>
#include <set>

using namespace clang;

namespace asyncshift {

using namespace check;

namespace {

Loc locOf(SourceLocation L) { return Loc{L.getRawEncoding()}; }

/// How a finding names a callable: 'upload', continuation, named continuation 'next'.
std::string nameOf(const Callable &C) {
  if (!C.isLambda())
    return quoted(C.Decl);
  if (C.NamedAs)
    return (C.ContinuationShaped ? "named continuation " : "lambda ") + quoted(C.NamedAs);
  return C.ContinuationShaped ? "continuation" : "lambda";
}

SourceLocation whereOf(const Callable &C) {
  if (C.NamedAs)
    return C.NamedAs->getLocation();
  return C.isLambda() ? C.Lambda->getBeginLoc() : C.Decl->getLocation();
}

Finding makeFinding(const char *Id, SourceLocation Where, std::string Message, Witness Notes = {}) {
  Finding F;
  F.Id = Id;
  F.Where = locOf(Where);
  F.Message = std::move(Message);
  F.Notes = std::move(Notes);
  return F;
}

Finding calledTwice(const Event &Second, const ParmVarDecl *H, Witness Path) {
  std::string Message = "handler " + quoted(H) + " may be called twice on this path";
  switch (Second.K) {
  case Event::Kind::Call:
    break;
  case Event::Kind::Invoke:
    Message += ": " + (Second.Via ? quoted(Second.Via) : std::string("this lambda")) + " calls it again";
    break;
  case Event::Kind::PassOn:
    Message += ": it is passed on again here";
    break;
  case Event::Kind::Store:
    Message += ": it is stored again here";
    break;
  }
  return makeFinding(ids::CalledTwice, Second.Site->getBeginLoc(), std::move(Message), std::move(Path));
}

/// Every function defined in the main file (the lambdas inside a function come
/// with it; a lambda outside any function is a root of its own).
class RootFinder : public RecursiveASTVisitor<RootFinder> {
public:
  explicit RootFinder(const SourceManager &SM) : SM(SM) {}
  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (FD->doesThisDeclarationHaveABody() && !FD->isTemplateInstantiation() && !isLambdaCallOperator(FD) &&
        inMainFile(FD->getLocation()))
      Found.push_back(FD);
    return true;
  }
  bool TraverseLambdaExpr(LambdaExpr *L) {
    if (Depth == 0 && inMainFile(L->getBeginLoc()))
      Found.push_back(L->getCallOperator());
    ++Depth;
    bool R = RecursiveASTVisitor::TraverseLambdaExpr(L);
    --Depth;
    return R;
  }
  bool TraverseDecl(Decl *D) {
    bool IsFunction = D && isa<FunctionDecl>(D);
    Depth += IsFunction;
    bool R = RecursiveASTVisitor::TraverseDecl(D);
    Depth -= IsFunction;
    return R;
  }
  std::vector<const FunctionDecl *> Found;

private:
  bool inMainFile(SourceLocation L) const { return SM.isWrittenInMainFile(SM.getExpansionLoc(L)); }
  const SourceManager &SM;
  unsigned Depth = 0;
};

} // namespace

Checker::Checker(ASTContext &Ctx) : Ctx(Ctx), Paths(std::make_unique<PathAnalyzer>(Ctx)) {}
Checker::~Checker() = default;

std::vector<Finding> Checker::check(const FunctionDecl *FD, bool CompletionOnly) {
  std::vector<Finding> Out;
  if (!FD || !FD->hasBody())
    return Out;
  const FunctionModel &M = Paths->modelOf(FD);

  // Called twice; and which lambdas are branches of a fan-out join.
  std::set<const Callable *> Joins;
  for (const auto &C : M.callables()) {
    const ParmVarDecl *H = C->Obligation;
    if (!H)
      continue;
    const PathResult &R = Paths->walk(M, *C, H);
    if (!R.Complete)
      continue;
    for (const auto &T : R.Twice) {
      const Event &First = R.Events[T.First], &Second = R.Events[T.Second];
      bool FirstPartial = Paths->isPartial(M, First, H), SecondPartial = Paths->isPartial(M, Second, H);
      // A lambda that completes only on failure is no join branch: reached
      // twice, or beside another completion, a failure completes twice. Its
      // success path finishing without the handler is then not a finding
      // of its own (the other completion is the one that counts).
      const Callable *FailureOnly = nullptr;
      for (const Event *E : {&First, &Second})
        if (Paths->isFailureOnly(M, *E, H)) {
          FailureOnly = E->Target;
          Joins.insert(E->Target);
        }
      if (!FailureOnly && (FirstPartial || SecondPartial)) {
        if (FirstPartial)
          Joins.insert(First.Target);
        if (SecondPartial)
          Joins.insert(Second.Target);
        continue;
      }
      Out.push_back(calledTwice(Second, H, T.Path));
      if (FailureOnly)
        Out.back().Notes.push_back({locOf(whereOf(*FailureOnly)), "this lambda completes " + quoted(H) +
                                                               " whenever its error is set, guarded by no shared "
                                                               "counter or flag: it is no branch of a join"});
    }
  }

  // Not called.
  for (const auto &C : M.callables()) {
    const ParmVarDecl *H = C->Obligation;
    if (!H || Joins.count(C.get()))
      continue;
    const PathResult &R = Paths->walk(M, *C, H);
    if (!R.Complete || !R.NotCalled)
      continue;
    std::string Whose = C->OwnHandler == H ? "its handler " : "handler ";
    Out.push_back(makeFinding(ids::NotCalled, whereOf(*C),
                              nameOf(*C) + " can finish without calling, forwarding or passing on " + Whose + quoted(H),
                              *R.NotCalled));
  }

  if (!CompletionOnly) {
    // Error ignored.
    for (const auto &C : M.callables()) {
      if (!C->ErrorParam || C->ErrorParam->hasAttr<UnusedAttr>())
        continue;
      const PathResult &R = Paths->walk(M, *C, C->Obligation);
      if (!R.Complete)
        continue;
      const std::optional<Witness> &W = Joins.count(C.get()) ? R.ErrorIgnoredCompleting : R.ErrorIgnored;
      if (W)
        Out.push_back(makeFinding(ids::ErrorIgnored, C->ErrorParam->getLocation(),
                                  nameOf(*C) + " names its error " + quoted(C->ErrorParam) +
                                      " but can finish without reading it",
                                  *W));
    }

    // Mixed sync/async completion.
    for (const auto &C : M.callables()) {
      const ParmVarDecl *H = C->OwnHandler;
      if (!H)
        continue;
      const PathResult &R = Paths->walk(M, *C, H);
      if (!R.Complete)
        continue;
      const PathResult::FirstOnPath *Sync = nullptr, *Async = nullptr;
      for (const auto &F : R.Firsts) {
        unsigned T = Paths->timingOf(M, R.Events[F.Event], H);
        if ((T & TimingSync) && !Sync)
          Sync = &F;
        if ((T & TimingAsync) && !Async)
          Async = &F;
      }
      if (!Sync || !Async)
        continue;
      Witness Notes = Sync->Path;
      Notes.push_back({locOf(Paths->siteWithTiming(M, R.Events[Sync->Event], H, TimingSync)->getBeginLoc()),
                       "completes " + quoted(H) + " synchronously here, before the call returns"});
      Notes.push_back({locOf(Paths->siteWithTiming(M, R.Events[Async->Event], H, TimingAsync)->getBeginLoc()),
                       "completes " + quoted(H) + " asynchronously here, after the call returned"});
      Out.push_back(makeFinding(ids::MixedSyncAsync, whereOf(*C),
                                nameOf(*C) + " completes " + quoted(H) +
                                    " synchronously on some paths and asynchronously on others",
                                std::move(Notes)));
    }

    danglingCaptures(M, /*ThisOnly=*/false, Out);
  }

  const SourceManager &SM = Ctx.getSourceManager();
  std::stable_sort(Out.begin(), Out.end(), [&](const Finding &A, const Finding &B) {
    return SM.isBeforeInTranslationUnit(SourceLocation::getFromRawEncoding(A.Where.Raw),
                                        SourceLocation::getFromRawEncoding(B.Where.Raw));
  });
  return Out;
}

std::vector<Finding> Checker::checkDanglingThis(const FunctionDecl *FD) {
  std::vector<Finding> Out;
  if (!FD || !FD->hasBody())
    return Out;
  danglingCaptures(Paths->modelOf(FD), /*ThisOnly=*/true, Out);
  return Out;
}

bool Checker::runsLater(const FunctionModel &M, const CallExpr *Call, unsigned ArgIndex) {
  return Paths->calleeTiming(M, Call->getDirectCallee(), ArgIndex) != TimingSync;
}

void Checker::danglingCaptures(const FunctionModel &M, bool ThisOnly, std::vector<Finding> &Out) {
  check::checkDanglingCaptures(
      M, [&](const CallExpr *Call, unsigned ArgIndex) { return runsLater(M, Call, ArgIndex); },
      [&](const CXXMethodDecl *Method) { return thisEscape(Method); }, ThisOnly, Out);
}

std::optional<SourceLocation> Checker::thisEscape(const CXXMethodDecl *Method) {
  const FunctionDecl *Def = nullptr;
  if (!Method || !Method->hasBody(Def) || !Def || isInNamespace(Def, "asyncshift") || isInNamespace(Def, "std") ||
      Method->getParent()->isLambda())
    return std::nullopt; // the runtime's handles own what their operations use
  if (auto It = ThisEscapes.find(Def); It != ThisEscapes.end())
    return It->second;
  ThisEscapes[Def] = std::nullopt; // while we look: a call back to it adds nothing
  const FunctionModel &CM = Paths->modelOf(Def);
  std::optional<SourceLocation> Escape = thisEscapeOf(
      CM, [&](const CallExpr *Call, unsigned ArgIndex) { return runsLater(CM, Call, ArgIndex); },
      [&](const CXXMethodDecl *Callee) { return thisEscape(Callee); });
  ThisEscapes[Def] = Escape;
  return Escape;
}

std::vector<Finding> Checker::checkMainFile() {
  RootFinder Finder(Ctx.getSourceManager());
  Finder.TraverseDecl(Ctx.getTranslationUnitDecl());

  std::vector<Finding> Out;
  for (const FunctionDecl *FD : Finder.Found) {
    std::vector<Finding> Mine = check(FD);
    Out.insert(Out.end(), std::make_move_iterator(Mine.begin()), std::make_move_iterator(Mine.end()));
  }
  return Out;
}

} // namespace asyncshift
