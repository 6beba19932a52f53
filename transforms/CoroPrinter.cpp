//===- CoroPrinter.cpp - The coro and coro-values styles ------------------===//
//
// An async function becomes a coroutine returning asyncshift::task<T>. The
// IR maps almost one to one: an async call becomes a co_await whose
// continuation's body follows it in the same block (so nesting that only
// sequenced disappears), a completion becomes co_return (or a throw), and a
// named continuation joined from both arms of an `if` becomes the code after
// that `if`, its parameters assigned in each arm.
//
// Errors: in `coro`, an error check that only cleans up and propagates
// disappears into an exception (consecutive awaits with the same cleanup share
// one try/catch); anything subtler keeps the error as a value through
// asyncshift::settle. In `coro-values` every error stays a value.
//
// Lowering builds a small tree of coroutine statements first (CoStmt), so the
// try/catch grouping can look across statements before anything is printed.
//
//===----------------------------------------------------------------------===//

#include "Analysis.h"
#include "Printer.h"

#include <cassert>
#include <cctype>
#include <map>
#include <set>

namespace asyncshift {
namespace {

struct CoStmt;
using CoList = std::vector<CoStmt>;

struct CoStmt {
  enum class Kind { Line, Await, If, Try } K = Kind::Line;
  /// Line and Await: the statement. If: the condition, or the header of a
  /// statement kept as written (`for (...)`, `try { ... } catch (...)`;
  /// empty for a nested block).
  std::string Text;
  /// If: a statement kept as written (IfNode::Kept), printed as `Text {`,
  /// and after its `}` a `do` loop's Tail.
  bool Kept = false;
  std::string Tail;
  /// Await with a cleanup that could not share a try block.
  std::string OnErrorText;
  bool UseOnError = false;
  /// Can throw an asyncshift error (an await that propagates, a throw).
  bool Throws = false;
  /// Await: the statements that run before its error propagates.
  bool HasCleanup = false;
  std::string CleanupKey;
  std::vector<std::string> CleanupLines;
  std::set<VarId> CleanupUses;
  bool IsCoAwait = false;
  std::set<VarId> Defs, Uses;
  CoList Then, Else;
  bool HasElse = false;
  CoList Body; ///< Try
};

void addUses(std::set<VarId> &Uses, const Text &T) {
  for (const Text::Ref &R : T.Refs)
    Uses.insert(R.Var);
}

/// What an awaited call reads: its arguments, and the variables a parallel
/// or each_series body captures (they must stay in scope around it).
void addCallUses(std::set<VarId> &Uses, const AsyncCallNode &A) {
  addUses(Uses, A.Prefix);
  addUses(Uses, A.Suffix);
  if (A.Comb)
    Uses.insert(A.Comb->Captured.begin(), A.Comb->Captured.end());
}

/// What the nodes of \p B read, for a statement printed from them as one
/// piece of text (a loop, a series): a try block before it must not end the
/// scope of a variable it reads.
void addBlockUses(std::set<VarId> &Uses, const Block &B, const AsyncFunction &F) {
  for (VarId V = 0; V < F.Vars.size(); ++V)
    if (references(B, V))
      Uses.insert(V);
}

/// Identifiers in \p T that are not references to the function's variables
/// (a declaration flattened next to it must not take their names).
std::set<std::string> outerIdentifiers(const Text &T) {
  std::set<std::string> Out;
  const std::string &S = T.Source;
  std::size_t RefIdx = 0;
  for (std::size_t I = 0; I < S.size();) {
    while (RefIdx < T.Refs.size() && T.Refs[RefIdx].Offset + T.Refs[RefIdx].Length <= I)
      ++RefIdx;
    char C = S[I];
    if (C == '"' || C == '\'') {
      char Quote = C;
      for (++I; I < S.size() && S[I] != Quote; ++I)
        if (S[I] == '\\')
          ++I;
      ++I;
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(C)) || C == '_') {
      std::size_t B = I;
      while (I < S.size() && (std::isalnum(static_cast<unsigned char>(S[I])) || S[I] == '_'))
        ++I;
      bool IsRef = RefIdx < T.Refs.size() && T.Refs[RefIdx].Offset == B;
      bool Member = B > 0 && (S[B - 1] == '.' || (B > 1 && S[B - 2] == '-' && S[B - 1] == '>') ||
                              (B > 1 && S[B - 2] == ':' && S[B - 1] == ':'));
      if (!IsRef && !Member)
        Out.insert(S.substr(B, I - B));
      continue;
    }
    ++I;
  }
  return Out;
}

bool hasCoAwait(const CoList &L);
bool isCoroutine(const CoList &L);

class CoroLowering {
public:
  CoroLowering(const AsyncFunction &F, bool Values, std::vector<Finding> &Out)
      : F(F), Values(Values), Out(Out), Names(F) {}

  std::optional<PrintedFunction> run();

private:
  struct Ctx {
    std::set<VarId> Failing; ///< error variables known to hold a failure here
    /// Where a completion goes: out of the coroutine, or (inside the loop an
    /// each_series became) to the next step, failures thrown or kept.
    enum class Exit { Return, SeriesThrow, SeriesBreak } ExitKind = Exit::Return;
    std::string SeriesErr; ///< SeriesBreak: the variable a failure goes to
    /// Inside a loop (a recursive-lambda idiom) within an each_series step:
    /// the step ends by leaving that loop (`break;`), and the series loop
    /// then checks SeriesErr, since `continue;` would restart the inner loop.
    bool InnerLoop = false;
    /// Inside a loop kept as written (a validation loop) within an
    /// each_series step: `continue;` or `break;` would end that loop, so
    /// only a failure thrown can end the step here.
    bool InKeptLoop = false;
    const char *nextStep() const { return InnerLoop ? "break;" : "continue;"; }
    /// After SeriesErr is set: a failure ends the series, success moves on.
    std::string stopOrNextStep() const {
      return InnerLoop ? "break;" : "if (" + SeriesErr + ") {\nbreak;\n}\ncontinue;";
    }
  };
  struct JoinState {
    bool Anchored = false;
    bool ErrorAsValue = false;
    ErrorHandling Leading;
    std::vector<JumpSite> Sites;
  };
  enum class AwaitMode { Propagate, Ignore, Value };

  void planJoins();
  void lowerSeq(const std::vector<const Node *> &Nodes, CoList &Out, const Ctx &C);
  void lowerAwait(const AsyncCallNode &A, CoList &Out, const Ctx &C);
  void lowerForward(const AsyncCallNode &A, CoList &Out, const Ctx &C);
  void lowerComplete(const CompleteNode &N, CoList &Out, const Ctx &C);
  void lowerJump(const JumpNode &J, CoList &Out, const Ctx &C);
  void keepJoinCheckInSeries(unsigned Target, const Ctx &C);
  void lowerIf(const IfNode &I, CoList &Out, const Ctx &C);
  void lowerJoinBody(unsigned Target, CoList &Out, const Ctx &C);
  void declareJoinVars(unsigned Target, CoList &Out);
  std::string awaitable(const AsyncCallNode &A);
  std::string whenAll(const Combinator &K);
  std::string branchOf(const std::string &Count, const std::string &Lambda);
  class HoistBranches;
  void lowerSeries(const AsyncCallNode &A, CoList &Out, const Ctx &C);
  /// Makes \p St run \p Cleanup (each statement after its comments), then
  /// \p Comments, when what it awaits fails; returns the lines joined (its
  /// CleanupKey).
  const std::string &setCleanup(CoStmt &St, const std::vector<const SyncNode *> &Cleanup, const std::string &Comments);
  void lowerLoop(const LoopNode &L, CoList &Out, const Ctx &C);
  void lowerRecur(const RecurNode &R, CoList &Out);
  std::map<unsigned, const LoopNode *> LoopsById;
  std::string lowerNested(const Block &Body, const std::string &Result, const Ctx &C, bool EndsFunction = true);
  std::string settled(const AsyncCallNode &A);
  const std::string &declareAvoiding(VarId V, const std::set<std::string> &Avoid);
  void refuse(const char *Id, Loc Where, std::string Message);
  std::string capture() const { return F.IsMember ? "[=, this]" : "[=]"; }

  void group(CoList &L);
  void render(const CoList &L, std::string &OutText, unsigned Depth) const;

  std::string errorLiteral(const ErrorArg &A) { return A.IsSuccess ? "{}" : Names.render(A.Expr); }

  const AsyncFunction &F;
  bool Values;
  std::vector<Finding> &Out;
  Naming Names;
  std::string CallbackName;
  /// T of the coroutine being printed (the function's, or a branch's).
  std::string ResultType;
  JoinPlan Plan;
  std::map<unsigned, JoinState> Joins;
  /// Async calls whose continuation only passes their outcome to a join: they
  /// take the join's error handling.
  std::map<const AsyncCallNode *, unsigned> Forwarders;
  /// Declarations made for the await being lowered, which go on the lines
  /// before it (see HoistBranches): when_all branch lambdas, and the task of
  /// a converted call given a braced list (awaitable()).
  std::vector<std::string> BranchDecls;
  bool Failed = false;
};

/// g++ 12 destroys a lambda twice when the lambda is a temporary of a
/// co_await expression, so its by-value captures (a std::string a parallel
/// branch reads, say) would be freed twice: GCC bug, still in 12.2. A
/// when_all's branch lambda is therefore a named local, declared on the line
/// before the await and moved into it. While lowering one await this guard
/// notes which declarations whenAll() makes, and puts them in front of the
/// await's statement, the first one lowered into \p Out.
class CoroLowering::HoistBranches {
public:
  HoistBranches(CoroLowering &L, CoList &Out) : L(L), Out(Out), First(Out.size()), Decls(L.BranchDecls.size()) {}
  HoistBranches(const HoistBranches &) = delete;
  HoistBranches &operator=(const HoistBranches &) = delete;
  ~HoistBranches() {
    std::string Prefix;
    for (std::size_t I = Decls; I < L.BranchDecls.size(); ++I)
      Prefix += L.BranchDecls[I] + "\n";
    L.BranchDecls.resize(Decls);
    if (Prefix.empty() || First >= Out.size())
      return;
    CoStmt &St = Out[First];
    St.Text = Prefix + St.Text;
    if (!St.OnErrorText.empty())
      St.OnErrorText = Prefix + St.OnErrorText;
  }

private:
  CoroLowering &L;
  CoList &Out;
  std::size_t First;
  std::size_t Decls;
};

void CoroLowering::refuse(const char *Id, Loc Where, std::string Message) {
  Failed = true;
  Finding Fd;
  Fd.Id = Id;
  Fd.Where = Where;
  Fd.Message = std::move(Message);
  Out.push_back(std::move(Fd));
}

/// Declares \p V, avoiding the names its initializer uses for something else
/// (taking one would make the initializer refer to the new variable).
const std::string &CoroLowering::declareAvoiding(VarId V, const std::set<std::string> &Avoid) {
  return Names.declare(V, Avoid);
}

void CoroLowering::planJoins() {
  Plan = asyncshift::planJoins(F, Values);
  for (auto &[Id, J] : Plan.Joins) {
    JoinState &S = Joins[Id];
    S.ErrorAsValue = J.ErrorAsValue;
    S.Leading = J.Leading;
    S.Sites = J.Sites;
  }
  Forwarders = Plan.Forwarders;
}

std::string CoroLowering::awaitable(const AsyncCallNode &A) {
  if (A.Comb && A.Comb->K == Combinator::Kind::Parallel)
    return whenAll(*A.Comb);
  if (A.CalleeConverted && A.ArgsMakeInitializerList) {
    // g++ 12 rejects a braced list's backing array in a co_await expression
    // ("array used as initializer"): the call (which only makes the lazy
    // task) goes on the line before the await, as HoistBranches puts it.
    std::string Name = Names.fresh("call");
    BranchDecls.push_back("auto " + Name + " = " + Names.render(A.WithoutHandler) + ";");
    return "std::move(" + Name + ")";
  }
  if (A.CalleeConverted)
    return Names.render(A.WithoutHandler);
  return promisifyOpen(A.ValueType) + "[&](auto " + CallbackName + ") { " + Names.render(A.Prefix) + CallbackName +
         Names.render(A.Suffix) + "; })";
}

std::string CoroLowering::settled(const AsyncCallNode &A) {
  if (A.CalleeConverted && Values)
    return awaitable(A); // a converted callee already returns its error as a value
  return "asyncshift::settle(" + awaitable(A) + ")";
}

/// Comment lines (if any) as a statement of their own.
void pushComment(CoList &OutList, const std::string &Text) {
  if (Text.empty())
    return;
  CoStmt Comment;
  Comment.Text = Text;
  OutList.push_back(std::move(Comment));
}

void CoroLowering::lowerSeq(const std::vector<const Node *> &Nodes, CoList &OutList, const Ctx &C) {
  auto comment = [&](const std::string &Text) { pushComment(OutList, Text); };
  for (const Node *N : Nodes) {
    if (N->Kind != NodeKind::ContDef)
      comment(N->Comment);
    // The comments after a block's last statement follow what it became
    // (for an await, its continuation too).
    switch (N->Kind) {
    case NodeKind::Sync: {
      const auto &S = static_cast<const SyncNode &>(*N);
      CoStmt St;
      for (VarId V : S.Declares) {
        Names.declare(V);
        St.Defs.insert(V);
      }
      St.Text = Names.render(S.Code);
      addUses(St.Uses, S.Code);
      OutList.push_back(std::move(St));
      comment(N->After);
      break;
    }
    case NodeKind::ContDef:
      comment(N->After);
      break; // printed where its paths join
    case NodeKind::Return:
      comment(N->After);
      return;
    case NodeKind::Complete: {
      const std::size_t Before = OutList.size();
      lowerComplete(static_cast<const CompleteNode &>(*N), OutList, C);
      if (!N->Trailing.empty()) { // on the line it became, when it became one
        CoStmt *One = OutList.size() == Before + 1 ? &OutList.back() : nullptr;
        if (One && One->K == CoStmt::Kind::Line && One->Text.find('\n') == std::string::npos)
          One->Text += " " + N->Trailing;
        else
          comment(N->Trailing);
      }
      comment(N->After);
      return;
    }
    case NodeKind::Jump:
      lowerJump(static_cast<const JumpNode &>(*N), OutList, C);
      comment(N->After);
      return;
    case NodeKind::AsyncCall:
      lowerAwait(static_cast<const AsyncCallNode &>(*N), OutList, C);
      comment(N->After);
      return;
    case NodeKind::If:
      lowerIf(static_cast<const IfNode &>(*N), OutList, C);
      comment(N->After);
      break;
    case NodeKind::Loop:
      lowerLoop(static_cast<const LoopNode &>(*N), OutList, C);
      comment(N->After);
      return;
    case NodeKind::Recur:
      lowerRecur(static_cast<const RecurNode &>(*N), OutList);
      comment(N->After);
      return;
    }
  }
}

/// The recursive-lambda idiom: its parameters become variables and its body
/// the body of `for (;;)`, `self(self, args)` the next iteration.
void CoroLowering::lowerLoop(const LoopNode &L, CoList &OutList, const Ctx &C) {
  LoopsById[L.Id] = &L;
  for (std::size_t I = 0; I < L.Params.size(); ++I) {
    CoStmt Decl;
    std::string Init = Names.render(L.Init[I]);
    addUses(Decl.Uses, L.Init[I]);
    Decl.Text = L.ParamTypes[I] + " " + Names.declare(L.Params[I], outerIdentifiers(L.Init[I])) + " = " + Init + ";";
    Decl.Defs.insert(L.Params[I]);
    OutList.push_back(std::move(Decl));
  }
  Ctx Inner = C;
  Inner.InnerLoop = C.ExitKind != Ctx::Exit::Return;
  Names.push();
  std::string Body = lowerNested(L.Body, ResultType, Inner, /*EndsFunction=*/false);
  Names.pop();
  if (Body.size() >= 10 && Body.compare(Body.size() - 10, 10, "continue;\n") == 0)
    Body.erase(Body.size() - 10);
  CoStmt Loop;
  Loop.K = CoStmt::Kind::Await;
  Loop.IsCoAwait = true;
  Loop.Throws = true; // never part of an outer try group: its awaits group inside it
  addBlockUses(Loop.Uses, L.Body, F);
  Loop.Text = "for (;;) {\n" + Body + "}";
  // A loop whose rounds all complete synchronously awaits nothing: the
  // function may then need a co_return to be a coroutine at all.
  Loop.IsCoAwait = Body.find("co_await") != std::string::npos;
  OutList.push_back(std::move(Loop));
  if (Inner.InnerLoop && !C.InnerLoop && C.ExitKind == Ctx::Exit::SeriesBreak) {
    // The inner loop ended the step: a failure ends the series.
    CoStmt Check;
    Check.Text = "if (" + C.SeriesErr + ") {\nbreak;\n}";
    OutList.push_back(std::move(Check));
  }
}

void CoroLowering::lowerRecur(const RecurNode &R, CoList &OutList) {
  const LoopNode &L = *LoopsById.at(R.Loop);
  CoStmt St;
  for (const Text &T : R.Args)
    addUses(St.Uses, T);
  // A parameter passed on as itself (`step(i + 1, total)`) stays as it is.
  std::vector<std::size_t> Changed;
  for (std::size_t I = 0; I < L.Params.size(); ++I) {
    const Text &A = R.Args[I];
    const bool Same = A.Refs.size() == 1 && A.Refs[0].Var == L.Params[I] && A.Refs[0].Offset == 0 &&
                      A.Refs[0].Length == A.Source.size() && A.Splices.empty();
    if (!Same)
      Changed.push_back(I);
  }
  // In order, each straight into its parameter, unless an argument reads a
  // parameter assigned before it (`step(j, i)`): then all arguments first.
  bool Direct = true;
  for (std::size_t I : Changed)
    Direct &= R.Args[I].Splices.empty();
  for (std::size_t K = 0; K < Changed.size() && Direct; ++K)
    for (std::size_t J = 0; J < K && Direct; ++J)
      Direct = !R.Args[Changed[K]].references(L.Params[Changed[J]]);
  if (Direct) {
    for (std::size_t I : Changed)
      St.Text += Names.name(L.Params[I]) + " = " + Names.render(R.Args[I]) + ";\n";
  } else {
    std::vector<std::string> Next;
    for (std::size_t I : Changed) {
      Next.push_back(Names.fresh(Names.name(L.Params[I]) + "_next"));
      St.Text += "auto " + Next.back() + " = " + Names.render(R.Args[I]) + ";\n";
    }
    for (std::size_t K = 0; K < Changed.size(); ++K)
      St.Text += Names.name(L.Params[Changed[K]]) + " = " + Next[K] + ";\n";
  }
  St.Text += "continue;";
  OutList.push_back(std::move(St));
}

void CoroLowering::lowerForward(const AsyncCallNode &A, CoList &OutList, const Ctx &C) {
  HoistBranches Hoist(*this, OutList);
  CoStmt St;
  St.K = CoStmt::Kind::Await;
  St.IsCoAwait = true;
  addCallUses(St.Uses, A);
  if (C.ExitKind == Ctx::Exit::SeriesThrow) {
    St.Text = "co_await " + awaitable(A) + ";\n" + C.nextStep();
    St.Throws = true;
    OutList.push_back(std::move(St));
    return;
  }
  if (C.ExitKind == Ctx::Exit::SeriesBreak) {
    St.Text = C.SeriesErr + " = co_await " + settled(A) + ";\n" +
              C.stopOrNextStep();
    OutList.push_back(std::move(St));
    return;
  }
  if (Values) {
    St.Text = "co_return co_await " + settled(A) + ";";
  } else if (!ResultType.empty()) {
    St.Text = "co_return co_await " + awaitable(A) + ";";
    St.Throws = true;
  } else {
    St.Text = "co_await " + awaitable(A) + ";";
    St.Throws = true;
    OutList.push_back(std::move(St));
    CoStmt Ret;
    Ret.Text = "co_return;";
    OutList.push_back(std::move(Ret));
    return;
  }
  OutList.push_back(std::move(St));
}

void CoroLowering::lowerAwait(const AsyncCallNode &A, CoList &OutList, const Ctx &C) {
  if (A.Comb && A.Comb->K == Combinator::Kind::EachSeries)
    return lowerSeries(A, OutList, C);
  if (A.Handler == AsyncCallNode::HandlerKind::Forward)
    return lowerForward(A, OutList, C);

  HoistBranches Hoist(*this, OutList);
  const Continuation &Cont = A.Cont;
  ErrorHandling H = errorHandlingOf(A, Plan, Values);
  AwaitMode Mode = H.K == ErrorHandling::Kind::Propagate ? AwaitMode::Propagate
                   : H.K == ErrorHandling::Kind::Ignored ? AwaitMode::Ignore
                                                         : AwaitMode::Value;
  std::vector<const SyncNode *> Cleanup = H.Cleanup;
  std::vector<const Node *> Rest = H.Rest;
  // In a step of a series whose outcome is kept (not thrown), a failure ends
  // the step with the error kept: the continuation's own check says how.
  if (Mode == AwaitMode::Propagate && C.ExitKind == Ctx::Exit::SeriesBreak)
    Mode = AwaitMode::Value, Cleanup.clear(), Rest = nodesOf(Cont.Body);
  // A cleanup that reads the value cannot run where the value does not exist.
  if (Mode == AwaitMode::Propagate && Cont.Value != NoVar)
    for (const SyncNode *S : Cleanup)
      if (S->Code.references(Cont.Value))
        Mode = AwaitMode::Value, Rest = nodesOf(Cont.Body);

  bool UsesValue = false;
  if (Cont.Value != NoVar)
    for (const Node *N : Rest)
      UsesValue |= references(*N, Cont.Value);
  if (Mode == AwaitMode::Value && Cont.Value != NoVar)
    UsesValue = references(Cont.Body, Cont.Value);

  CoStmt St;
  St.K = CoStmt::Kind::Await;
  St.IsCoAwait = true;
  addCallUses(St.Uses, A);
  std::set<std::string> Avoid = outerIdentifiers(A.Prefix);
  for (const std::string &S : outerIdentifiers(A.Suffix))
    Avoid.insert(S);
  const std::string ValueDecl = A.ValueDeclType.empty() ? "auto" : A.ValueDeclType;

  if (Mode == AwaitMode::Propagate) {
    std::string X = awaitable(A);
    std::string Lhs;
    if (UsesValue) {
      Lhs = ValueDecl + " " + declareAvoiding(Cont.Value, Avoid) + " = ";
      St.Defs.insert(Cont.Value);
    }
    St.Text = Lhs + "co_await " + X + ";";
    St.Throws = true;
    if (!Cleanup.empty()) {
      const std::string &Joined = setCleanup(St, Cleanup, H.Comments);
      St.OnErrorText = Lhs + "co_await asyncshift::on_error(" + X + ", [&] {\n" + Joined + "});";
    }
  } else {
    std::string SX = settled(A);
    const bool UsesErr = Mode == AwaitMode::Value && Cont.Err != NoVar;
    if (!A.ValueType.empty()) {
      if (UsesErr && UsesValue && A.ValueDeclType.empty()) {
        const std::string &E = declareAvoiding(Cont.Err, Avoid);
        std::string EName = E;
        const std::string &V = declareAvoiding(Cont.Value, Avoid);
        St.Text = "auto [" + EName + ", " + V + "] = co_await " + SX + ";";
        St.Defs = {Cont.Err, Cont.Value};
      } else if (UsesErr && UsesValue) {
        std::string R = Names.fresh("settled");
        const std::string &E = declareAvoiding(Cont.Err, Avoid);
        std::string EName = E;
        const std::string &V = declareAvoiding(Cont.Value, Avoid);
        St.Text = "auto " + R + " = co_await " + SX + ";\nauto " + EName + " = std::move(" + R + ".err);\n" +
                  A.ValueDeclType + " " + V + " = std::move(" + R + ".value);";
        St.Defs = {Cont.Err, Cont.Value};
      } else if (UsesErr) {
        St.Text = "auto " + declareAvoiding(Cont.Err, Avoid) + " = (co_await " + SX + ").err;";
        St.Defs = {Cont.Err};
      } else if (UsesValue) {
        St.Text = ValueDecl + " " + declareAvoiding(Cont.Value, Avoid) + " = (co_await " + SX + ").value;";
        St.Defs = {Cont.Value};
      } else {
        St.Text = "co_await " + SX + ";";
      }
    } else if (UsesErr && Rest.size() == 1 && Rest[0]->Kind == NodeKind::Jump &&
               static_cast<const JumpNode &>(*Rest[0]).Err.Var == Cont.Err &&
               Joins[static_cast<const JumpNode &>(*Rest[0]).Target].Anchored &&
               Joins[static_cast<const JumpNode &>(*Rest[0]).Target].ErrorAsValue) {
      // The outcome goes straight to a join's error variable.
      const auto &J = static_cast<const JumpNode &>(*Rest[0]);
      const ContDefNode &Target = *F.Conts[J.Target];
      St.Text = Names.name(Target.Cont.Err) + " = co_await " + SX + ";";
      St.Uses.insert(Target.Cont.Err);
      if (Target.Cont.Value != NoVar && J.HasValue) {
        St.Text += "\n" + Names.name(Target.Cont.Value) + " = " + Names.render(J.Value) + ";";
        addUses(St.Uses, J.Value);
        St.Uses.insert(Target.Cont.Value);
      }
      OutList.push_back(std::move(St));
      return;
    } else if (UsesErr) {
      St.Text = "auto " + declareAvoiding(Cont.Err, Avoid) + " = co_await " + SX + ";";
      St.Defs = {Cont.Err};
    } else {
      St.Text = "co_await " + SX + ";";
    }
  }
  OutList.push_back(std::move(St));
  // A folded check without cleanup: its comments where the success path goes on.
  if (Mode == AwaitMode::Propagate && Cleanup.empty())
    pushComment(OutList, H.Comments);
  lowerSeq(Rest, OutList, C);
}

void CoroLowering::lowerComplete(const CompleteNode &N, CoList &OutList, const Ctx &C) {
  CoStmt St;
  addUses(St.Uses, N.Err.Expr);
  addUses(St.Uses, N.Value);
  const bool KnownFailure = knownFailure(N.Err, C.Failing);
  if (C.ExitKind != Ctx::Exit::Return) {
    if (C.InKeptLoop && !(C.ExitKind == Ctx::Exit::SeriesThrow && KnownFailure)) {
      // An each_series step is a loop body here: this completion would be
      // `continue;` or `break;`, which the loop around it takes for its own.
      refuse(ids::AsyncInLoop, N.Where,
             std::string("the step's callback is called inside a loop in an each_series step, and this style's "
                         "step ends here with `continue;` or `break;`, which would end that loop instead; cannot "
                         "convert to this style (--style=promise and future convert it") +
                 (Values ? "" : ", and this style a loop that only fails the step") +
                 "; or find what fails first, as with std::find_if, and call the callback after the loop)");
      return;
    }
    // A step of an each_series loop: success moves to the next step.
    if (N.Err.IsSuccess) {
      St.Text = C.nextStep();
    } else if (C.ExitKind == Ctx::Exit::SeriesThrow) {
      St.Throws = true;
      St.Text = KnownFailure ? "throw asyncshift::error_exception(" + errorLiteral(N.Err) + ");"
                             : "asyncshift::throw_if(" + errorLiteral(N.Err) + ");\n" + C.nextStep();
    } else if (KnownFailure) {
      St.Text = C.SeriesErr + " = " + errorLiteral(N.Err) + ";\nbreak;";
    } else {
      St.Text = C.SeriesErr + " = " + errorLiteral(N.Err) + ";\n" +
                C.stopOrNextStep();
    }
    OutList.push_back(std::move(St));
    return;
  }
  if (N.ValueWithError && KnownFailure && !Values)
    refuse(ids::ValueWithError, N.Where, ValueWithErrorMessage);
  const std::string Value = N.HasValue ? Names.render(N.Value) : "";
  if (Values) {
    if (N.Err.IsSuccess)
      St.Text = N.HasValue ? "co_return {{}, " + Value + "};" : "co_return {};";
    else
      St.Text = N.HasValue ? "co_return {" + errorLiteral(N.Err) + ", " + Value + "};"
                           : "co_return " + errorLiteral(N.Err) + ";";
    OutList.push_back(std::move(St));
    return;
  }
  if (KnownFailure) {
    St.Text = "throw asyncshift::error_exception(" + errorLiteral(N.Err) + ");";
    St.Throws = true;
    OutList.push_back(std::move(St));
    return;
  }
  if (!N.Err.IsSuccess) {
    CoStmt Check;
    Check.Text = "asyncshift::throw_if(" + errorLiteral(N.Err) + ");";
    Check.Throws = true;
    addUses(Check.Uses, N.Err.Expr);
    OutList.push_back(std::move(Check));
  }
  if (N.HasValue)
    St.Text = "co_return " + Value + ";";
  else
    St.Text = ResultType.empty() ? "co_return;" : "co_return {};";
  OutList.push_back(std::move(St));
}

void CoroLowering::declareJoinVars(unsigned Target, CoList &OutList) {
  const ContDefNode &J = *F.Conts[Target];
  JoinState &S = Joins[Target];
  if (S.ErrorAsValue && J.Cont.Err != NoVar) {
    CoStmt St;
    St.Text = "asyncshift::error " + Names.declare(J.Cont.Err) + ";";
    St.Defs.insert(J.Cont.Err);
    OutList.push_back(std::move(St));
  }
  if (J.Cont.Value != NoVar) {
    const Var &V = F.Vars[J.Cont.Value];
    if (V.Type.empty()) {
      refuse(ids::JoinType, J.Where, "cannot name the type of named continuation parameter '" + V.Name + "'");
      return;
    }
    if (!V.Assignable) {
      refuse(ids::JoinType, J.Where,
             "named continuation parameter '" + V.Name + "' becomes a variable declared before the paths that call '" +
                 F.Vars[J.Name].Name + "' and assigned on each, but '" + V.Type +
                 "' cannot be default-constructed and assigned; cannot convert");
      return;
    }
    CoStmt St;
    St.Text = V.Type + " " + Names.declare(J.Cont.Value) + "{};";
    St.Defs.insert(J.Cont.Value);
    OutList.push_back(std::move(St));
  }
}

void CoroLowering::lowerJump(const JumpNode &N, CoList &OutList, const Ctx &C) {
  const ContDefNode &J = *F.Conts[N.Target];
  JoinState &S = Joins[N.Target];
  if (!S.Anchored) {
    if (S.Sites.size() != 1) {
      refuse(ids::UnsupportedJoin, N.Where,
             "named continuation '" + F.Vars[J.Name].Name +
                 "' is called from paths that do not meet after one 'if'; cannot convert");
      return;
    }
    // The only call: the continuation's body simply follows, its parameters
    // initialised from the arguments.
    keepJoinCheckInSeries(N.Target, C);
    S.Anchored = true;
    if (S.ErrorAsValue && J.Cont.Err != NoVar) {
      CoStmt St;
      St.Text = "asyncshift::error " + Names.declare(J.Cont.Err) + " = " + errorLiteral(N.Err) + ";";
      addUses(St.Uses, N.Err.Expr);
      St.Defs.insert(J.Cont.Err);
      OutList.push_back(std::move(St));
    }
    if (J.Cont.Value != NoVar && N.HasValue) {
      const Var &V = F.Vars[J.Cont.Value];
      CoStmt St;
      std::string Init = Names.render(N.Value);
      St.Text = (V.Type.empty() ? std::string("auto") : V.Type) + " " +
                declareAvoiding(J.Cont.Value, outerIdentifiers(N.Value)) + " = " + Init + ";";
      addUses(St.Uses, N.Value);
      St.Defs.insert(J.Cont.Value);
      OutList.push_back(std::move(St));
    }
    lowerJoinBody(N.Target, OutList, C);
    return;
  }
  if (S.ErrorAsValue && J.Cont.Err != NoVar) {
    CoStmt St;
    St.Text = Names.name(J.Cont.Err) + " = " + errorLiteral(N.Err) + ";";
    addUses(St.Uses, N.Err.Expr);
    St.Uses.insert(J.Cont.Err);
    OutList.push_back(std::move(St));
  }
  if (J.Cont.Value != NoVar && N.HasValue) {
    CoStmt St;
    St.Text = Names.name(J.Cont.Value) + " = " + Names.render(N.Value) + ";";
    addUses(St.Uses, N.Value);
    St.Uses.insert(J.Cont.Value);
    OutList.push_back(std::move(St));
  }
}

/// In a series step that keeps its error (SeriesBreak), a call reaching a
/// join does not throw on failure: it hands the error on. The join then
/// receives it as a value and keeps its own check, which ends the step
/// (fuzz seed 1 program 923, where the check was dropped).
void CoroLowering::keepJoinCheckInSeries(unsigned Target, const Ctx &C) {
  JoinState &S = Joins[Target];
  if (!Values && C.ExitKind == Ctx::Exit::SeriesBreak && S.Leading.K == ErrorHandling::Kind::Propagate)
    S.ErrorAsValue = true;
}

void CoroLowering::lowerJoinBody(unsigned Target, CoList &OutList, const Ctx &C) {
  const ContDefNode &J = *F.Conts[Target];
  const JoinState &S = Joins[Target];
  pushComment(OutList, J.Comment); // the comments before the continuation's definition
  if (!Values && !S.ErrorAsValue && S.Leading.K == ErrorHandling::Kind::Propagate)
    lowerSeq(S.Leading.Rest, OutList, C);
  else
    lowerSeq(nodesOf(J.Cont.Body), OutList, C);
}

void CoroLowering::lowerIf(const IfNode &I, CoList &OutList, const Ctx &C) {
  // The joins whose every call is inside this `if` meet right after it.
  std::vector<unsigned> Anchored;
  for (auto &[Id, S] : Joins) {
    if (S.Anchored || S.Sites.size() < 2)
      continue;
    if (joinsAfter(I, Id, S.Sites.size()))
      Anchored.push_back(Id);
  }
  if (Anchored.size() > 1) {
    refuse(ids::UnsupportedJoin, I.Where, "two named continuations join after the same 'if'; cannot convert");
    return;
  }
  for (unsigned Id : Anchored) {
    keepJoinCheckInSeries(Id, C);
    declareJoinVars(Id, OutList);
    Joins[Id].Anchored = true;
  }

  CoStmt St;
  St.K = CoStmt::Kind::If;
  Names.push();
  for (VarId V : I.HeaderDeclares)
    Names.declare(V);
  St.Kept = I.Kept != IfNode::KeptStatement::None;
  St.Text = Names.render(I.Cond);
  addUses(St.Uses, I.Cond);
  if (!I.Tail.empty()) {
    St.Tail = Names.render(I.Tail);
    addUses(St.Uses, I.Tail);
  }
  Ctx ThenCtx = C, ElseCtx = C;
  if (I.Test.Err != NoVar)
    (I.Test.Negated ? ElseCtx : ThenCtx).Failing.insert(I.Test.Err);
  if (I.Kept == IfNode::KeptStatement::Loop && C.ExitKind != Ctx::Exit::Return)
    ThenCtx.InKeptLoop = true;
  lowerSeq(nodesOf(I.Then), St.Then, ThenCtx);
  Names.pop();
  if (I.HasElse) {
    St.HasElse = true;
    Names.push();
    lowerSeq(nodesOf(I.Else), St.Else, ElseCtx);
    Names.pop();
  }
  OutList.push_back(std::move(St));
  for (unsigned Id : Anchored)
    lowerJoinBody(Id, OutList, C);
}

// ---- parallel and each_series ---------------------------------------------------

/// Lowers a nested coroutine body (a parallel branch, an each_series step) to
/// text, in its own scope.
std::string CoroLowering::lowerNested(const Block &Body, const std::string &Result, const Ctx &C, bool EndsFunction) {
  std::string SavedResult = ResultType;
  ResultType = Result;
  CoList List;
  lowerSeq(nodesOf(Body), List, C);
  if (!Values)
    group(List);
  // The whole body of a coroutine (the function's, or a parallel branch's).
  const bool WholeBody = EndsFunction && C.ExitKind == Ctx::Exit::Return;
  // A trailing `co_return;` says nothing at the end of a coroutine, unless it
  // is what makes it one; in a loop body (a recursive-lambda loop) it is what
  // leaves the loop.
  if (WholeBody && !List.empty() && List.back().K == CoStmt::Kind::Line && List.back().Text == "co_return;" &&
      hasCoAwait(List))
    List.pop_back();
  if (WholeBody && !isCoroutine(List)) {
    CoStmt Ret;
    // `co_return;` cannot end a task<T>, and `co_return T{}` needs a T it may
    // not be able to make: an await that never suspends makes it a coroutine.
    Ret.Text = std::string(ResultType.empty() ? "co_return;" : "co_await std::suspend_never{};") +
               " // a coroutine: fails its task, not its caller";
    List.push_back(std::move(Ret));
  }
  // The last step statement's `continue;` says nothing.
  if (C.ExitKind != Ctx::Exit::Return && !List.empty()) {
    std::string &Last = List.back().Text;
    if (Last == "continue;")
      List.pop_back();
    else if (Last.size() > 10 && Last.compare(Last.size() - 10, 10, "\ncontinue;") == 0)
      Last.erase(Last.size() - 10);
  }
  std::string Text;
  render(List, Text, 0);
  ResultType = SavedResult;
  return Text;
}

/// parallel(n, [=](std::size_t i, callback<T> cb) {...}, ...) awaited:
/// asyncshift::when_all(n, [=](std::size_t i) -> task<T> {...}).
std::string CoroLowering::whenAll(const Combinator &K) {
  std::string Count = Names.render(K.Count);
  Names.push();
  std::string Index = K.Index != NoVar ? Names.declare(K.Index) : "";
  // A branch that is one call passing its outcome on needs no coroutine of
  // its own: the lambda returns the operation (or the converted call's task);
  // nor does one whose continuation only maps the operation's value: the
  // lambda returns the operation through map().
  std::optional<MappedBranch> M = mappedBranchCall(K);
  if (const AsyncCallNode *A = M ? M->Call : forwardingBranchCall(K)) {
    std::string Op;
    if (A->CalleeConverted)
      Op = Names.render(A->WithoutHandler);
    else
      Op = promisifyOpen(A->ValueType) + capture() + "(auto " + CallbackName + ") { " + Names.render(A->Prefix) + CallbackName +
           Names.render(A->Suffix) + "; })";
    if (M) {
      Names.push();
      std::string Value = Names.declare(A->Cont.Value);
      Op += mapSuffix(capture(), A->ValueType, Value, K.ItemType, Names.render(M->Done->Value));
      Names.pop();
    }
    Names.pop();
    return branchOf(Count, capture() + "(" + K.IndexType + (Index.empty() ? "" : " " + Index) + ") {\nreturn " + Op +
                               ";\n}");
  }
  std::string Body = lowerNested(K.Body, K.ItemType, Ctx{});
  Names.pop();
  std::string Task;
  if (Values)
    Task = K.ItemType.empty() ? "asyncshift::task<asyncshift::error>"
                              : "asyncshift::task<asyncshift::result<" + K.ItemType + ">>";
  else
    Task = K.ItemType.empty() ? "asyncshift::task<>" : "asyncshift::task<" + K.ItemType + ">";
  return branchOf(Count, capture() + "(" + K.IndexType + (Index.empty() ? "" : " " + Index) + ") -> " + Task + " {\n" +
                             Body + "}");
}

/// `asyncshift::when_all(Count, std::move(branch))`, with `auto branch =
/// Lambda;` noted for the line before the await (HoistBranches).
std::string CoroLowering::branchOf(const std::string &Count, const std::string &Lambda) {
  std::string Name = Names.fresh("branch");
  BranchDecls.push_back("auto " + Name + " = " + Lambda + ";");
  return "asyncshift::when_all(" + Count + ", std::move(" + Name + "))";
}

/// each_series(n, [=](std::size_t i, callback<> cb) {...}, ...): a for loop
/// whose body is the step. A failing step throws out of the loop (errors as
/// exceptions) or leaves it with the error kept in a variable.
const std::string &CoroLowering::setCleanup(CoStmt &St, const std::vector<const SyncNode *> &Cleanup,
                                             const std::string &Comments) {
  St.HasCleanup = true;
  std::string Joined;
  for (const SyncNode *S : Cleanup) {
    St.CleanupLines.push_back(withComment(S->Comment, Names.render(S->Code)));
    Joined += St.CleanupLines.back() + "\n";
    addUses(St.CleanupUses, S->Code);
  }
  // The folded check's own comments go with what runs on failure.
  if (!Comments.empty()) {
    St.CleanupLines.push_back(Comments);
    Joined += Comments + "\n";
  }
  St.CleanupKey = std::move(Joined);
  return St.CleanupKey;
}

void CoroLowering::lowerSeries(const AsyncCallNode &A, CoList &OutList, const Ctx &C) {
  const Combinator &K = *A.Comb;
  const bool Forward = A.Handler == AsyncCallNode::HandlerKind::Forward;
  std::vector<const SyncNode *> Cleanup;
  std::vector<const Node *> Rest = nodesOf(A.Cont.Body);
  std::string FoldedComments;
  bool Throwing = false;
  if (!Values && C.ExitKind == Ctx::Exit::Return) {
    if (Forward) {
      Throwing = true;
    } else if (!Forwarders.count(&A)) {
      ErrorHandling H = errorHandlingOf(A, Plan, Values);
      if (H.K == ErrorHandling::Kind::Propagate) {
        Throwing = true;
        Cleanup = H.Cleanup;
        Rest = H.Rest;
        FoldedComments = H.Comments;
      }
    }
  }

  CoStmt Loop;
  Loop.K = CoStmt::Kind::Await;
  Loop.IsCoAwait = true;
  Loop.Throws = Throwing;
  std::string ErrName;
  if (!Throwing) {
    // The error the loop leaves with: the continuation's, or a fresh one.
    if (!Forward && A.Cont.Err != NoVar) {
      ErrName = Names.declare(A.Cont.Err);
      Loop.Defs.insert(A.Cont.Err);
    } else {
      ErrName = Names.fresh("err");
    }
    CoStmt Decl;
    Decl.Text = "asyncshift::error " + ErrName + ";";
    OutList.push_back(std::move(Decl));
  }

  std::string Count = Names.render(K.Count);
  addUses(Loop.Uses, K.Count);
  addBlockUses(Loop.Uses, K.Body, F);
  bool Simple = (K.Count.Refs.size() == 1 && K.Count.Refs[0].Offset == 0 && K.Count.Refs[0].Length == K.Count.Source.size()) ||
                (!K.Count.Source.empty() && std::isdigit(static_cast<unsigned char>(K.Count.Source[0])) &&
                 K.Count.Source.find_first_not_of("0123456789uUlLzZ") == std::string::npos);
  std::string Header;
  Names.push();
  std::string Index = K.Index != NoVar ? Names.declare(K.Index) : Names.fresh("i");
  if (Simple) {
    Header = "for (" + K.IndexType + " " + Index + " = 0; " + Index + " < " + Count + "; ++" + Index + ")";
  } else {
    std::string Bound = Names.fresh("count");
    Header = "for (" + K.IndexType + " " + Index + " = 0, " + Bound + " = " + Count + "; " + Index + " < " + Bound +
             "; ++" + Index + ")";
  }
  Ctx StepCtx;
  StepCtx.ExitKind = Throwing ? Ctx::Exit::SeriesThrow : Ctx::Exit::SeriesBreak;
  StepCtx.SeriesErr = ErrName;
  std::string Body = lowerNested(K.Body, "", StepCtx);
  Names.pop();
  Loop.Text = Header + " {\n" + Body + "}";
  Loop.IsCoAwait = Body.find("co_await") != std::string::npos;
  if (!Cleanup.empty()) {
    const std::string &Joined = setCleanup(Loop, Cleanup, FoldedComments);
    Loop.OnErrorText = "try {\n" + Loop.Text + "\n} catch (const asyncshift::error_exception &) {\n" + Joined + "throw;\n}";
  }
  OutList.push_back(std::move(Loop));

  if (Forward && C.ExitKind != Ctx::Exit::Return) {
    // A series nested in another's step hands its outcome to that step.
    CoStmt Next;
    if (C.ExitKind == Ctx::Exit::SeriesThrow) {
      Next.Text = "asyncshift::throw_if(" + ErrName + ");\n" + C.nextStep();
      Next.Throws = true;
    } else {
      Next.Text = C.SeriesErr + " = " + ErrName + ";\n" +
                  C.stopOrNextStep();
    }
    OutList.push_back(std::move(Next));
    return;
  }
  if (Forward) {
    CoStmt Ret;
    Ret.Text = Throwing ? "co_return;" : (Values ? "co_return " + ErrName + ";" : "asyncshift::throw_if(" + ErrName + ");\nco_return;");
    Ret.Throws = !Values && !Throwing;
    OutList.push_back(std::move(Ret));
    return;
  }
  if (Cleanup.empty())
    pushComment(OutList, FoldedComments);
  lowerSeq(Rest, OutList, C);
}

// ---- try/catch grouping --------------------------------------------------------

void collectDefs(const CoList &L, std::set<VarId> &Out);
void collectDefs(const CoStmt &S, std::set<VarId> &Out) {
  Out.insert(S.Defs.begin(), S.Defs.end());
  collectDefs(S.Then, Out);
  collectDefs(S.Else, Out);
  collectDefs(S.Body, Out);
}
void collectDefs(const CoList &L, std::set<VarId> &Out) {
  for (const CoStmt &S : L)
    collectDefs(S, Out);
}
void collectUses(const CoList &L, std::set<VarId> &Out);
void collectUses(const CoStmt &S, std::set<VarId> &Out) {
  Out.insert(S.Uses.begin(), S.Uses.end());
  Out.insert(S.CleanupUses.begin(), S.CleanupUses.end());
  collectUses(S.Then, Out);
  collectUses(S.Else, Out);
  collectUses(S.Body, Out);
}
void collectUses(const CoList &L, std::set<VarId> &Out) {
  for (const CoStmt &S : L)
    collectUses(S, Out);
}

/// Can \p S sit inside `try { ... } catch { <cleanup Key>; throw; }` without
/// the catch seeing an error it should not clean up after?
bool fitsGroup(const CoStmt &S, const std::string &Key) {
  switch (S.K) {
  case CoStmt::Kind::Line:
    return !S.Throws;
  case CoStmt::Kind::Await:
    return S.HasCleanup ? S.CleanupKey == Key : !S.Throws;
  case CoStmt::Kind::If:
    for (const CoStmt &T : S.Then)
      if (!fitsGroup(T, Key))
        return false;
    for (const CoStmt &T : S.Else)
      if (!fitsGroup(T, Key))
        return false;
    return true;
  case CoStmt::Kind::Try:
    return false;
  }
  return false;
}

bool hasCleanupAwait(const CoStmt &S, const std::string &Key) {
  if (S.K == CoStmt::Kind::Await)
    return S.HasCleanup && S.CleanupKey == Key;
  for (const CoStmt &T : S.Then)
    if (hasCleanupAwait(T, Key))
      return true;
  for (const CoStmt &T : S.Else)
    if (hasCleanupAwait(T, Key))
      return true;
  return false;
}

void markOnError(CoList &L) {
  for (CoStmt &S : L) {
    if (S.K == CoStmt::Kind::Await && S.HasCleanup)
      S.UseOnError = true;
    markOnError(S.Then);
    markOnError(S.Else);
  }
}

void CoroLowering::group(CoList &L) {
  for (std::size_t I = 0; I < L.size(); ++I) {
    CoStmt &S = L[I];
    if (S.K != CoStmt::Kind::Await || !S.HasCleanup) {
      if (S.K == CoStmt::Kind::If) {
        group(S.Then);
        group(S.Else);
      }
      continue;
    }
    const std::string Key = S.CleanupKey;
    std::size_t Last = I;
    for (std::size_t J = I + 1; J < L.size() && fitsGroup(L[J], Key); ++J)
      if (hasCleanupAwait(L[J], Key))
        Last = J;
    std::set<VarId> Defs, LaterUses;
    for (std::size_t J = I; J <= Last; ++J)
      collectDefs(L[J], Defs);
    for (std::size_t J = Last + 1; J < L.size(); ++J)
      collectUses(L[J], LaterUses);
    bool Escapes = false;
    for (VarId V : Defs)
      if (LaterUses.count(V) || S.CleanupUses.count(V))
        Escapes = true;
    if (Escapes) {
      CoList One;
      One.push_back(std::move(L[I]));
      markOnError(One);
      L[I] = std::move(One.front());
      continue;
    }
    CoStmt Try;
    Try.K = CoStmt::Kind::Try;
    Try.CleanupLines = S.CleanupLines;
    for (std::size_t J = I; J <= Last; ++J)
      Try.Body.push_back(std::move(L[J]));
    // A series whose steps never wait leaves a try without an await: the
    // body must still be made a coroutine (lowerNested), so say so.
    Try.IsCoAwait = hasCoAwait(Try.Body);
    L.erase(L.begin() + static_cast<long>(I) + 1, L.begin() + static_cast<long>(Last) + 1);
    L[I] = std::move(Try);
  }
}

// ---- Rendering ---------------------------------------------------------------------

void CoroLowering::render(const CoList &L, std::string &Text, unsigned Depth) const {
  for (const CoStmt &S : L) {
    switch (S.K) {
    case CoStmt::Kind::Line:
      Text += S.Text + "\n";
      break;
    case CoStmt::Kind::Await:
      Text += (S.UseOnError ? S.OnErrorText : S.Text) + "\n";
      break;
    case CoStmt::Kind::If: {
      // An `else` arm that is one `if` and nothing more prints as `else if`.
      const CoStmt *Arm = &S;
      Text += !Arm->Kept ? "if (" + Arm->Text + ") {\n" : Arm->Text.empty() ? std::string("{\n") : Arm->Text + " {\n";
      while (true) {
        render(Arm->Then, Text, Depth + 1);
        if (!Arm->HasElse)
          break;
        if (Arm->Else.size() == 1 && Arm->Else.front().K == CoStmt::Kind::If && !Arm->Else.front().Kept) {
          Arm = &Arm->Else.front();
          Text += "} else if (" + Arm->Text + ") {\n";
          continue;
        }
        Text += "} else {\n";
        render(Arm->Else, Text, Depth + 1);
        break;
      }
      Text += S.Tail.empty() ? std::string("}\n") : "} " + S.Tail + "\n";
      break;
    }
    case CoStmt::Kind::Try:
      Text += "try {\n";
      render(S.Body, Text, Depth + 1);
      Text += "} catch (const asyncshift::error_exception &) {\n";
      for (const std::string &C : S.CleanupLines)
        Text += C + "\n";
      Text += "throw;\n}\n";
      break;
    }
  }
}

/// Is a function with body \p L a coroutine: does it await, or co_return,
/// anywhere outside a nested lambda? One whose every exit is a failure
/// (`throw`) is not, and would throw at its caller instead of failing its task.
bool isCoroutine(const CoList &L) {
  for (const CoStmt &S : L) {
    if (S.IsCoAwait || S.Text.rfind("co_return", 0) == 0 || S.Text.find("\nco_return") != std::string::npos)
      return true;
    if (isCoroutine(S.Then) || isCoroutine(S.Else) || isCoroutine(S.Body))
      return true;
  }
  return false;
}

bool hasCoAwait(const CoList &L) {
  for (const CoStmt &S : L)
    if (S.IsCoAwait || hasCoAwait(S.Then) || hasCoAwait(S.Else) || hasCoAwait(S.Body))
      return true;
  return false;
}

std::optional<PrintedFunction> CoroLowering::run() {
  ResultType = F.ResultType;
  Names.setDetached([](const std::string &Call, const std::string &Handler) {
    return "asyncshift::start(" + Call + ", " + Handler + ")";
  });
  CallbackName = "cb";
  while (F.Identifiers.count(CallbackName))
    CallbackName += "_";
  if (Values && !F.NoDefaultValueType.empty()) {
    refuse(ids::ValueType, F.Where,
           "coro-values settles each operation into asyncshift::result<T>, which holds a T even on failure, and '" +
               F.NoDefaultValueType +
               "' cannot be default-constructed; cannot convert to this style");
    return std::nullopt;
  }
  planJoins();
  for (VarId P : F.Params)
    Names.declare(P);
  std::string Body = lowerNested(F.Body, ResultType, Ctx{});
  if (Failed)
    return std::nullopt;

  PrintedFunction P;
  if (Values)
    P.ReturnType = ResultType.empty() ? "asyncshift::task<asyncshift::error>"
                                        : "asyncshift::task<asyncshift::result<" + ResultType + ">>";
  else
    P.ReturnType = ResultType.empty() ? "asyncshift::task<>" : "asyncshift::task<" + ResultType + ">";
  P.Body = "{\n" + Body + "}";
  return P;
}

class CoroPrinter : public StylePrinter {
public:
  explicit CoroPrinter(bool Values) : Values(Values) {}
  const char *name() const override { return Values ? "coro-values" : "coro"; }
  std::optional<PrintedFunction> print(const AsyncFunction &F, std::vector<Finding> &Out) const override {
    CoroLowering L(F, Values, Out);
    return L.run();
  }
  std::string detachedCall(const std::string &Call, const std::string &Handler) const override {
    return "asyncshift::start(" + Call + ", " + Handler + ")";
  }

private:
  bool Values;
};

} // namespace

std::unique_ptr<StylePrinter> makeCoroPrinter(bool ErrorsAsValues) {
  return std::make_unique<CoroPrinter>(ErrorsAsValues);
}

} // namespace asyncshift
