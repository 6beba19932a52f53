//===- IRBuilder.h - From the Clang AST to the continuation IR --*- C++ -*-===//
//
// Reads one async function and builds its continuation IR (IR.h), or refuses
// with findings that say which construct is outside SPEC §3 and where. The
// builder decides what each statement is; whether the paths it builds are
// well-formed (each completes exactly once, nothing runs after a completion)
// is for the analysis (Analysis.h).
//
//===----------------------------------------------------------------------===//
#ifndef ASYNCSHIFT_TRANSFORMS_IRBUILDER_H
#define ASYNCSHIFT_TRANSFORMS_IRBUILDER_H

#include "Findings.h"
#include "IR.h"

#include "llvm/ADT/DenseSet.h"

#include <optional>
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
} // namespace clang

namespace asyncshift {

/// The async functions of a translation unit that this run converts, by
/// canonical declaration.
using ConvertedSet = llvm::DenseSet<const clang::FunctionDecl *>;

/// Builds the IR of \p FD, an async function defined in the main file.
/// Returns std::nullopt after appending refusals to \p Findings.
std::optional<AsyncFunction> buildIR(clang::ASTContext &Ctx, const clang::FunctionDecl *FD,
                                     const ConvertedSet &Converted, std::vector<Finding> &Findings);

/// True if \p FD is an async function (SPEC §3): its last parameter is a
/// callback and its body makes at least one async call that can reach it.
bool isAsyncFunction(const clang::FunctionDecl *FD);

} // namespace asyncshift

#endif
