//===- CheckModel.h - What the checker knows about one function -*- C++ -*-===//
//
// The checker (Checker.h) looks at any callback code, not only at what the
// rewriter converts, so it does not use the continuation IR: it reads the AST
// of one function and every lambda in it (the "callables") and answers:
//
//  - which handler each callable must complete: its own callback parameter,
//    or, for a continuation or other lambda, the handler it captures;
//  - which variables carry a handler (the handler itself, copies of it,
//    lambdas that capture it, the `self` of the recursive-lambda idiom);
//  - what a statement does with a handler (an Event: it calls it, calls a
//    named continuation, passes it on to another call, or stores it);
//  - where a lambda is handed to a call that runs it later.
//
// The path walk (CheckPaths.h) and the capture check (CheckCaptures.h) are
// built on these answers. Nothing here reports.
//
//===----------------------------------------------------------------------===//
#ifndef ASYNCSHIFT_TRANSFORMS_CHECKMODEL_H
#define ASYNCSHIFT_TRANSFORMS_CHECKMODEL_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <vector>

namespace asyncshift {
namespace check {

/// A function or lambda of a checked function.
struct Callable {
  const clang::FunctionDecl *Decl = nullptr; ///< the function, or the lambda's call operator
  const clang::LambdaExpr *Lambda = nullptr; ///< null for the function itself
  const clang::Stmt *Body = nullptr;
  const Callable *Parent = nullptr;
  /// Its own last parameter, when that is a named asyncshift::callback.
  const clang::ParmVarDecl *OwnHandler = nullptr;
  /// The handler it must complete on every path: OwnHandler, or the handler
  /// of an enclosing callable that it captures.
  const clang::ParmVarDecl *Obligation = nullptr;
  /// A lambda `(asyncshift::error[, T])`.
  bool ContinuationShaped = false;
  /// The named error parameter of a continuation-shaped lambda.
  const clang::ParmVarDecl *ErrorParam = nullptr;
  /// The variable this lambda initializes (a named continuation), if any.
  const clang::VarDecl *NamedAs = nullptr;
  /// Calls that take this lambda (or its variable) as an argument and may
  /// run it later, in source order.
  std::vector<const clang::CallExpr *> DeferredBy;

  bool isLambda() const { return Lambda != nullptr; }
  /// Code that never blocks: it completes a handler or runs as a continuation,
  /// so its locals are gone before anything it starts can complete.
  bool isCallbackCode() const {
    return OwnHandler || Obligation || ContinuationShaped || !DeferredBy.empty();
  }
};

/// What a statement does with the handler a callable must complete.
struct Event {
  enum class Kind {
    Call,   ///< the handler, or a copy of it, is called: done(...)
    Invoke, ///< a lambda that carries the handler is called: next(err, v)
    PassOn, ///< the handler is an argument of a call: op(x, done), op(x, [=](...) {...})
    Store,  ///< the handler is stored somewhere that outlives the path
  } K = Kind::Call;
  const clang::Stmt *Site = nullptr;
  /// The carrier variable called or passed, when it is a variable.
  const clang::VarDecl *Via = nullptr;
  /// The lambda called or passed, when it is one of this function's lambdas.
  const Callable *Target = nullptr;
  /// Call, Invoke: the call's first argument (the error the handler or a
  /// named continuation gets).
  const clang::Expr *FirstArg = nullptr;
  /// PassOn: the function called, and the argument position of the handler.
  const clang::FunctionDecl *Callee = nullptr;
  unsigned ArgIndex = 0;
};

/// One checked function: its callables and which variables carry which handler.
class FunctionModel {
public:
  FunctionModel(clang::ASTContext &Ctx, const clang::FunctionDecl *Root);

  clang::ASTContext &context() const { return Ctx; }
  const Callable &root() const { return *Callables.front(); }
  const std::vector<std::unique_ptr<Callable>> &callables() const { return Callables; }
  const Callable *callableOf(const clang::LambdaExpr *L) const;
  const Callable *callableOfDecl(const clang::FunctionDecl *FD) const;
  /// The lambda \p V was initialized with, if it is one of ours.
  const Callable *lambdaOfVar(const clang::VarDecl *V) const;
  /// The innermost callable whose body contains \p S (not inside a nested lambda).
  const Callable *callableContaining(const clang::Stmt *S) const;

  /// True if \p V holds \p Handler: the handler, a copy, or a lambda capturing one.
  bool isCarrier(const clang::ParmVarDecl *Handler, const clang::VarDecl *V) const;
  /// True if \p E evaluates to something that holds \p Handler.
  bool isCarrierExpr(const clang::ParmVarDecl *Handler, const clang::Expr *E) const;
  /// True if the lambda captures something that holds \p Handler.
  bool capturesCarrier(const clang::ParmVarDecl *Handler, const clang::LambdaExpr *L) const;

  /// What \p S itself does with \p Handler (not its sub-statements, not lambda
  /// bodies): at most one event.
  std::optional<Event> eventOf(const clang::ParmVarDecl *Handler, const clang::Stmt *S) const;

private:
  void collect();
  void computeCarriers(const clang::ParmVarDecl *Handler) const;
  void computeObligations();
  void computeDeferrals();

  clang::ASTContext &Ctx;
  std::vector<std::unique_ptr<Callable>> Callables;
  llvm::DenseMap<const clang::LambdaExpr *, const Callable *> ByLambda;
  llvm::DenseMap<const clang::FunctionDecl *, const Callable *> ByDecl;
  llvm::DenseMap<const clang::VarDecl *, const Callable *> ByVar;
  llvm::DenseMap<const clang::Stmt *, const Callable *> StmtOwner;
  /// Every local variable with an initializer, and every assignment to a local.
  std::vector<std::pair<const clang::VarDecl *, const clang::Expr *>> Bindings;
  /// Calls of a local lambda variable: `step(step, 0)` binds `self`.
  std::vector<const clang::CallExpr *> LocalLambdaCalls;
  mutable llvm::DenseMap<const clang::ParmVarDecl *, llvm::DenseSet<const clang::VarDecl *>> Carriers;
};

/// True if \p T can hold a callable: a lambda, a callback, std::function, a
/// dependent or deduced type.
bool isCallableType(clang::QualType T);

/// True if \p FD is declared in namespace \p NS (or a namespace nested in it).
bool isInNamespace(const clang::Decl *D, llvm::StringRef NS);

} // namespace check
} // namespace asyncshift

#endif
