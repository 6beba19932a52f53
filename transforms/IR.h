//===- IR.h - The continuation IR of an async function ----------*- C++ -*-===//
//
// What the analysis knows about one async function, free of Clang types, so
// that printers and their tests need no AST. An async function is a tree of
// blocks; a block is a list of nodes:
//
//   Sync      statements kept verbatim (source text with renameable references)
//   AsyncCall a call whose last argument is a continuation, a forwarded
//             handler, or a named continuation (normalised to a Jump)
//   If        a condition and two blocks; error checks are recognised later
//   Complete  the handler is called: done(err) / done({}, v)
//   Jump      a named continuation is called: where paths join
//   ContDef   a named continuation is defined
//   Return    a plain `return;` (the path ends without completing)
//   Loop      the recursive-lambda idiom: a loop whose iterations may wait
//   Recur     `self(self, args...)`: the loop's next iteration
//
// Source text is kept as Text: the characters plus the positions of every
// reference to one of the function's variables, so a printer can rename a
// variable that flattening would make clash with another.
//
//===----------------------------------------------------------------------===//
#ifndef ASYNCSHIFT_TRANSFORMS_IR_H
#define ASYNCSHIFT_TRANSFORMS_IR_H

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace asyncshift {

using VarId = unsigned;
inline constexpr VarId NoVar = ~0u;

/// A variable of the async function: a parameter, a local, or a parameter of
/// one of its continuations.
struct Var {
  std::string Name;
  /// The type as written, without references and cv-qualifiers (for
  /// declarations a printer must write itself); may be empty.
  std::string Type;
  /// True when the type is asyncshift::error.
  bool IsError = false;
  /// The declared type printed in full (auto deduced), for a field holding
  /// the variable in a per-call state; empty when it cannot be named.
  std::string StateType;
  /// A field of StateType can be default-constructed and assigned.
  bool Assignable = true;
  bool IsReference = false;
  /// A class that cannot be copied (`std::unique_ptr<T>`): a lambda that
  /// needs it later must move it in.
  bool MoveOnly = false;
  /// Where it is declared (none for a variable the tool made up).
  unsigned DeclRaw = 0;
  /// Where a lambda written in the source copies it (`[=]`, `[x]`) when it
  /// changes after that (outside the lambda, or inside a mutable one): a
  /// printer that keeps the variable in a state the steps share would let
  /// the lambda see the change. 0 when no lambda does.
  unsigned CopiedThenChangedRaw = 0;
};

struct Splice;

/// Source text with the positions of references to the function's variables,
/// and of calls a printer must spell its own way (Splices).
struct Text {
  struct Ref {
    unsigned Offset;
    unsigned Length;
    VarId Var;
  };
  std::string Source;
  std::vector<Ref> Refs;
  std::vector<Splice> Splices;
  /// Whether the text uses `this` (a member, explicitly or not): a lambda
  /// the printer wraps around it must capture `this`.
  bool UsesThis = false;

  bool empty() const { return Source.empty(); }
  bool references(VarId V) const {
    for (const Ref &R : Refs)
      if (R.Var == V)
        return true;
    return false;
  }
};

/// A call of a function this run converts, inside text kept verbatim, that
/// does not wait for it (`step([](asyncshift::error) {});`): the printer
/// replaces [Offset, Offset + Length) with its style's detached call of
/// `Call` (the call without its handler) delivering to `Handler`.
struct Splice {
  unsigned Offset = 0;
  unsigned Length = 0;
  Text Call;
  Text Handler;
};

/// A statement that declares exactly one variable, split so a printer can
/// turn the declaration into an assignment of a per-call state's field.
struct VarDeclInfo {
  enum class InitKind { None, Copy, Direct, List };
  InitKind Kind = InitKind::None;
  /// Copy: the expression after `=`; Direct: `(args)`; List: `{...}`.
  Text Initializer;
  /// The declared type as written (`auto`, `version_record`, ...).
  std::string WrittenType;
};

/// An opaque source position, for diagnostics raised after IR building.
struct Loc {
  unsigned Raw = 0;
};

enum class NodeKind { Sync, AsyncCall, If, Complete, Jump, ContDef, Return, Loop, Recur };

struct Node {
  explicit Node(NodeKind K) : Kind(K) {}
  virtual ~Node() = default;
  NodeKind Kind;
  Loc Where;
  /// The comments written between the previous statement of the block (or
  /// its `{`) and this one, one per line, which the printers put before what
  /// they print for this node (a folded leading error check hands them to
  /// the next node; a step the chain styles leave out, to the chain).
  std::string Comment;
  /// On the last node of a block: the comments written after it, before the
  /// block's `}`, which the printers put after everything the node becomes
  /// (its continuation too: the comments keep their order in the text).
  std::string After;
  /// A completion's `//` comment on its own line (`done({}, v); // why`),
  /// which the printers keep on the line of what it becomes when that is one
  /// line, and put after it otherwise. (A SyncNode's stays in its Code.)
  std::string Trailing;
};

using NodePtr = std::unique_ptr<Node>;
using Block = std::vector<NodePtr>;

/// Statements kept as written.
struct SyncNode : Node {
  SyncNode() : Node(NodeKind::Sync) {}
  Text Code;
  /// Variables this statement declares in its block.
  std::vector<VarId> Declares;
  /// Set when the statement declares exactly one variable (Declares[0]).
  bool HasDecl = false;
  VarDeclInfo Decl;
  /// A structured binding declaration: Declares holds its bindings.
  bool Decomposition = false;
  static bool classof(const Node *N) { return N->Kind == NodeKind::Sync; }
};

/// The body of a continuation: (error Err, T Value) { Body }.
struct Continuation {
  VarId Err = NoVar;   ///< NoVar when the parameter is unnamed.
  VarId Value = NoVar; ///< NoVar when absent or unnamed.
  bool HasValueParam = false;
  Block Body;
};

/// asyncshift::parallel or asyncshift::each_series called with a lambda: the
/// lambda is an async function of its own (handler `Handler`), run for each
/// index, that a printer can turn into when_all or a loop.
struct Combinator {
  enum class Kind { Parallel, EachSeries };
  Kind K = Kind::Parallel;
  Text Count;
  VarId Index = NoVar;
  std::string IndexType = "std::size_t";
  VarId Handler = NoVar;
  /// T of the branch's callback<T> ("" for callback<>).
  std::string ItemType;
  Block Body;
  /// Variables of the enclosing function the body reads.
  std::vector<VarId> Captured;
  Loc Where;
};

struct AsyncCallNode : Node {
  AsyncCallNode() : Node(NodeKind::AsyncCall) {}
  /// The call up to its handler argument, and from after it to the end:
  /// `Prefix` + handler + `Suffix` is the original call.
  Text Prefix, Suffix;
  /// The call without its handler argument (for callees this run converts).
  Text WithoutHandler;
  /// The callee is an async function this run converts (it will return a
  /// task/promise/future); otherwise it is a leaf reached through promisify.
  bool CalleeConverted = false;
  /// An argument other than the handler makes a std::initializer_list
  /// (`f({a, b}, done)`): g++ 12 cannot compile one inside a co_await
  /// expression, so the coroutine printers call a converted callee first.
  bool ArgsMakeInitializerList = false;
  /// T of the callee's callback<T>; empty for callback<>.
  std::string ValueType;
  /// The callee's handler parameter takes an rvalue (by value, `const&` or a
  /// forwarding reference), so a printer may hand it a callback with
  /// std::move; false for a non-const lvalue reference or an unknown callee.
  bool HandlerTakesRvalue = false;

  enum class HandlerKind { Continuation, Forward } Handler = HandlerKind::Continuation;
  Continuation Cont;
  /// Declared type of the continuation's value parameter when it differs from
  /// ValueType (an implicit conversion the printer must keep).
  std::string ValueDeclType;
  bool IsReturn = false;
  /// Set for parallel / each_series with a lambda; printers that do not
  /// specialise it can still print the call as a leaf.
  std::unique_ptr<Combinator> Comb;

  static bool classof(const Node *N) { return N->Kind == NodeKind::AsyncCall; }
};

/// How an `if` tests an error variable, when it does.
struct ErrorTest {
  VarId Err = NoVar;
  bool Negated = false; ///< `if (!err)`
};

struct IfNode : Node {
  IfNode() : Node(NodeKind::If) {}
  Text Cond;
  ErrorTest Test;
  Block Then, Else;
  bool HasElse = false;
  /// A statement that waits for nothing and may complete the function from
  /// inside, kept as written: Cond holds its text up to the block that Then
  /// holds, printed instead of `if (Cond)`. Loop: a loop's header (`for
  /// (...)`, `while (...)`, `do`), Then its body (a validation loop: `for
  /// (auto &x : xs) if (!ok(x)) return done(error(...));`). Catch: `try { ... } catch
  /// (...)`, whose try block completes nothing, Then its handler (`catch
  /// (const std::exception &e) { return done(error(e.what())); }`). Block:
  /// a nested `{ ... }`, Cond empty, Then its statements. Then holds no
  /// async call, jump or loop idiom, and its every completion returns. Paths
  /// through it are those of an `if` without `else`: Then completes the
  /// function, or control goes on after the statement.
  enum class KeptStatement { None, Loop, Catch, Block } Kept = KeptStatement::None;
  /// The variables Cond declares (`i`, a range-for's element, the caught
  /// exception), in scope in Then only.
  std::vector<VarId> HeaderDeclares;
  /// A kept `do` loop's `while (...);`, printed after Then's closing brace.
  Text Tail;
  /// A kept loop left only by the completions in its body (`for (;;)`,
  /// `while (true)`, no `break` of its own): no path goes on after it.
  bool Endless = false;
  static bool classof(const Node *N) { return N->Kind == NodeKind::If; }
};

/// An argument in error position: `{}`, a variable, or another expression.
struct ErrorArg {
  bool Present = false;
  bool IsSuccess = false;     ///< `{}`, `asyncshift::error()`, ...
  bool IsFailure = false;     ///< `asyncshift::error("message")`: always a failure
  VarId Var = NoVar;          ///< the expression is this variable
  Text Expr;
};

struct CompleteNode : Node {
  CompleteNode() : Node(NodeKind::Complete) {}
  ErrorArg Err;
  bool HasValue = false;
  Text Value;
  /// `done(err, v)` where err may be a failure and v is neither a default
  /// (`{}`, `0`, `T{}`) nor the value forwarded with that error from a
  /// continuation's `(err, v)`. On a path where err is known to be a failure
  /// (`if (err) return done(err, partial);`) the value is meant for the
  /// caller, and only errors-as-values code can hand it over: the other
  /// printers refuse that. (`done(err, v)` where err may be success is the
  /// success value, and converts: SPEC §3 fails with `cb(err)`.)
  bool ValueWithError = false;
  bool IsReturn = false;
  static bool classof(const Node *N) { return N->Kind == NodeKind::Complete; }
};

struct JumpNode : Node {
  JumpNode() : Node(NodeKind::Jump) {}
  unsigned Target = 0; ///< index into AsyncFunction::Conts
  ErrorArg Err;
  bool HasValue = false;
  Text Value;
  bool IsReturn = false;
  static bool classof(const Node *N) { return N->Kind == NodeKind::Jump; }
};

/// `auto next = [=](asyncshift::error err, T v) { ... };`
struct ContDefNode : Node {
  ContDefNode() : Node(NodeKind::ContDef) {}
  unsigned Id = 0;
  VarId Name = NoVar;
  Continuation Cont;
  static bool classof(const Node *N) { return N->Kind == NodeKind::ContDef; }
};

/// The recursive-lambda idiom, started where it was: `step(step, init...)`.
struct LoopNode : Node {
  LoopNode() : Node(NodeKind::Loop) {}
  unsigned Id = 0;
  VarId Name = NoVar; ///< the lambda's variable (`step`)
  VarId Self = NoVar; ///< its first parameter (`self`)
  std::vector<VarId> Params;
  std::vector<std::string> ParamTypes;
  std::vector<Text> Init;
  Block Body;
  bool IsReturn = false;
  static bool classof(const Node *N) { return N->Kind == NodeKind::Loop; }
};

/// `self(self, args...)`: the next iteration of loop `Loop`.
struct RecurNode : Node {
  RecurNode() : Node(NodeKind::Recur) {}
  unsigned Loop = 0;
  std::vector<Text> Args;
  bool IsReturn = false;
  static bool classof(const Node *N) { return N->Kind == NodeKind::Recur; }
};

/// A plain `return;`.
struct ReturnNode : Node {
  ReturnNode() : Node(NodeKind::Return) {}
  static bool classof(const Node *N) { return N->Kind == NodeKind::Return; }
};

template <class T> T *dyn(Node *N) { return N && T::classof(N) ? static_cast<T *>(N) : nullptr; }
template <class T> const T *dyn(const Node *N) {
  return N && T::classof(N) ? static_cast<const T *>(N) : nullptr;
}

/// One async function, ready for printing.
struct AsyncFunction {
  std::string Name;
  /// T of the handler's callback<T>; empty for callback<>.
  std::string ResultType;
  /// The first value type of an operation or of the function that cannot be
  /// default-constructed (coro-values holds each in a result<T>).
  std::string NoDefaultValueType;
  VarId Handler = NoVar;
  /// The function's parameters, without the handler.
  std::vector<VarId> Params;
  /// A non-static member function: lambdas the printers make capture
  /// `this` explicitly (`[=, this]`; implicit capture is deprecated).
  bool IsMember = false;
  /// Some text holds a detached call of a converted function (a Splice): its
  /// handler may run after the call's promise or future settled.
  bool HasDetachedCalls = false;
  Block Body;
  std::vector<Var> Vars;
  /// Named continuations, by ContDefNode::Id.
  std::vector<const ContDefNode *> Conts;
  /// Every identifier spelled in the function, so fresh names never collide.
  std::set<std::string> Identifiers;
  /// Identifiers that name something other than the function's variables
  /// inside named continuations (joins): a variable that flattening moves into
  /// their scope must not shadow them.
  std::set<std::string> JoinOuterNames;
  Loc Where;
};

/// Prints the IR as an indented tree (for --dump-ir and tests).
std::string dumpIR(const AsyncFunction &F);

} // namespace asyncshift

#endif
