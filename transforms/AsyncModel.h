//===- AsyncModel.h - What is async in the Clang AST ------------*- C++ -*-===//
//
// The input language of SPEC §3 as predicates over the AST: the error and
// callback types, continuation lambdas, async calls and async functions. The
// IR builder and the checker both ask these questions; nothing here rewrites.
//
//===----------------------------------------------------------------------===//
#ifndef ASYNCSHIFT_TRANSFORMS_ASYNCMODEL_H
#define ASYNCSHIFT_TRANSFORMS_ASYNCMODEL_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

#include <optional>
#include <string>

namespace asyncshift {

/// The value types of a callback<T...> type.
struct CallbackType {
  bool HasValue = false;
  clang::QualType Value; ///< sugared, as written where the type was spelled
};

/// If \p T (after references and cv) is asyncshift::callback<...>, describes it.
std::optional<CallbackType> asCallbackType(clang::QualType T);

/// True if \p T (after references and cv) is asyncshift::error.
bool isErrorType(clang::QualType T);

/// Strips what Clang wraps around an argument: implicit casts, temporaries,
/// the converting constructor of callback<T>, std::move.
const clang::Expr *stripArgument(const clang::Expr *E);

/// A lambda whose first parameter is asyncshift::error, optionally followed by
/// one value parameter: the shape of a continuation.
bool isContinuationShaped(const clang::LambdaExpr *L);

/// A generic lambda (`auto` parameters) that Clang instantiated with a
/// continuation's parameters, as converting it to callback<T...> does. The
/// rewriter reads typed continuations only and refuses these.
bool isGenericContinuation(const clang::LambdaExpr *L);

/// A variable holding a lambda of continuation shape (a named continuation
/// or a copy of one).
bool isContinuationVar(const clang::VarDecl *V);

/// The arguments of a call as the user wrote them (without the object
/// argument of an operator() call), and the callee's declaration if known.
struct CallArgs {
  llvm::SmallVector<const clang::Expr *, 4> Args;
  const clang::FunctionDecl *Callee = nullptr;
  /// Index of Args[0] among the callee's parameters.
  unsigned FirstParam = 0;
  /// For operator() calls: the called object.
  const clang::Expr *Object = nullptr;
  /// An overloaded operator other than (): never an async call.
  bool IsOperator = false;
};
CallArgs callArguments(const clang::CallExpr *C);

/// The handler parameter of \p FD, if its last parameter is a callback.
const clang::ParmVarDecl *handlerParam(const clang::FunctionDecl *FD);

/// Declared in namespace std (an inline namespace of it included), or in a
/// class of it (`std::vector::push_back`).
bool isInStd(const clang::Decl *D);
/// In a template, the last parameter when its type is a dependent
/// `asyncshift::callback<...>` (`callback<T>`): the function is async if its
/// body makes an async call, and is refused as a template, not left as a leaf.
const clang::ParmVarDecl *dependentHandlerParam(const clang::FunctionDecl *FD);

/// The one instantiation of a generic lambda's call operator (with a body),
/// or null: not generic, never instantiated, or instantiated more than once.
/// A generic branch of parallel/each_series is read from it, by the rewriter
/// and the checker alike: there the handler has the type the combinator passes.
clang::CXXMethodDecl *singleInstantiation(const clang::LambdaExpr *L);

/// The variable an expression names, if it is a plain reference to one.
const clang::VarDecl *referencedVar(const clang::Expr *E);

/// How lambda \p L captures \p V, or nullptr when it does not.
const clang::LambdaCapture *captureOf(const clang::LambdaExpr *L, const clang::ValueDecl *V);

/// `{}`, `asyncshift::error()`, `asyncshift::error{}`: a success value.
bool isSuccessLiteral(const clang::Expr *E);
/// `asyncshift::error("...")`: always a failure.
bool isFailureConstruction(const clang::Expr *E);

/// The attribute that keeps a function in callback style, as a user writes it
/// (refusals that can be stepped around name it).
inline constexpr const char *LeafAttribute = "[[clang::annotate(\"asyncshift::leaf\")]]";
/// True if the function carries [[clang::annotate("asyncshift::leaf")]].
bool isForcedLeaf(const clang::Decl *D);

/// True if \p T is spelt by deduction (`auto`, `decltype(...)`, a class
/// template without arguments): its spelling means nothing outside its
/// declaration, so printers spell what it deduced (printType) instead.
bool isDeducedType(clang::QualType T);
/// Prints \p T for use in generated code: fully qualified, no sugar lost;
/// a deduced type as what it deduced. \p Deduced says \p T is one whatever
/// its spelling (a structured binding's `tuple_element<1, P>::type`).
std::string printType(clang::QualType T, const clang::ASTContext &Ctx, bool Deduced = false);
/// \p T, a deduced type, printed as printType does, except that a member
/// typedef of \p Object's class (`it` in `auto it = totals.find(k)`) is
/// spelt through \p Object's type as written
/// (`std::map<std::int64_t, std::int64_t>::iterator`, where the class alone
/// says `std::map<long, long>`); nothing when \p T is not deduced or
/// \p Object is not a class.
std::optional<std::string> printMemberTypeOf(clang::QualType T, clang::QualType Object, const clang::ASTContext &Ctx);

/// A RecursiveASTVisitor that knows how deep in nested lambda bodies it is
/// (InLambda), for visitors that count what a function does itself apart
/// from what the lambdas it makes do later.
template <class Derived> struct LambdaDepthVisitor : clang::RecursiveASTVisitor<Derived> {
  unsigned InLambda = 0;
  bool TraverseLambdaExpr(clang::LambdaExpr *L) {
    ++InLambda;
    bool R = clang::RecursiveASTVisitor<Derived>::TraverseLambdaExpr(L);
    --InLambda;
    return R;
  }
};

} // namespace asyncshift

#endif
