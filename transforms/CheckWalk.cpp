//===- CheckWalk.cpp - One breadth-first walk over a CFG's paths ----------===//

#include "CheckWalk.h"
#include "AsyncModel.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>

using namespace clang;

namespace asyncshift {
namespace check {

std::string describe(const ASTContext &Ctx, const Stmt *S, llvm::StringRef Fallback) {
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange R =
      Lexer::makeFileCharRange(CharSourceRange::getTokenRange(S->getSourceRange()), SM, Ctx.getLangOpts());
  if (R.isInvalid())
    return Fallback.str();
  StringRef Text = Lexer::getSourceText(R, SM, Ctx.getLangOpts());
  if (Text.empty() || Text.size() > 48 || Text.contains('\n'))
    return Fallback.str();
  return "'" + Text.str() + "'";
}

bool mentionsVar(const Stmt *S, const VarDecl *V) {
  if (!S || isa<UnaryExprOrTypeTraitExpr>(S))
    return false;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(S); DRE && DRE->getDecl() == V)
    return true;
  for (const Stmt *Child : S->children())
    if (mentionsVar(Child, V))
      return true;
  return false;
}

namespace {

/// Walks stop (and report nothing) beyond this many (block, state) pairs.
constexpr unsigned MaxStates = 20000;
/// Witnesses keep at most this many notes (the last ones).
constexpr unsigned MaxNotes = 12;

Loc locOf(SourceLocation L) { return Loc{L.getRawEncoding()}; }

class Walk {
public:
  Walk(ASTContext &Ctx, const PreparedWalk &P, const Callable &C, const ParmVarDecl *H,
       const std::vector<bool> &Significant, PathResult &Out)
      : Ctx(Ctx), P(P), C(C), H(H), Significant(Significant), Out(Out) {}

  void run(std::optional<bool> ErrorIs);

private:
  static constexpr int Pending = -1, Released = -2;

  struct State {
    unsigned Block;
    int Handler;            ///< Pending, Released, or the index of the event that completed it
    bool ErrorRead;         ///< the error parameter was read
    uint32_t Known, Values; ///< what the path assumed about conditions
    bool Fresh;             ///< at a loop's condition, arriving from before the loop
    auto key() const { return std::make_tuple(Block, Handler, ErrorRead, Known, Values, Fresh); }
  };
  struct Node {
    State S;
    int Parent;
    unsigned Succ; ///< which successor of the parent's block led here
  };

  void push(State S, int Parent, unsigned Succ);
  void step(unsigned NI);
  void atExit(unsigned NI, const State &S);
  bool skipsLoop(const CFGBlock *B, const State &S, unsigned SuccIndex);

  std::optional<FindingNote> decisionNote(const CFGBlock *B, unsigned SuccIndex) const;
  Witness witness(unsigned Last, std::optional<FindingNote> Marker = std::nullopt, int MarkerState = 0) const;
  FindingNote endNote(unsigned ExitNode, const std::string &What) const;
  FindingNote alreadyNote(const Event &E) const;

  ASTContext &Ctx;
  const PreparedWalk &P;
  const Callable &C;
  const ParmVarDecl *H;
  const std::vector<bool> &Significant;
  PathResult &Out;

  std::vector<Node> Nodes;
  std::map<std::tuple<unsigned, int, bool, uint32_t, uint32_t, bool>, unsigned> Seen;
  std::deque<unsigned> Queue;
  std::set<unsigned> FirstSeen, TwiceSeen;
  std::map<const Stmt *, bool> LoopCompletes;
};

void Walk::push(State S, int Parent, unsigned Succ) {
  if (Seen.emplace(S.key(), Nodes.size()).second) {
    Nodes.push_back({S, Parent, Succ});
    Queue.push_back(Nodes.size() - 1);
  }
}

void Walk::run(std::optional<bool> ErrorIs) {
  State Start{P.Graph->getEntry().getBlockID(), Pending, false, 0, 0, false};
  if (ErrorIs && P.ErrorBit) {
    Start.Known |= 1u << *P.ErrorBit;
    if (*ErrorIs)
      Start.Values |= 1u << *P.ErrorBit;
  }
  push(Start, -1, 0);
  while (!Queue.empty()) {
    if (Nodes.size() > MaxStates)
      return; // Out.Complete stays false: too many paths to be sure of anything
    unsigned NI = Queue.front();
    Queue.pop_front();
    step(NI);
  }
  Out.AnyDischarge = !Out.Firsts.empty();
  Out.Complete = true;
}

void Walk::step(unsigned NI) {
  State S = Nodes[NI].S;
  for (const Action &A : P.Actions[S.Block]) {
    if (A.K == Action::Kind::Stop)
      return;
    if (A.K == Action::Kind::ReadError) {
      S.ErrorRead = true;
      continue;
    }
    if (A.K == Action::Kind::Assign || A.K == Action::Kind::Forget) {
      const uint32_t Bit = 1u << A.Index;
      S.Values &= ~Bit;
      if (A.K == Action::Kind::Forget) {
        S.Known &= ~Bit;
        continue;
      }
      S.Known |= Bit;
      if (A.Value)
        S.Values |= Bit;
      continue;
    }
    if (!Significant[A.Index])
      continue;
    if (S.Handler == Pending) {
      S.Handler = static_cast<int>(A.Index);
      if (FirstSeen.insert(A.Index).second)
        Out.Firsts.push_back({A.Index, witness(NI)});
    } else if (S.Handler >= 0 && TwiceSeen.insert(A.Index).second) {
      unsigned First = static_cast<unsigned>(S.Handler);
      Out.Twice.push_back({First, A.Index, witness(NI, alreadyNote(P.Events[First]), S.Handler)});
    }
  }
  if (S.Block == P.Graph->getExit().getBlockID())
    return atExit(NI, S);

  const CFGBlock *B = P.Blocks[S.Block];
  const std::optional<Atom> &A = P.Atoms[S.Block];
  const std::vector<const CFGBlock *> &Succs = P.Next[S.Block];
  for (unsigned I = 0; I < Succs.size(); ++I) {
    const CFGBlock *Next = Succs[I];
    if (!Next || skipsLoop(B, S, I))
      continue;
    State T = S;
    T.Block = Next->getBlockID();
    const Stmt *NextTerm = Next->getTerminatorStmt();
    T.Fresh = NextTerm && isa<ForStmt, WhileStmt, CXXForRangeStmt>(NextTerm) && B->getLoopTarget() != NextTerm;
    if (A && I < B->succ_size()) { // not an edge into a `catch` (addCatchEdges)
      bool Truth = (I == 0) != A->Negated; // the value of the tested variable on this edge
      if (A->IsHandler) {
        if (!Truth && T.Handler == Pending)
          T.Handler = Released; // `if (!done) return;`: there is no handler to call
      } else {
        uint32_t Bit = 1u << A->Bit;
        if (T.Known & Bit) {
          if (((T.Values & Bit) != 0) != Truth)
            continue; // contradicts what this path already assumed
        } else {
          T.Known |= Bit;
          if (Truth)
            T.Values |= Bit;
        }
      }
    }
    push(T, static_cast<int>(NI), I);
  }
}

/// A loop whose body completes the handler, or reads the error, is assumed
/// to run at least once: `if (n == 0) return done({}); for (i = 0; i < n;
/// ++i) ...` has no path that skips the loop, and the walk does no arithmetic
/// to know it; `for (auto &w : waiting) w(err, v);` hands the error to every
/// waiter there is, and with none there is nobody to tell. (A body that
/// neither completes nor reads is the same on both paths, so skipping the
/// empty loop loses no other finding.)
bool Walk::skipsLoop(const CFGBlock *B, const State &S, unsigned SuccIndex) {
  const Stmt *Loop = B->getTerminatorStmt();
  if (!S.Fresh || SuccIndex != 1 || !Loop || !isa<ForStmt, WhileStmt, CXXForRangeStmt>(Loop))
    return false;
  auto [It, Inserted] = LoopCompletes.try_emplace(Loop, false);
  if (Inserted) {
    const Stmt *Body = isa<ForStmt>(Loop)     ? cast<ForStmt>(Loop)->getBody()
                       : isa<WhileStmt>(Loop) ? cast<WhileStmt>(Loop)->getBody()
                                              : cast<CXXForRangeStmt>(Loop)->getBody();
    if (C.ErrorParam && mentionsVar(Body, C.ErrorParam))
      It->second = true;
    const SourceManager &SM = Ctx.getSourceManager();
    SourceRange R = Body->getSourceRange();
    for (unsigned I = 0; I < P.Events.size(); ++I) {
      SourceLocation L = P.Events[I].Site->getBeginLoc();
      if (Significant[I] && !SM.isBeforeInTranslationUnit(L, R.getBegin()) &&
          !SM.isBeforeInTranslationUnit(R.getEnd(), L))
        It->second = true;
    }
  }
  return It->second;
}

void Walk::atExit(unsigned NI, const State &S) {
  if (S.Handler == Pending && H && !Out.NotCalled) {
    Witness W = witness(NI);
    W.push_back(endNote(NI, "without calling " + quoted(H)));
    Out.NotCalled = std::move(W);
  }
  if (!C.ErrorParam || S.ErrorRead || S.Handler == Released)
    return; // read, or there is no handler to tell (`if (!done) return;`)
  // A path that fails the handler with an error of its own
  // (`done(error("cancelled"))`) supersedes the error; it does not drop it.
  const Event *Completion = S.Handler >= 0 ? &P.Events[S.Handler] : nullptr;
  if (Completion && (Completion->K == Event::Kind::Call || Completion->K == Event::Kind::Invoke) &&
      Completion->FirstArg && isErrorType(Completion->FirstArg->getType()) &&
      !isSuccessLiteral(Completion->FirstArg))
    return;
  auto make = [&] {
    Witness W = witness(NI);
    W.push_back(endNote(NI, "without reading " + quoted(C.ErrorParam)));
    return W;
  };
  if (!Out.ErrorIgnored)
    Out.ErrorIgnored = make();
  if (S.Handler >= 0 && !Out.ErrorIgnoredCompleting)
    Out.ErrorIgnoredCompleting = make();
}

// ---- Notes ----------------------------------------------------------------------------

std::optional<FindingNote> Walk::decisionNote(const CFGBlock *B, unsigned SuccIndex) const {
  const std::vector<const CFGBlock *> &Succs = P.Next[B->getBlockID()];
  unsigned Reachable = llvm::count_if(Succs, [](const CFGBlock *Next) { return Next != nullptr; });
  const Stmt *T = B->getTerminatorStmt();
  const CFGBlock *Target = Succs[SuccIndex];
  if (SuccIndex >= B->succ_size()) { // an edge into a `catch` (addCatchEdges)
    const Stmt *Last = Target->getTerminatorStmt();
    for (const CFGElement &E : *B)
      if (auto CS = E.getAs<CFGStmt>())
        Last = CS->getStmt();
    return FindingNote{locOf(Last->getBeginLoc()), "assuming an exception is thrown here"};
  }
  if (const auto *Label = Target ? Target->getLabel() : nullptr; isa_and_nonnull<CXXCatchStmt>(Label) && isa_and_nonnull<CXXTryStmt>(T))
    return FindingNote{locOf(Label->getBeginLoc()), "entering this handler"};
  if (Reachable < 2 || !T)
    return std::nullopt;
  if (const auto *Switch = dyn_cast<SwitchStmt>(T)) {
    const Stmt *Label = Target ? Target->getLabel() : nullptr;
    if (const auto *Case = dyn_cast_or_null<CaseStmt>(Label))
      return FindingNote{locOf(Case->getBeginLoc()), "taking case " + describe(Ctx, Case->getLHS(), "'...'")};
    if (isa_and_nonnull<DefaultStmt>(Label))
      return FindingNote{locOf(Label->getBeginLoc()), "taking 'default'"};
    return FindingNote{locOf(Switch->getCond()->getBeginLoc()), "no case matches"};
  }
  if (const auto *Range = dyn_cast<CXXForRangeStmt>(T))
    return FindingNote{locOf(Range->getBeginLoc()), SuccIndex == 0 ? "entering the loop body" : "leaving the loop"};
  const auto *Cond = dyn_cast_or_null<Expr>(B->getTerminatorCondition());
  if (!Cond)
    return std::nullopt;
  bool Value = SuccIndex == 0;
  const Expr *Shown = Cond->IgnoreParenImpCasts();
  // `if (a || b)`: the block that decides evaluates b (a had its own block).
  while (const auto *Logical = dyn_cast<BinaryOperator>(Shown)) {
    if (!Logical->isLogicalOp() || Logical == T)
      break;
    Shown = Logical->getRHS()->IgnoreParenImpCasts();
  }
  if (const auto *U = dyn_cast<UnaryOperator>(Shown); U && U->getOpcode() == UO_LNot) {
    Shown = U->getSubExpr()->IgnoreParenImpCasts();
    Value = !Value;
  }
  std::string Text = describe(Ctx, Shown, "");
  const char *Truth = Value ? "true" : "false";
  if (Text.empty())
    return FindingNote{locOf(Cond->getBeginLoc()), std::string("assuming the condition is ") + Truth};
  return FindingNote{locOf(Shown->getBeginLoc()), "assuming " + Text + " is " + Truth};
}

/// The notes along the path to node \p Last; \p Marker, if set, goes where
/// the handler's state first became \p MarkerState.
Witness Walk::witness(unsigned Last, std::optional<FindingNote> Marker, int MarkerState) const {
  std::vector<unsigned> Chain;
  for (int I = Last; I >= 0; I = Nodes[I].Parent)
    Chain.push_back(I);
  std::reverse(Chain.begin(), Chain.end());
  Witness W;
  for (std::size_t K = 0; K < Chain.size(); ++K) {
    const Node &Here = Nodes[Chain[K]];
    if (Marker && Here.S.Handler != MarkerState &&
        (K + 1 == Chain.size() || Nodes[Chain[K + 1]].S.Handler == MarkerState)) {
      W.push_back(*Marker);
      Marker.reset();
    }
    if (K + 1 < Chain.size())
      if (auto Note = decisionNote(P.Blocks[Here.S.Block], Nodes[Chain[K + 1]].Succ))
        W.push_back(*Note);
  }
  if (Marker)
    W.push_back(*Marker);
  if (W.size() > MaxNotes)
    W.erase(W.begin(), W.begin() + (W.size() - MaxNotes));
  return W;
}

/// Where the path to the exit node \p ExitNode leaves: a `return`, or the end
/// of the body.
FindingNote Walk::endNote(unsigned ExitNode, const std::string &What) const {
  const Node &Exit = Nodes[ExitNode];
  if (Exit.Parent >= 0) {
    const CFGBlock *From = P.Blocks[Nodes[Exit.Parent].S.Block];
    for (auto It = From->rbegin(); It != From->rend(); ++It)
      if (auto CS = It->getAs<CFGStmt>()) {
        if (const auto *R = dyn_cast<ReturnStmt>(CS->getStmt()))
          return FindingNote{locOf(R->getBeginLoc()), "returns here " + What};
        break;
      }
  }
  SourceLocation End = C.Body->getEndLoc();
  if (const auto *CS = dyn_cast<CompoundStmt>(C.Body))
    End = CS->getRBracLoc();
  return FindingNote{locOf(End), "reaches the end " + What};
}

FindingNote Walk::alreadyNote(const Event &E) const {
  std::string Name = quoted(H);
  std::string Text;
  switch (E.K) {
  case Event::Kind::Call:
    Text = Name + " already called here";
    if (E.Via && E.Via != H)
      Text += " (through " + quoted(E.Via) + ")";
    break;
  case Event::Kind::Invoke:
    Text = (E.Via ? quoted(E.Via) : std::string("a lambda")) + ", which calls " + Name + ", already called here";
    break;
  case Event::Kind::PassOn:
    Text = Name + " already passed on here";
    break;
  case Event::Kind::Store:
    Text = Name + " already stored here";
    break;
  }
  return FindingNote{locOf(E.Site->getBeginLoc()), Text};
}

} // namespace

void walkPaths(ASTContext &Ctx, const PreparedWalk &P, const Callable &C, const ParmVarDecl *Handler,
               const std::vector<bool> &Significant, std::optional<bool> ErrorIs, PathResult &Out) {
  if (!P.Graph)
    return;
  Out.Events = P.Events;
  Walk(Ctx, P, C, Handler, Significant, Out).run(ErrorIs);
}

} // namespace check
} // namespace asyncshift
