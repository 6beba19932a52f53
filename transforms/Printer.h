//===- Printer.h - One printer per output style ------------------*- C++ -*-===//
//
// A style printer turns the IR of an async function into the new return type
// and the new body. Adding a style is adding a printer and one line in the
// registry (Printer.cpp). Printers share Naming (which variable is called
// what in the output, so flattening never makes two of them clash).
//
//===----------------------------------------------------------------------===//
#ifndef ASYNCSHIFT_TRANSFORMS_PRINTER_H
#define ASYNCSHIFT_TRANSFORMS_PRINTER_H

#include "Findings.h"
#include "IR.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace asyncshift {

struct PrintedFunction {
  /// Replaces the return type (`void`).
  std::string ReturnType;
  /// Replaces the body, braces included.
  std::string Body;
};

class StylePrinter {
public:
  virtual ~StylePrinter() = default;
  /// The style's name on the command line.
  virtual const char *name() const = 0;
  /// Prints \p F, or returns std::nullopt after appending refusals to \p Out.
  virtual std::optional<PrintedFunction> print(const AsyncFunction &F, std::vector<Finding> &Out) const = 0;
  /// How a call of a converted function looks where the caller keeps its
  /// callback (outside any converted function): \p Call is the call without
  /// its handler, \p Handler the handler's text.
  virtual std::string detachedCall(const std::string &Call, const std::string &Handler) const = 0;
  /// Whether a continuation runs later than the completion that calls it
  /// (promise style: always from the microtask queue), even when the
  /// original's completion ran it at once.
  virtual bool defersContinuations() const { return false; }
};

/// The error a completion passes is known to be a failure here: a failure
/// made on the spot, or an error variable \p Failing says failed on this path.
inline bool knownFailure(const ErrorArg &E, const std::set<VarId> &Failing) {
  return E.IsFailure || (E.Var != NoVar && Failing.count(E.Var));
}

/// Why a style whose failures carry only the error (promise, future, coro)
/// refuses a completion known to fail that passes a value meant for the
/// caller (CompleteNode::ValueWithError).
inline constexpr const char *ValueWithErrorMessage =
    "the handler gets an error and a value here, and the caller may read that value; a rejected promise, a failed "
    "future or a thrown exception carries only the error; cannot convert to this style (pass the value on success "
    "only, or use --style=coro-values, which keeps both)";

/// `asyncshift::promisify(` or `asyncshift::promisify<T>(` for a call whose
/// callback carries \p ValueType ("" for callback<>).
inline std::string promisifyOpen(const std::string &ValueType) {
  return ValueType.empty() ? "asyncshift::promisify(" : "asyncshift::promisify<" + ValueType + ">(";
}

/// `\n.map(Capture(ValueType Value) -> ItemType { return Body; })`: what a
/// mapped branch's operation (mappedBranchCall) is followed by, in every style.
inline std::string mapSuffix(const std::string &Capture, const std::string &ValueType, const std::string &Value,
                             const std::string &ItemType, const std::string &Body) {
  return "\n.map(" + Capture + "(" + ValueType + " " + Value + ") -> " + ItemType + " { return " + Body + "; })";
}

/// The one call of a combinator branch that is nothing but that call passing
/// its outcome on (`[=](std::size_t i, auto cb) { op(i, cb); }`), or null.
/// Such a parallel branch needs no task, promise or future of its own.
inline const AsyncCallNode *forwardingBranchCall(const Combinator &K) {
  if (K.Body.size() != 1)
    return nullptr;
  const auto *A = dyn<AsyncCallNode>(K.Body.front().get());
  return A && A->Handler == AsyncCallNode::HandlerKind::Forward && !A->Comb ? A : nullptr;
}

/// A parallel branch that is one operation (not a converted function) whose
/// continuation passes a failure on and completes with a value made from the
/// operation's value, the branch index and what the branch captures:
///
///   [=](std::size_t i, callback<T> cb) {
///     op(i, [=](error err, V v) { if (err) return cb(err); cb({}, f(v)); });
///   }
///
/// Printers give it as `promisify<V>(...).map([=](V v) -> T { return f(v); })`:
/// f runs where the operation completes, as the continuation did, and the
/// branch needs no task, promise or future of its own (as a forwarding one).
struct MappedBranch {
  const AsyncCallNode *Call = nullptr;
  /// `cb({}, f(v))`: its Value is f(v).
  const CompleteNode *Done = nullptr;
};
inline std::optional<MappedBranch> mappedBranchCall(const Combinator &K) {
  if (K.K != Combinator::Kind::Parallel || K.ItemType.empty() || K.Body.size() != 1)
    return std::nullopt;
  const auto *A = dyn<AsyncCallNode>(K.Body.front().get());
  if (!A || A->Handler != AsyncCallNode::HandlerKind::Continuation || A->Comb || A->CalleeConverted ||
      A->ValueType.empty() || !A->ValueDeclType.empty())
    return std::nullopt;
  const Continuation &C = A->Cont;
  if (C.Err == NoVar || C.Value == NoVar || C.Body.size() != 2)
    return std::nullopt;
  const auto *If = dyn<IfNode>(C.Body[0].get());
  if (!If || If->Test.Err != C.Err || If->Test.Negated || If->HasElse || If->Then.size() != 1)
    return std::nullopt;
  const auto *Fail = dyn<CompleteNode>(If->Then.front().get());
  // `return cb(err);`, or `return cb(err, 0);` with a default value (not one meant for the caller).
  if (!Fail || Fail->Err.Var != C.Err || Fail->ValueWithError || !Fail->IsReturn)
    return std::nullopt;
  const auto *Done = dyn<CompleteNode>(C.Body[1].get());
  if (!Done || !Done->Err.IsSuccess || !Done->HasValue || !Done->Value.Splices.empty())
    return std::nullopt;
  for (const Text::Ref &R : Done->Value.Refs)
    if (R.Var != C.Value && R.Var != K.Index &&
        std::find(K.Captured.begin(), K.Captured.end(), R.Var) == K.Captured.end())
      return std::nullopt;
  return MappedBranch{A, Done};
}

/// \p Line with the comment lines \p Comment (if any) before it.
inline std::string withComment(const std::string &Comment, const std::string &Line) {
  return Comment.empty() ? Line : Comment + "\n" + Line;
}

/// Marks, in printed text, the end of a text that uses `this`
/// (Text::UsesThis): settleThisCaptures decides from it which lambdas keep
/// their `this` capture, and removes it.
constexpr char ThisMark = '\x01';

/// For each `[=, this]` lambda the printers wrote in \p Body, drops `this`
/// from the capture unless the lambda's body holds a ThisMark (a lambda that
/// uses no member would warn under clang's -Wunused-lambda-capture); then
/// removes the marks.
void settleThisCaptures(std::string &Body);

/// Whether printed statements \p Body are one `if` statement (with its `else
/// if` and `else` arms) and nothing more: an `else` arm that is only that
/// prints as `else if`, as people write it. Literals and comments are
/// skipped; a comment before or after the `if` makes it more than one.
bool isOneIfStatement(const std::string &Body);

/// The printer for \p Style, or null if there is no such style.
std::unique_ptr<StylePrinter> makePrinter(const std::string &Style);

/// The styles the tool can print, in registry order.
std::vector<std::string> styleNames();

/// Output names of an async function's variables. Names are given when a
/// variable is declared in the output; a name already visible, or one that a
/// named continuation uses for something else, is replaced by a fresh one.
class Naming {
public:
  explicit Naming(const AsyncFunction &F);

  /// Gives \p V its output name in the innermost scope, avoiding \p Avoid.
  const std::string &declare(VarId V, const std::set<std::string> &Avoid = {});
  /// The output name of \p V (its source name until declared).
  const std::string &name(VarId V) const { return Names[V]; }
  /// A name not used anywhere in the function, based on \p Base.
  std::string fresh(const std::string &Base);

  void push() { Scopes.emplace_back(); }
  void pop() { Scopes.pop_back(); }

  /// Renders \p T with every variable under its output name.
  std::string render(const Text &T) const;

  /// How the style spells a detached call of a converted function (Splices).
  using DetachedSpelling = std::string (*)(const std::string &Call, const std::string &Handler);
  void setDetached(DetachedSpelling D) { Detached = D; }
  DetachedSpelling detached() const { return Detached; }

private:
  bool visible(const std::string &Name) const;

  const AsyncFunction *F;
  std::vector<std::string> Names;
  std::vector<std::set<std::string>> Scopes;
  std::set<std::string> Taken;
  DetachedSpelling Detached = nullptr;
};

/// Renders \p T: each reference through \p NameOf, each splice through
/// \p Detached (the call and handler rendered the same way).
template <class NameFn>
std::string renderText(const Text &T, const NameFn &NameOf, Naming::DetachedSpelling Detached) {
  std::string Out;
  unsigned Pos = 0;
  std::size_t NextSplice = 0;
  for (const Text::Ref &R : T.Refs) {
    // A splice before (or around) this reference goes first.
    while (NextSplice < T.Splices.size() && T.Splices[NextSplice].Offset <= R.Offset) {
      const Splice &S = T.Splices[NextSplice++];
      Out.append(T.Source, Pos, S.Offset - Pos);
      std::string Call = renderText(S.Call, NameOf, Detached), Handler = renderText(S.Handler, NameOf, Detached);
      Out += Detached ? Detached(Call, Handler) : T.Source.substr(S.Offset, S.Length);
      Pos = S.Offset + S.Length;
    }
    if (R.Offset < Pos)
      continue;
    Out.append(T.Source, Pos, R.Offset - Pos);
    Out += NameOf(R.Var);
    Pos = R.Offset + R.Length;
  }
  while (NextSplice < T.Splices.size()) {
    const Splice &S = T.Splices[NextSplice++];
    Out.append(T.Source, Pos, S.Offset - Pos);
    std::string Call = renderText(S.Call, NameOf, Detached), Handler = renderText(S.Handler, NameOf, Detached);
    Out += Detached ? Detached(Call, Handler) : T.Source.substr(S.Offset, S.Length);
    Pos = S.Offset + S.Length;
  }
  Out.append(T.Source, Pos, std::string::npos);
  if (T.UsesThis)
    Out += ThisMark;
  return Out;
}

} // namespace asyncshift

#endif
