//===- ChainPrinter.cpp - The promise and future styles -------------------===//
//
// An async function becomes a function returning asyncshift::promise<T> (or
// future<T>) built as a flat chain: the first async call is the head, and the
// continuation of each async call that ends a continuation's straight line is
// lifted to the next `.then` of the same chain, so nesting that only
// sequenced disappears. An `if` whose arms do async work returns a promise
// from each arm (a nested chain); when a named continuation joins the arms,
// its body is the next `.then`.
//
// Each `.then` lambda is built when the chain is built, before earlier steps
// ran, so a variable declared in one step and read in a later one cannot be
// captured: only those variables are hoisted into a per-call state (one
// struct per call, asyncshift::make_shared_state); everything else is an
// ordinary local or a by-copy capture, as in the callback original.
//
// Errors travel as rejections: a check that only cleans up and propagates
// becomes `asyncshift::on_error(cleanup)` beside a leaf call's start
// (`.tap_error(cleanup)` on a converted callee's promise), or disappears; a
// continuation that reads its error gets the settled outcome as a value.
// Completions with an error inside a step throw (a handler that throws
// rejects), which keeps every step's return type about values.
//
// Hoisting needs to know which step every reference lands in, so the lowering
// runs twice: a planning pass records where variables are declared and used,
// then the emitting pass prints with the hoisted variables as state fields.
//
//===----------------------------------------------------------------------===//

#include "Analysis.h"
#include "Printer.h"

#include "clang/Basic/CharInfo.h"

#include <cassert>
#include <cstring>
#include <deque>
#include <map>
#include <set>

namespace asyncshift {
namespace {

/// True if some path of \p B may complete the function's handler with
/// success (`done({}, v)`, `done(err)` with err not known to be a failure, an
/// operation handed the handler) instead of reaching named continuation
/// \p Join. Errors known to be failures propagate as rejections, which skip
/// the join's success steps as the original's path skips the join. Jumps to
/// other named continuations are followed into their bodies.
class SuccessCompletionFinder {
public:
  SuccessCompletionFinder(const AsyncFunction &F, unsigned Join) : F(F), Join(Join) {}

  bool in(const Block &B, std::set<VarId> Failing = {}) {
    for (const NodePtr &N : B)
      if (in(*N, Failing))
        return true;
    return false;
  }

private:
  bool in(const Node &N, const std::set<VarId> &Failing) {
    if (const auto *C = dyn<CompleteNode>(&N))
      return !(C->Err.IsFailure || (C->Err.Var != NoVar && Failing.count(C->Err.Var)));
    if (const auto *A = dyn<AsyncCallNode>(&N))
      return A->Handler == AsyncCallNode::HandlerKind::Forward || in(A->Cont.Body);
    if (const auto *I = dyn<IfNode>(&N)) {
      std::set<VarId> Tested = Failing;
      if (I->Test.Err != NoVar)
        Tested.insert(I->Test.Err);
      return in(I->Then, I->Test.Negated ? Failing : Tested) || in(I->Else, I->Test.Negated ? Tested : Failing);
    }
    if (const auto *J = dyn<JumpNode>(&N)) {
      if (J->Target == Join || !Visited.insert(J->Target).second)
        return false;
      return in(F.Conts[J->Target]->Cont.Body);
    }
    if (const auto *L = dyn<LoopNode>(&N))
      return in(L->Body);
    return false; // statements, returns, a loop's next round, definitions (reached by jumps)
  }

  const AsyncFunction &F;
  unsigned Join;
  std::set<unsigned> Visited;
};

struct ChainSpelling {
  bool IsPromise;
  std::string type(const std::string &T) const {
    return std::string(IsPromise ? "asyncshift::promise<" : "asyncshift::future<") + T + ">";
  }
  std::string make(const std::string &T) const {
    std::string Fn = IsPromise ? "asyncshift::make_promise" : "asyncshift::make_future";
    return T.empty() ? Fn + "(" : Fn + "<" + T + ">(";
  }
  std::string resolve(const std::string &T, std::string V) const {
    if (!V.empty() && V.front() == '{' && !T.empty())
      V = T + V; // a braced value needs its type where nothing else names it
    if (IsPromise)
      return type(T) + "::resolve(" + V + ")";
    return T.empty() ? "asyncshift::make_ready_future()" : "asyncshift::make_ready_future_of<" + T + ">(" + V + ")";
  }
  std::string reject(const std::string &T, const std::string &E) const {
    if (IsPromise)
      return type(T) + "::reject(" + E + ")";
    return "asyncshift::make_failed_future<" + (T.empty() ? std::string("void") : T) + ">(" + E + ")";
  }
};

using Path = std::vector<std::pair<unsigned, unsigned>>; ///< (chain, step) from the root

/// A `.then` step waiting to be printed.
struct Step {
  enum class In { Nothing, Value, Settled };
  In Kind = In::Nothing;
  std::vector<const Node *> Nodes;
  VarId Value = NoVar;
  VarId Err = NoVar;
  std::string ValueType; ///< of the incoming value ("" for void)
  std::string ValueDeclType;
  /// The step's output: the type it returns (its exits all agree).
  std::string OutType;
  bool OutKnown = false;
  /// Comments to put first in the step's body (a named continuation's).
  std::string Comment;
};

struct ChainBuild {
  unsigned Id = 0;
  std::deque<Step> Queue;
};

/// What the exits (returns) of a sequence produce.
struct Exits {
  unsigned Values = 0;   ///< plain values (completions, jump arguments)
  unsigned Promises = 0; ///< chains and promises
};

class ChainLowering {
public:
  ChainLowering(const AsyncFunction &F, bool IsPromise, std::vector<Finding> &Out)
      : F(F), S{IsPromise}, Out(Out), Names(F) {}

  std::optional<PrintedFunction> run();

private:
  enum class Pass { Plan, Emit };
  struct Ctx {
    std::set<VarId> Failing;
    /// Type the exits of this sequence produce, and whether values must be
    /// wrapped into promises (because other exits return promises).
    std::string OutType;
    bool Wrap = false;
    /// The chain a tail async call's continuation becomes the next step of;
    /// null to build a nested chain instead.
    ChainBuild *Flatten = nullptr;
    /// The chain a join's body becomes the next step of; null to build one
    /// (headed by the `if`, as an immediately invoked lambda).
    ChainBuild *JoinInto = nullptr;
    /// Whether a chain returned here becomes a spelt type (the function's,
    /// a lambda's `-> future<T>`), converting inside the `return`: the chain
    /// may then be fused (make_future_chain, make_promise_chain), whose type
    /// is its own until it converts, and whose first operation starts then.
    bool Typed = false;
  };

  std::string lowerSeq(const std::vector<const Node *> &Nodes, const Ctx &C);
  std::string lowerAwait(const AsyncCallNode &A, const Ctx &C);
  std::string lowerIf(const IfNode &I, const Ctx &C, bool &EndsStep);
  std::string lowerComplete(const CompleteNode &N, const Ctx &C);
  std::string lowerJump(const JumpNode &J, const Ctx &C);
  std::string errorAsValueReason(const ContDefNode &J, const JoinPlan::Join &Plan) const;
  /// `return Head.then(...)...;` with a `.then` per step of the chain.
  /// \p Fuse: Head is make_future or make_promise of a leaf call, whose
  /// chain may be one state (make_future_chain, make_promise_chain) when it
  /// has steps.
  std::string returnChain(const std::string &Head, Step First, bool Fuse = false);
  std::string renderStep(Step &St, ChainBuild &Chain);
  std::string returnValue(const Ctx &C, const std::string &Value);
  /// A's promise (future); \p MoreArgs (", on_error(...)") goes after the
  /// start when takesOnError(A). \p Returned: the promise is what a step
  /// returns as its one exit (see stepOperation).
  std::string promiseOf(const AsyncCallNode &A, const std::string &MoreArgs = "", bool Returned = false);
  /// Whether leaf call A, the one exit of a chain's step (\p C), is
  /// returned as an operation (promisify) that the step's state starts
  /// itself: the promise (future) that make_promise would make in between, a
  /// state allocated, adopted and freed per call, is not needed.
  bool stepOperation(const AsyncCallNode &A, const Ctx &C) const { return C.Flatten && isLeafHead(A); }
  /// Whether A's promise is made here (make_promise of a leaf call).
  bool isLeafHead(const AsyncCallNode &A) const;
  /// Whether a parallel is an operation fan-out (operationFanOut).
  bool isOperationFanOut(const Combinator &K) const;
  /// Whether A's promise is made here with an operation that takes an
  /// on_error cleanup (a leaf call, an operation fan-out).
  bool takesOnError(const AsyncCallNode &A) const {
    return isLeafHead(A) || (A.Comb && isOperationFanOut(*A.Comb));
  }
  /// make_promise of leaf call A, with \p MoreArgs after the start lambda;
  /// with \p Operation, promisify (see stepOperation).
  std::string leafHead(const AsyncCallNode &A, const std::string &MoreArgs, bool Operation = false);
  std::string declareLocal(VarId V, const std::string &Type, const std::string &Init);
  std::string syncText(const SyncNode &N);
  std::string combinatorHead(const Combinator &K, const std::string &MoreArgs);
  std::string lowerLoop(const LoopNode &L);
  std::map<unsigned, const LoopNode *> LoopsById;
  std::string statePrefix(unsigned Scope);

  /// The named continuations called from at least two places, all inside
  /// \p I, so that their body continues after it (anchored or not).
  std::vector<unsigned> joinsFollowing(const IfNode &I) const;
  void scanExits(const std::vector<const Node *> &Nodes, Exits &E, unsigned Depth = 0) const;
  /// A jump to a named continuation called only there: lowerJump prints the
  /// continuation's body (inlinedBody) in its place.
  bool isInlined(const JumpNode &N) const;
  std::vector<const Node *> inlinedBody(const JumpNode &N) const;
  std::string outTypeOf(const std::vector<const Node *> &Nodes, bool &Known) const;
  /// What outTypeOf's walk (scanOutType) has learnt so far.
  struct OutTypeScan {
    bool Known = false;      ///< an exit said what the step yields
    bool SawFailure = false; ///< an exit fails (says nothing by itself)
    /// The joins nested in an arm whose bodies the walk has scanned already
    /// (a jump to one yields what its body yields, not its parameter).
    std::set<unsigned> ScannedJoins;
  };
  std::string scanOutType(const std::vector<const Node *> &Nodes, OutTypeScan &S, unsigned Depth) const;

  std::string text(const Text &T);
  bool keepsState(const std::set<unsigned> &Scopes) const;
  std::string operationFanOut(const Combinator &K, const std::string &Count, const std::string &MoreArgs);
  std::string enterBranch(const Combinator &K);
  void leaveBranch(unsigned SavedScope);
  std::string capture() const { return F.IsMember ? "[=, this]" : "[=]"; }
  static std::string detached(const std::string &Call, const std::string &Handler) {
    return Call + ".then_callback(" + Handler + ")";
  }
  std::string nameOf(VarId V) const;
  void declared(VarId V);
  void refuse(const char *Id, Loc Where, std::string Message);
  const std::string &valueTypeOf(VarId V) const;

  const AsyncFunction &F;
  ChainSpelling S;
  std::vector<Finding> &Out;
  Naming Names;
  Pass Mode = Pass::Plan;
  Path Cur;
  unsigned NextChain = 0;
  JoinPlan Plan;
  std::set<unsigned> Anchored;
  std::string CallbackName = "cb";
  bool Failed = false;

  /// T of the function (or combinator branch) being printed.
  std::string ResultType;
  /// Function-like scopes (the function, each branch or step lambda): each
  /// has its own per-call state, since branches run side by side.
  unsigned CurScope = 0;
  unsigned NextScope = 1;
  std::map<VarId, unsigned> DeclScope;
  std::map<unsigned, std::string> StateNames;
  std::map<unsigned, std::string> StateTypes;
  /// The function's state is kept by its chain (keepsState): the name of
  /// the owning pointer that the chain's keep() takes.
  bool KeepState = false;
  std::string StateOwnerName;
  // What keepsState asks of the planning pass.
  bool PrintsEscapingLambdas = false; ///< a combinator's branches or a loop's lambda
  unsigned RootFused = 0;             ///< fused chains with steps returned at the function's level
  unsigned RootOther = 0;             ///< other chains returned there
  std::set<VarId> InLambdaText;       ///< variables named by source text that holds a lambda

  // Planning results.
  std::map<VarId, Path> DeclaredAt;
  std::vector<std::pair<VarId, Path>> UsedAt;
  std::set<VarId> Hoisted;
  std::map<VarId, std::string> Field;
};

void ChainLowering::refuse(const char *Id, Loc Where, std::string Message) {
  if (Mode != Pass::Plan || Failed)
    return;
  Failed = true;
  Finding Fd;
  Fd.Id = Id;
  Fd.Where = Where;
  Fd.Message = std::move(Message);
  Out.push_back(std::move(Fd));
}

const std::string &ChainLowering::valueTypeOf(VarId V) const {
  const Var &X = F.Vars[V];
  return X.Type.empty() ? X.StateType : X.Type;
}

void ChainLowering::declared(VarId V) {
  if (V == NoVar)
    return;
  if (Mode == Pass::Plan) {
    DeclaredAt[V] = Cur;
    DeclScope[V] = CurScope;
  } else {
    Names.declare(V);
  }
}

std::string ChainLowering::nameOf(VarId V) const {
  if (Mode == Pass::Emit && Hoisted.count(V))
    return StateNames.at(DeclScope.at(V)) + "->" + Field.at(V);
  return Names.name(V);
}

/// The per-call state of \p Scope: a struct of the hoisted variables and the
/// one instance every step of this call shares.
std::string ChainLowering::statePrefix(unsigned Scope) {
  if (Mode != Pass::Emit)
    return "";
  std::string Fields;
  for (VarId V : Hoisted)
    if (DeclScope.at(V) == Scope)
      Fields += valueTypeOf(V) + " " + Field.at(V) + "{};\n";
  if (Fields.empty())
    return "";
  std::string Struct = "struct " + StateTypes.at(Scope) + " {\n" + Fields + "};\n";
  std::string Make = "asyncshift::make_shared_state<" + StateTypes.at(Scope) + ">();\n";
  if (Scope == 0 && KeepState)
    return Struct + "auto " + StateOwnerName + " = " + Make + "auto *" + StateNames.at(Scope) + " = " + StateOwnerName +
           ".get();\n";
  return Struct + "auto " + StateNames.at(Scope) + " = " + Make;
}

/// parallel / each_series with a lambda: the lambda, printed as a function
/// returning a promise (future), under the combinator that runs it.
std::string ChainLowering::combinatorHead(const Combinator &K, const std::string &MoreArgs) {
  PrintsEscapingLambdas = true; // a branch may run on after the combinator failed
  std::string Count = text(K.Count);
  if (isOperationFanOut(K))
    return operationFanOut(K, Count, MoreArgs);
  assert(MoreArgs.empty() && "only an operation fan-out takes more arguments");
  unsigned Saved = CurScope;
  std::string SavedResult = ResultType;
  ResultType = K.K == Combinator::Kind::Parallel ? K.ItemType : "";
  std::string Index = enterBranch(K);
  Ctx Root;
  Root.OutType = ResultType;
  Root.Wrap = true;
  Root.Typed = true;
  std::string Body = lowerSeq(nodesOf(K.Body), Root);
  std::string Prefix = statePrefix(CurScope);
  leaveBranch(Saved);
  std::string Lambda =
      capture() + "(" + K.IndexType + Index + ") -> " + S.type(ResultType) + " {\n" + Prefix + Body + "}";
  ResultType = SavedResult;
  if (K.K == Combinator::Kind::EachSeries)
    return "asyncshift::each_series(" + Count + ", " + Lambda + ")";
  // all(n, make) / when_all(n, make) make and join each branch in turn: no
  // vector of n handles is built and walked again.
  if (S.IsPromise)
    return S.type(K.ItemType) + "::all(" + Count + ", " + Lambda + ")";
  return "asyncshift::when_all(" + Count + ", " + Lambda + ")";
}

/// A parallel whose branch is one operation passing its outcome on:
/// `make_future(when_all(n, [=](std::size_t i) { return promisify(...); }))`,
/// make_promise for promise chains. The operations complete the join
/// directly, with no future or promise per branch (the coroutine style's
/// when_all does the same); the promise's own reactions still wait for
/// microtasks. A branch that does more, or calls a converted function (which
/// returns a future or promise), is a function returning one under
/// when_all(n, make) / all(n, make). A cleanup on error goes in as
/// make_future's (make_promise's) on_error argument (\p MoreArgs), as a
/// leaf's does: no second state.
bool ChainLowering::isOperationFanOut(const Combinator &K) const {
  if (K.K != Combinator::Kind::Parallel)
    return false;
  const AsyncCallNode *A = forwardingBranchCall(K);
  return (A && !A->CalleeConverted) || mappedBranchCall(K);
}

std::string ChainLowering::operationFanOut(const Combinator &K, const std::string &Count, const std::string &MoreArgs) {
  std::optional<MappedBranch> M = mappedBranchCall(K);
  const AsyncCallNode *A = M ? M->Call : forwardingBranchCall(K);
  unsigned Saved = CurScope;
  std::string Index = enterBranch(K);
  const std::string Handler = A->HandlerTakesRvalue ? "std::move(" + CallbackName + ")" : CallbackName;
  std::string Op = promisifyOpen(A->ValueType) + capture() + "(auto " + CallbackName + ") { " + text(A->Prefix) +
                   Handler + text(A->Suffix) + "; })";
  if (M) {
    // The value is a parameter of map's function: declared where it is used.
    Names.push();
    declared(A->Cont.Value);
    Op += mapSuffix(capture(), A->ValueType, Names.name(A->Cont.Value), K.ItemType, text(M->Done->Value));
    Names.pop();
  }
  leaveBranch(Saved);
  return S.make("") + "asyncshift::when_all(" + Count + ", " + capture() + "(" + K.IndexType + Index +
         ") {\nreturn " + Op + ";\n})" + MoreArgs + ")";
}

/// Enters the scope of a combinator's branch (a chain and names of its own)
/// and declares its index: " name", or "" when the branch has none.
std::string ChainLowering::enterBranch(const Combinator &K) {
  CurScope = NextScope++;
  Cur.emplace_back(NextChain++, 0);
  Names.push();
  if (K.Index == NoVar)
    return "";
  declared(K.Index);
  return " " + Names.name(K.Index);
}

/// Leaves the branch scope enterBranch entered from \p SavedScope.
void ChainLowering::leaveBranch(unsigned SavedScope) {
  Names.pop();
  Cur.pop_back();
  CurScope = SavedScope;
}

/// Whether \p Source may hold a lambda expression: a `[...]` followed by
/// `(` or `{` (an array element called or initialised from a brace also
/// matches, which only costs keepsState its saving).
static bool mayHoldLambda(const std::string &Source) {
  for (size_t I = Source.find('['); I != std::string::npos; I = Source.find('[', I + 1)) {
    size_t J = Source.find(']', I);
    if (J == std::string::npos)
      return false;
    size_t K = Source.find_first_not_of(" \t\n", J + 1);
    if (K != std::string::npos && (Source[K] == '(' || Source[K] == '{'))
      return true;
  }
  return false;
}

std::string ChainLowering::text(const Text &T) {
  if (Mode == Pass::Plan) {
    const bool Lambda = mayHoldLambda(T.Source);
    for (const Text::Ref &R : T.Refs) {
      UsedAt.emplace_back(R.Var, Cur);
      if (Lambda)
        InLambdaText.insert(R.Var);
    }
    return T.Source;
  }
  return renderText(T, [this](VarId V) { return nameOf(V); }, &ChainLowering::detached);
}

std::string ChainLowering::promiseOf(const AsyncCallNode &A, const std::string &MoreArgs, bool Returned) {
  if (isLeafHead(A))
    return leafHead(A, MoreArgs, Returned);
  assert((A.Comb || MoreArgs.empty()) && "a converted function's promise takes no more arguments");
  return A.Comb ? combinatorHead(*A.Comb, MoreArgs) : text(A.WithoutHandler);
}

bool ChainLowering::isLeafHead(const AsyncCallNode &A) const { return !A.Comb && !A.CalleeConverted; }

/// The leaf call, inside make_promise/make_future: the callback those pass is
/// owned (it holds a reference on the state), so a callee that takes an
/// rvalue is given it with std::move; a copy would cost a reference count up
/// and down per op (about 3% of a doxbee execution in future style). A callee
/// taking `callback<T>&` (reached by forwarding a handler) gets the lvalue.
///
/// An operation a step returns starts after the step's lambda has returned,
/// when its locals and parameters are gone: its start function captures by
/// copy (mutable, so that a call on a copied local is what it was on the
/// local; nothing reads the local after the call). A local that cannot be
/// copied (`std::unique_ptr`) is moved in instead: the step returns the
/// operation at its end, so nothing reads the local after that either.
std::string ChainLowering::leafHead(const AsyncCallNode &A, const std::string &MoreArgs, bool Operation) {
  const std::string Handler = A.HandlerTakesRvalue ? "std::move(" + CallbackName + ")" : CallbackName;
  std::string Capture = capture();
  if (Operation) {
    std::set<VarId> Moved;
    for (const Text *T : {&A.Prefix, &A.Suffix})
      for (const Text::Ref &R : T->Refs)
        if (F.Vars[R.Var].MoveOnly && Moved.insert(R.Var).second) {
          const std::string Name = nameOf(R.Var);
          if (clang::isValidAsciiIdentifier(Name)) // not a state field (`state->x`): that is shared already
            Capture.insert(Capture.size() - 1, ", " + Name + " = std::move(" + Name + ")");
        }
  }
  const std::string Start = Operation ? Capture + "(auto " + CallbackName + ") mutable { " : "[&](auto " + CallbackName + ") { ";
  return (Operation ? promisifyOpen(A.ValueType) : S.make(A.ValueType)) + Start + text(A.Prefix) + Handler +
         text(A.Suffix) + "; }" + MoreArgs + ")";
}

/// A declaration of \p V initialised by \p Init: a local, or a state field.
std::string ChainLowering::declareLocal(VarId V, const std::string &Type, const std::string &Init) {
  declared(V);
  if (Mode == Pass::Emit && Hoisted.count(V))
    return nameOf(V) + " = " + Init + ";\n";
  return (Type.empty() ? std::string("auto") : Type) + " " + nameOf(V) + " = " + Init + ";\n";
}

std::string ChainLowering::syncText(const SyncNode &N) {
  bool AnyHoisted = false;
  for (VarId V : N.Declares) {
    declared(V);
    AnyHoisted |= Mode == Pass::Emit && Hoisted.count(V);
  }
  if (!AnyHoisted)
    return text(N.Code) + "\n";
  // `auto [lo, hi] = e;` stays a local declaration; each hoisted binding is
  // copied into its field at once, and every later use reads the field.
  if (N.Decomposition) {
    std::string Out = renderText(
        N.Code, [this](VarId B) { return Names.name(B); }, &ChainLowering::detached);
    Out += "\n";
    for (VarId B : N.Declares)
      if (Hoisted.count(B))
        Out += nameOf(B) + " = std::move(" + Names.name(B) + ");\n";
    return Out;
  }
  // `T x = e;` of a hoisted variable becomes `state->x = e;`.
  VarId V = N.Declares.front();
  const VarDeclInfo &D = N.Decl;
  std::string Type = D.WrittenType.find("auto") == std::string::npos ? D.WrittenType : F.Vars[V].StateType;
  switch (D.Kind) {
  case VarDeclInfo::InitKind::None:
    return "";
  case VarDeclInfo::InitKind::Copy:
    return nameOf(V) + " = " + text(D.Initializer) + ";\n";
  case VarDeclInfo::InitKind::Direct:
  case VarDeclInfo::InitKind::List:
    return nameOf(V) + " = " + Type + text(D.Initializer) + ";\n";
  }
  return "";
}

std::string ChainLowering::returnValue(const Ctx &C, const std::string &Value) {
  if (C.Wrap)
    return "return " + S.resolve(C.OutType, Value) + ";\n";
  return Value.empty() ? "return;\n" : "return " + Value + ";\n";
}

std::vector<unsigned> ChainLowering::joinsFollowing(const IfNode &I) const {
  std::vector<unsigned> Ids;
  for (const auto &[Id, J] : Plan.Joins)
    if (J.Sites.size() >= 2 && joinsAfter(I, Id, J.Sites.size()))
      Ids.push_back(Id);
  return Ids;
}

bool ChainLowering::isInlined(const JumpNode &N) const {
  // Joins after an `if` have two calls or more (joinsFollowing).
  return Plan.Joins.at(N.Target).Sites.size() == 1;
}

std::vector<const Node *> ChainLowering::inlinedBody(const JumpNode &N) const {
  const JoinPlan::Join &P = Plan.Joins.at(N.Target);
  return P.Leading.K == ErrorHandling::Kind::Propagate ? P.Leading.Rest : nodesOf(F.Conts[N.Target]->Cont.Body);
}

void ChainLowering::scanExits(const std::vector<const Node *> &Nodes, Exits &E, unsigned Depth) const {
  for (const Node *N : Nodes) {
    switch (N->Kind) {
    case NodeKind::Complete: {
      const auto &C = static_cast<const CompleteNode &>(*N);
      if (!C.Err.IsFailure)
        ++E.Values;
      return;
    }
    case NodeKind::Jump: {
      // A named continuation called once is printed in place: its exits are
      // the step's (a call in it makes the step return a promise).
      const auto &J = static_cast<const JumpNode &>(*N);
      if (isInlined(J))
        return scanExits(inlinedBody(J), E, Depth);
      ++E.Values;
      return;
    }
    case NodeKind::AsyncCall:
    case NodeKind::Loop:
    case NodeKind::Recur:
      ++E.Promises;
      return;
    case NodeKind::If: {
      const auto &I = static_cast<const IfNode &>(*N);
      if (Depth > 0 && !joinsFollowing(I).empty()) {
        // A join after an `if` inside an arm makes that `if` the head of a
        // chain nested in the arm (lowerIf): the arm returns a promise, even
        // when the join's callers only complete.
        ++E.Promises;
        return;
      }
      scanExits(nodesOf(I.Then), E, Depth + 1);
      scanExits(nodesOf(I.Else), E, Depth + 1);
      break;
    }
    default:
      break;
    }
  }
}

std::string ChainLowering::lowerComplete(const CompleteNode &N, const Ctx &C) {
  std::string Out;
  const bool KnownFailure = knownFailure(N.Err, C.Failing);
  if (N.ValueWithError && KnownFailure)
    refuse(ids::ValueWithError, N.Where, ValueWithErrorMessage);
  // Where exits are promises (the function's own body among them), a failure
  // is a rejected promise: a throw there would escape to the caller
  // synchronously instead of reaching the chain.
  if (KnownFailure)
    return C.Wrap ? "return " + S.reject(C.OutType, text(N.Err.Expr)) + ";\n"
                  : "throw asyncshift::error_exception(" + text(N.Err.Expr) + ");\n";
  if (!N.Err.IsSuccess && C.Wrap && N.Err.Var != NoVar)
    Out += "if (" + text(N.Err.Expr) + ") {\nreturn " + S.reject(C.OutType, text(N.Err.Expr)) + ";\n}\n";
  else if (!N.Err.IsSuccess)
    Out += "asyncshift::throw_if(" + text(N.Err.Expr) + ");\n";
  if (N.HasValue)
    return Out + returnValue(C, text(N.Value));
  return Out + returnValue(C, ResultType.empty() ? "" : ResultType + "{}");
}

/// Why a chain cannot take a named continuation whose error stays a value.
std::string ChainLowering::errorAsValueReason(const ContDefNode &J, const JoinPlan::Join &Plan) const {
  const std::string Name = "named continuation '" + F.Vars[J.Name].Name + "'";
  if (Plan.CleanupReadsValue)
    return Name + " reads its value '" + F.Vars[J.Cont.Value].Name +
           "' in the cleanup before it propagates an error, and a chain has that value only inside the "
           "continuation, not where the error arises; cannot convert to this style yet (--style=coro or "
           "coro-values converts it)";
  if (Plan.OwnErrorSite)
    return Name + " is called with an error that is not the outcome of an operation before it ('" +
           Plan.OwnErrorSite->Err.Expr.Source +
           "'), and a chain hands a named continuation an error only as the rejection of the operation before it; "
           "cannot convert to this style yet (call the handler with that error instead, or use --style=coro or "
           "coro-values)";
  return Name + " reads the error it receives other than by propagating it (`if (err) return done(err);`), and a "
                "chain that joins at a named continuation hands it only values; cannot convert to this style yet "
                "(--style=coro or coro-values converts it; in this style, propagate the error unchanged and log or "
                "translate it where the call completes)";
}

/// Where a refusal of \p Plan's error as a value points: the call that
/// passes its own error, or \p Else.
static Loc errorAsValueWhere(const JoinPlan::Join &Plan, Loc Else) {
  return Plan.OwnErrorSite ? Plan.OwnErrorSite->Where : Else;
}

std::string ChainLowering::lowerJump(const JumpNode &N, const Ctx &C) {
  const ContDefNode &J = *F.Conts[N.Target];
  const JoinPlan::Join &Plan = this->Plan.Joins[N.Target];
  if (Plan.ErrorAsValue) {
    refuse(ids::UnsupportedJoin, errorAsValueWhere(Plan, N.Where), errorAsValueReason(J, Plan));
    return "";
  }
  if (!Anchored.count(N.Target)) {
    if (Plan.Sites.size() != 1) {
      refuse(ids::UnsupportedJoin, N.Where,
             "named continuation '" + F.Vars[J.Name].Name +
                 "' is called from paths that do not meet after one 'if'; cannot convert");
      return "";
    }
    // The only call: the body follows, its parameter a local.
    std::string Out;
    if (J.Cont.Value != NoVar && N.HasValue)
      Out += declareLocal(J.Cont.Value, F.Vars[J.Cont.Value].Type, text(N.Value));
    if (!J.Comment.empty())
      Out += J.Comment + "\n";
    return Out + lowerSeq(inlinedBody(N), C);
  }
  return returnValue(C, J.Cont.Value != NoVar && N.HasValue ? text(N.Value) : "");
}

std::string ChainLowering::lowerAwait(const AsyncCallNode &A, const Ctx &C) {
  if (A.Handler == AsyncCallNode::HandlerKind::Forward)
    return "return " + promiseOf(A, "", stepOperation(A, C)) + ";\n";

  const Continuation &Cont = A.Cont;
  enum class Mode { Propagate, Ignore, Value };
  ErrorHandling H = errorHandlingOf(A, Plan, /*ErrorsAsValues=*/false);
  Mode M = H.K == ErrorHandling::Kind::Propagate ? Mode::Propagate
           : H.K == ErrorHandling::Kind::Ignored ? Mode::Ignore
                                                 : Mode::Value;
  std::vector<const SyncNode *> Cleanup = H.Cleanup;
  Step Next;
  Next.Nodes = H.Rest;
  // A cleanup that reads the value (default-made on failure) cannot run in a
  // tap_error, where that name is unbound or an outer variable's: settle and
  // run the continuation's own check, as the coroutine printer does.
  if (M == Mode::Propagate && Cont.Value != NoVar)
    for (const SyncNode *S : Cleanup)
      if (S->Code.references(Cont.Value)) {
        M = Mode::Value;
        Cleanup.clear();
        Next.Nodes = nodesOf(Cont.Body);
        break;
      }
  std::string Tap;
  if (M == Mode::Propagate && !Cleanup.empty()) {
    std::string Body;
    for (const SyncNode *N : Cleanup)
      Body += withComment(N->Comment, text(N->Code)) + "\n";
    // The check's own comments go with what runs on failure.
    if (!H.Comments.empty())
      Body += H.Comments + "\n";
    Tap = capture() + "(const asyncshift::error &) {\n" + Body + "}";
  } else if (M == Mode::Propagate) {
    // A folded check without cleanup: its comments where the success path goes on.
    Next.Comment = H.Comments;
  }
  // A leaf's promise, or an operation fan-out's future, is made here: its
  // cleanup goes with the operation (on_error runs it inline, as the
  // original's `if (err)` did, with no second state). A converted
  // function's or another combinator's promise is made elsewhere: tap it.
  // A settled outcome is a future's (asyncshift::settle), not an operation's.
  const bool Returned = M == Mode::Propagate && stepOperation(A, C);
  std::string Head;
  if (Tap.empty())
    Head = promiseOf(A, "", Returned);
  else if (takesOnError(A))
    Head = promiseOf(A, ", asyncshift::on_error(" + Tap + ")", Returned);
  else
    Head = promiseOf(A) + ".tap_error(" + Tap + ")";
  if (M != Mode::Propagate)
    Head = "asyncshift::settle(" + Head + ")";

  Next.ValueType = A.ValueType;
  Next.ValueDeclType = A.ValueDeclType;
  if (M == Mode::Propagate) {
    Next.Kind = A.ValueType.empty() ? Step::In::Nothing : Step::In::Value;
    Next.Value = Cont.Value;
  } else {
    Next.Kind = Step::In::Settled;
    Next.Value = Cont.Value;
    Next.Err = M == Mode::Value ? Cont.Err : NoVar;
  }

  if (C.Flatten) {
    C.Flatten->Queue.push_back(std::move(Next));
    return "return " + Head + ";\n";
  }
  return returnChain(Head, std::move(Next), C.Typed && M == Mode::Propagate && isLeafHead(A));
}

std::string ChainLowering::lowerIf(const IfNode &I, const Ctx &C, bool &EndsStep) {
  // A join whose every call is inside this `if` continues after it.
  std::vector<unsigned> Joins;
  for (unsigned Id : joinsFollowing(I))
    if (!Anchored.count(Id))
      Joins.push_back(Id);
  if (Joins.size() > 1) {
    refuse(ids::UnsupportedJoin, I.Where, "two named continuations join after the same 'if'; cannot convert");
    return "";
  }
  std::optional<unsigned> Join;
  Ctx Arm = C;
  Arm.Flatten = nullptr; // async work in an arm is a nested chain
  Arm.JoinInto = nullptr;
  if (!Joins.empty()) {
    Join = Joins.front();
    const ContDefNode &J = *F.Conts[*Join];
    if (Plan.Joins[*Join].ErrorAsValue) {
      refuse(ids::UnsupportedJoin, errorAsValueWhere(Plan.Joins[*Join], I.Where), errorAsValueReason(J, Plan.Joins[*Join]));
      return "";
    }
    if (SuccessCompletionFinder Finder(F, *Join); Finder.in(I.Then) || Finder.in(I.Else)) {
      // The chain continues after the `if` with the named continuation's
      // steps: a path that completes the function instead would run them too.
      refuse(ids::UnsupportedJoin, I.Where,
             "a path of this 'if' completes the function without calling named continuation '" + Names.name(J.Name) +
                 "', which the others call; cannot convert to this style (--style=coro and coro-values convert it)");
      return "";
    }
    Anchored.insert(*Join);
    if (!C.JoinInto) {
      // No chain to continue: the `if` becomes the head of one.
      Arm.OutType = J.Cont.HasValueParam && J.Cont.Value != NoVar ? valueTypeOf(J.Cont.Value) : "";
      Arm.Wrap = true;
      Arm.Typed = true;
    }
  }
  Ctx ThenCtx = Arm, ElseCtx = Arm;
  if (I.Test.Err != NoVar)
    (I.Test.Negated ? ElseCtx : ThenCtx).Failing.insert(I.Test.Err);
  Names.push();
  for (VarId V : I.HeaderDeclares)
    declared(V);
  std::string Out = I.Kept == IfNode::KeptStatement::None ? "if (" + text(I.Cond) + ") {\n"
                    : I.Cond.empty()                      ? std::string("{\n")
                                                          : text(I.Cond) + " {\n";
  Out += lowerSeq(nodesOf(I.Then), ThenCtx);
  Names.pop();
  Out += "}";
  if (!I.Tail.empty()) // a `do` loop's `while (...);`
    Out += " " + text(I.Tail);
  if (I.HasElse) {
    Names.push();
    std::string Else = lowerSeq(nodesOf(I.Else), ElseCtx);
    Names.pop();
    if (isOneIfStatement(Else))
      Out += " else " + Else.substr(0, Else.find_last_not_of('\n') + 1);
    else
      Out += " else {\n" + Else + "}";
  }
  Out += "\n";
  if (!Join)
    return Out;
  EndsStep = true;
  const ContDefNode &J = *F.Conts[*Join];
  const JoinPlan::Join &P = Plan.Joins[*Join];
  Step Next;
  Next.Nodes = P.Leading.K == ErrorHandling::Kind::Propagate ? P.Leading.Rest : nodesOf(J.Cont.Body);
  Next.Comment = J.Comment;
  if (J.Cont.HasValueParam && J.Cont.Value != NoVar) {
    Next.Kind = Step::In::Value;
    Next.Value = J.Cont.Value;
    Next.ValueType = valueTypeOf(J.Cont.Value);
  }
  if (C.JoinInto) {
    C.JoinInto->Queue.push_back(std::move(Next));
    return Out;
  }
  std::string Head = "[&]() -> " + S.type(Arm.OutType) + " {\n" + Out + "}()";
  return returnChain(Head, std::move(Next));
}

std::string ChainLowering::lowerSeq(const std::vector<const Node *> &Nodes, const Ctx &C) {
  std::string Out;
  for (const Node *N : Nodes) {
    if (!N->Comment.empty() && N->Kind != NodeKind::ContDef)
      Out += N->Comment + "\n";
    // The comments after a block's last statement follow what it became.
    const std::string After = N->After.empty() ? "" : N->After + "\n";
    switch (N->Kind) {
    case NodeKind::Sync:
      Out += syncText(static_cast<const SyncNode &>(*N)) + After;
      break;
    case NodeKind::ContDef:
    case NodeKind::Return:
      Out += After;
      break;
    case NodeKind::Complete: {
      std::string Done = lowerComplete(static_cast<const CompleteNode &>(*N), C);
      if (!N->Trailing.empty()) { // on the line it became, when it became one
        if (!Done.empty() && Done.find('\n') == Done.size() - 1) // one line
          Done.insert(Done.size() - 1, " " + N->Trailing);
        else
          Done += N->Trailing + "\n";
      }
      return Out + Done + After;
    }
    case NodeKind::Jump:
      return Out + lowerJump(static_cast<const JumpNode &>(*N), C) + After;
    case NodeKind::AsyncCall:
      return Out + lowerAwait(static_cast<const AsyncCallNode &>(*N), C) + After;
    case NodeKind::If: {
      bool EndsStep = false;
      Out += lowerIf(static_cast<const IfNode &>(*N), C, EndsStep) + After;
      if (EndsStep)
        return Out;
      break;
    }
    case NodeKind::Loop:
      return Out + lowerLoop(static_cast<const LoopNode &>(*N)) + After;
    case NodeKind::Recur: {
      const auto &R = static_cast<const RecurNode &>(*N);
      const LoopNode &L = *LoopsById.at(R.Loop);
      std::string Args;
      for (const Text &T : R.Args)
        Args += ", " + text(T);
      return Out + "return " + Names.name(L.Self) + "(" + Names.name(L.Self) + Args + ");\n" + After;
    }
    }
  }
  return Out;
}

/// The recursive-lambda idiom stays one: a lambda returning a promise
/// (future) of the function's result, calling itself for the next iteration.
std::string ChainLowering::lowerLoop(const LoopNode &L) {
  PrintsEscapingLambdas = true;
  LoopsById[L.Id] = &L;
  std::string Inits;
  for (const Text &T : L.Init)
    Inits += ", " + text(T);
  declared(L.Name);
  std::string Step = Names.name(L.Name);
  unsigned Saved = CurScope;
  CurScope = NextScope++;
  Cur.emplace_back(NextChain++, 0);
  Names.push();
  declared(L.Self);
  std::string Params = "auto &" + Names.name(L.Self);
  for (std::size_t I = 0; I < L.Params.size(); ++I) {
    declared(L.Params[I]);
    Params += ", " + L.ParamTypes[I] + " " + Names.name(L.Params[I]);
  }
  Ctx Root;
  Root.OutType = ResultType;
  Root.Wrap = true;
  Root.Typed = true;
  std::string Body = lowerSeq(nodesOf(L.Body), Root);
  std::string Prefix = statePrefix(CurScope);
  Names.pop();
  Cur.pop_back();
  CurScope = Saved;
  return "auto " + Step + " = " + capture() + "(" + Params + ") -> " + S.type(ResultType) + " {\n" + Prefix + Body + "};\nreturn " +
         Step + "(" + Step + Inits + ");\n";
}

std::string ChainLowering::renderStep(Step &St, ChainBuild &Chain) {
  Names.push();
  std::string Param, Prefix;
  switch (St.Kind) {
  case Step::In::Nothing:
    break;
  case Step::In::Value: {
    std::string Type = St.ValueType;
    if (St.Value == NoVar) {
      Param = Type;
      break;
    }
    declared(St.Value);
    bool H = Mode == Pass::Emit && Hoisted.count(St.Value);
    std::string Local = Names.name(St.Value);
    Param = (St.ValueDeclType.empty() ? Type : St.ValueDeclType) + " " + Local;
    if (H)
      Prefix += nameOf(St.Value) + " = " + Local + ";\n";
    break;
  }
  case Step::In::Settled: {
    std::string Settled = St.ValueType.empty() ? "asyncshift::error" : "asyncshift::result<" + St.ValueType + ">";
    if (St.ValueType.empty()) {
      if (St.Err == NoVar) {
        Param = Settled;
      } else {
        declared(St.Err);
        bool H = Mode == Pass::Emit && Hoisted.count(St.Err);
        std::string Local = Names.name(St.Err);
        Param = Settled + " " + Local;
        if (H)
          Prefix += nameOf(St.Err) + " = " + Local + ";\n";
      }
      break;
    }
    if (St.Err == NoVar && St.Value == NoVar) {
      Param = Settled; // the outcome is not read: only waited for
      break;
    }
    std::string R = Names.fresh("settled");
    Param = Settled + " " + R;
    if (St.Err != NoVar)
      Prefix += declareLocal(St.Err, "asyncshift::error", R + ".err");
    if (St.Value != NoVar)
      Prefix += declareLocal(St.Value, St.ValueDeclType, R + ".value");
    break;
  }
  }

  // What the step returns: all its exits agree (completions, a join value,
  // or the next call's promise).
  Exits E;
  scanExits(St.Nodes, E);
  Ctx C;
  // Only a step whose one exit is its last call continues in this chain; a
  // step that may also complete keeps what follows that call nested.
  C.Flatten = E.Values == 0 && E.Promises == 1 ? &Chain : nullptr;
  C.JoinInto = &Chain;
  bool Known = false;
  C.OutType = outTypeOf(St.Nodes, Known);
  C.Wrap = E.Promises > 0 && E.Values > 0;
  // Several chains returned (the arms of an `if`): the step spells its type,
  // so that each arm's chain may be fused and converts to it.
  const bool SpellType = !C.Wrap && E.Promises > 1 && Known;
  // Only where the step spells its type: a chain returned from a lambda
  // whose type is deduced would convert, and start, after the lambda has
  // returned, when the locals its first start takes by reference are gone.
  C.Typed = C.Wrap || SpellType;
  std::string Body = (St.Comment.empty() ? "" : St.Comment + "\n") + lowerSeq(St.Nodes, C);
  Names.pop();
  // A `return;` that ends the lambda says nothing.
  if (Body == "return;\n")
    Body.clear();
  else if (Body.size() > 9 && Body.compare(Body.size() - 9, 9, "\nreturn;\n") == 0)
    Body.erase(Body.size() - 8);

  std::string Ret;
  if (C.Wrap || SpellType)
    Ret = " -> " + S.type(C.OutType);
  else if (E.Promises == 0 && Known && !C.OutType.empty())
    Ret = " -> " + C.OutType; // also when every exit fails: the step still yields a T
  std::string Capture = capture();
  return Capture + (Param.empty() && Ret.empty() ? "" : "(" + Param + ")") + Ret + " {\n" + Prefix + Body + "}";
}

/// The type a step's value exits produce: the function's result for
/// completions, a join's parameter type for jumps.
std::string ChainLowering::outTypeOf(const std::vector<const Node *> &Nodes, bool &Known) const {
  OutTypeScan S;
  std::string T = scanOutType(Nodes, S, 0);
  Known = S.Known;
  if (!Known && S.SawFailure) {
    Known = true; // every exit fails: the step still has to be typed
    return ResultType;
  }
  return T;
}

/// outTypeOf's walk. A failure (`done(err)`) does not say what the step yields
/// (an arm may fail before jumping to a join that takes a value): it only
/// counts when no exit says more.
std::string ChainLowering::scanOutType(const std::vector<const Node *> &Nodes, OutTypeScan &S, unsigned Depth) const {
  for (const Node *N : Nodes) {
    switch (N->Kind) {
    case NodeKind::Complete: {
      const auto &C = static_cast<const CompleteNode &>(*N);
      if (!C.Err.IsSuccess && !C.HasValue) {
        S.SawFailure = true;
        continue;
      }
      S.Known = true;
      return ResultType;
    }
    case NodeKind::Jump: {
      if (const auto &Jump = static_cast<const JumpNode &>(*N); isInlined(Jump))
        return scanOutType(inlinedBody(Jump), S, Depth);
      const unsigned Target = static_cast<const JumpNode &>(*N).Target;
      if (S.ScannedJoins.count(Target))
        return ""; // its body said nothing more (it only fails): look on (fuzz seed 2929 program 4)
      const ContDefNode &J = *F.Conts[Target];
      S.Known = true;
      return J.Cont.HasValueParam && J.Cont.Value != NoVar ? valueTypeOf(J.Cont.Value) : "";
    }
    case NodeKind::If: {
      const auto &I = static_cast<const IfNode &>(*N);
      std::vector<unsigned> Nested;
      if (Depth > 0) {
        // A join after an `if` inside an arm is a chain nested in that arm
        // (lowerIf): the arm yields what the join's body yields; the arms'
        // jumps to it say nothing more (a body that only fails leaves the
        // step to be typed by what follows the arm).
        for (unsigned Id : joinsFollowing(I)) {
          const JoinPlan::Join &J = Plan.Joins.at(Id);
          const auto &Body = J.Leading.K == ErrorHandling::Kind::Propagate ? J.Leading.Rest : nodesOf(F.Conts[Id]->Cont.Body);
          std::string T = scanOutType(Body, S, Depth + 1);
          if (S.Known)
            return T;
          if (S.ScannedJoins.insert(Id).second)
            Nested.push_back(Id);
        }
      }
      std::string T = scanOutType(nodesOf(I.Then), S, Depth + 1);
      if (!S.Known)
        T = scanOutType(nodesOf(I.Else), S, Depth + 1);
      for (unsigned Id : Nested)
        S.ScannedJoins.erase(Id);
      if (S.Known)
        return T;
      break;
    }
    case NodeKind::AsyncCall: {
      // A step ends at its first call (what follows is the next step's), but
      // an arm's chain nested in the step yields what the chain ends with.
      if (Depth == 0)
        return "";
      const auto &A = static_cast<const AsyncCallNode &>(*N);
      if (A.Handler == AsyncCallNode::HandlerKind::Forward) {
        S.Known = true;
        return ResultType;
      }
      return scanOutType(nodesOf(A.Cont.Body), S, Depth + 1);
    }
    case NodeKind::Loop:
    case NodeKind::Recur:
      // A recursive-lambda loop (and each of its iterations) is a chain
      // typed as the function's result (lowerLoop): nested in an arm, the
      // arm yields that (fuzz seed 1 program 818).
      if (Depth == 0)
        return "";
      S.Known = true;
      return ResultType;
    default:
      break;
    }
  }
  return "";
}

std::string ChainLowering::returnChain(const std::string &Head, Step First, bool Fuse) {
  ChainBuild Chain;
  Chain.Id = NextChain++;
  Chain.Queue.push_back(std::move(First));
  std::string Out = "return " + Head;
  bool HasSteps = false;
  std::string Folded; // the comments of steps left out, after the statement
  Path Saved = Cur;
  unsigned Index = 0;
  while (!Chain.Queue.empty()) {
    Step St = std::move(Chain.Queue.front());
    Chain.Queue.pop_front();
    Cur = Saved;
    Cur.emplace_back(Chain.Id, ++Index);
    // A step with nothing to do (a call whose continuation only completes
    // with its value) needs no `.then`.
    if (St.Nodes.size() == 1 && St.Kind != Step::In::Settled) {
      if (const auto *C = dyn<CompleteNode>(St.Nodes.front());
          C && C->Err.IsSuccess && ((St.Kind == Step::In::Nothing && !C->HasValue && ResultType.empty()) ||
                                    (St.Kind == Step::In::Value && C->HasValue && C->Value.Refs.size() == 1 &&
                                     C->Value.Refs[0].Var == St.Value && C->Value.Source == F.Vars[St.Value].Name &&
                                     St.ValueType == ResultType && St.ValueDeclType.empty()))) {
        if (Mode == Pass::Plan)
          text(C->Value);
        for (const std::string *Comment : {&C->Comment, &C->Trailing, &C->After})
          if (!Comment->empty())
            Folded += *Comment + "\n";
        continue;
      }
    }
    Out += "\n.then(" + renderStep(St, Chain) + ")";
    HasSteps = true;
  }
  Cur = Saved;
  if (Saved.empty()) { // returned at the function's own level
    if (Mode == Pass::Plan)
      ++(Fuse && HasSteps ? RootFused : RootOther);
    else if (KeepState && Fuse && HasSteps)
      Out.insert(std::strlen("return ") + Head.size(), "\n.keep(std::move(" + StateOwnerName + "))");
  }
  // A chain with steps, made where it is returned whole: one state for the
  // chain (runtime/include/asyncshift/future_chain.hpp, promise_chain.hpp).
  if (Fuse && HasSteps)
    for (const char *Make : {"return asyncshift::make_future", "return asyncshift::make_promise"})
      if (Out.compare(0, std::strlen(Make), Make) == 0 && Out[std::strlen(Make)] != '_')
        Out.insert(std::strlen(Make), "_chain");
  return Out + ";\n" + Folded;
}

std::optional<PrintedFunction> ChainLowering::run() {
  while (F.Identifiers.count(CallbackName))
    CallbackName += "_";
  Plan = planJoins(F, /*ErrorsAsValues=*/false);

  auto lowerRoot = [&]() {
    ResultType = F.ResultType;
    CurScope = 0;
    NextScope = 1;
    Names = Naming(F);
    for (VarId P : F.Params)
      Names.declare(P);
    Cur.clear();
    NextChain = 0;
    Anchored.clear();
    Ctx Root;
    Root.OutType = ResultType;
    Root.Wrap = true;
    Root.Typed = true;
    return lowerSeq(nodesOf(F.Body), Root);
  };

  // Pass 1: where is each variable declared, and where used?
  Mode = Pass::Plan;
  lowerRoot();
  if (Failed)
    return std::nullopt;
  for (const auto &[V, Use] : UsedAt) {
    auto D = DeclaredAt.find(V);
    if (D == DeclaredAt.end() || D->second.empty())
      continue; // the function's own scope: captured by copy
    auto [DeclChain, DeclStep] = D->second.back();
    bool Later = true;
    for (auto [UseChain, UseStep] : Use)
      if (UseChain == DeclChain) {
        Later = UseStep > DeclStep;
        break;
      }
    if (Later)
      Hoisted.insert(V);
  }
  for (VarId V : Hoisted) {
    const Var &X = F.Vars[V];
    if (X.CopiedThenChangedRaw) {
      Finding Fd;
      Fd.Id = ids::StateVariable;
      Fd.Where = Loc{X.CopiedThenChangedRaw};
      Fd.Message = "a lambda copies '" + X.Name + "', which changes after that; '" + X.Name +
                   "' is read after a later wait, so this style keeps it in the call's state, where the lambda "
                   "would see the change; cannot convert to this style (copy it into a variable of its own that "
                   "does not change; --style=coro and coro-values keep it in the coroutine frame)";
      Out.push_back(std::move(Fd));
      return std::nullopt;
    }
    if (X.IsReference || valueTypeOf(V).empty() || !X.Assignable) {
      // A field of the per-call state is declared `T x{};` before the first
      // step and assigned where the variable was declared.
      std::string Why = X.IsReference ? "it is a reference (declare a copy instead)"
                        : valueTypeOf(V).empty() || X.StateType.empty()
                            ? "its type cannot be named before the steps (declared inside the function, or unnamed)"
                            : "its type cannot be default-constructed and assigned";
      Finding Fd;
      Fd.Id = ids::StateVariable;
      Fd.Where = X.DeclRaw ? Loc{X.DeclRaw} : F.Where;
      Fd.Message = "variable '" + X.Name + "' is read after a later wait, so this style keeps it in the call's state, but " +
                   Why + "; cannot convert to this style (--style=coro and coro-values keep it in the coroutine frame)";
      Out.push_back(std::move(Fd));
      return std::nullopt;
    }
  }
  // Field names: the variable's, unless two hoisted variables share one.
  std::set<std::string> Fields;
  for (VarId V : Hoisted) {
    std::string Name = F.Vars[V].Name;
    for (unsigned I = 2; Fields.count(Name); ++I)
      Name = F.Vars[V].Name + "_" + std::to_string(I);
    Fields.insert(Name);
    Field[V] = Name;
  }
  Naming Probe(F);
  std::set<unsigned> Scopes;
  for (VarId V : Hoisted)
    Scopes.insert(DeclScope.at(V));
  for (unsigned Scope : Scopes) {
    StateNames[Scope] = Probe.fresh(Scope == 0 ? "state" : "branch_state");
    StateTypes[Scope] = Probe.fresh(Scope == 0 ? F.Name + "_state" : F.Name + "_branch_state");
  }
  KeepState = keepsState(Scopes);
  if (KeepState)
    StateOwnerName = Probe.fresh("state_owner");

  // Pass 2: print.
  Mode = Pass::Emit;
  std::string Body = lowerRoot();
  if (Failed)
    return std::nullopt;

  PrintedFunction P;
  P.ReturnType = S.type(ResultType);
  P.Body = "{\n" + statePrefix(0) + Body + "}";
  return P;
}

/// Whether the function's chains keep its per-call state (keep(), and a
/// plain pointer in every lambda): only when nothing that captures the
/// pointer can run after the chain is destroyed. Every lambda this printer
/// makes runs inside the chain (a step, an operation's start, a cleanup, a
/// nested chain the step waits for) but for a combinator's branches (one may
/// run on after the first failure), a loop's lambda and a detached call's
/// handler; and the state is the function's own (scope 0), and every chain
/// returned at the function's level is fused and returned whole, so each
/// can keep it (a call returns one of them; the others never take it). A
/// lambda written in the source that names a hoisted variable might be kept
/// by the code that receives it.
bool ChainLowering::keepsState(const std::set<unsigned> &Scopes) const {
  if (Scopes != std::set<unsigned>{0} || F.HasDetachedCalls || PrintsEscapingLambdas || RootFused == 0 ||
      RootOther != 0)
    return false;
  for (VarId V : Hoisted)
    if (InLambdaText.count(V))
      return false;
  return true;
}

class ChainPrinter : public StylePrinter {
public:
  explicit ChainPrinter(bool IsPromise) : IsPromise(IsPromise) {}
  const char *name() const override { return IsPromise ? "promise" : "future"; }
  std::optional<PrintedFunction> print(const AsyncFunction &F, std::vector<Finding> &Out) const override {
    ChainLowering L(F, IsPromise, Out);
    return L.run();
  }
  std::string detachedCall(const std::string &Call, const std::string &Handler) const override {
    return Call + ".then_callback(" + Handler + ")";
  }
  bool defersContinuations() const override { return IsPromise; }

private:
  bool IsPromise;
};

} // namespace

std::unique_ptr<StylePrinter> makeChainPrinter(bool IsPromise) { return std::make_unique<ChainPrinter>(IsPromise); }

} // namespace asyncshift
