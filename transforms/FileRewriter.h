//===- FileRewriter.h - Rewriting one translation unit ----------*- C++ -*-===//
//
// For one parsed file: find its async functions, build and check their IR,
// print each in the chosen style, turn that into edits of the original text
// (return type, handler parameter, body, redeclarations, includes), and
// format the edited regions with libFormat. Or, in check mode, only report.
//
//===----------------------------------------------------------------------===//
#ifndef ASYNCSHIFT_TRANSFORMS_FILEREWRITER_H
#define ASYNCSHIFT_TRANSFORMS_FILEREWRITER_H

#include <set>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
} // namespace clang

namespace asyncshift {

class StylePrinter;

struct FileRequest {
  /// Null in check mode.
  const StylePrinter *Printer = nullptr;
  bool DumpIR = false;
  /// Style for libFormat when no .clang-format is found.
  std::string FallbackStyle = "LLVM";
  /// The ranges of the main file that this compile's preprocessor skipped
  /// (an `#ifdef` branch not taken), as [begin, end) offsets.
  std::vector<std::pair<unsigned, unsigned>> Skipped;
};

struct FileResult {
  bool Ok = false;
  /// The rewritten file (rewrite mode, Ok only).
  std::string NewCode;
  /// Every file the translation unit read (for depfiles).
  std::vector<std::string> Dependencies;
  unsigned AsyncFunctions = 0;
  /// The functions this file converts (Ok only), by USR.
  std::set<std::string> ConvertedUSRs;
  /// References to a function with a handler that this translation unit
  /// declares but does not define (a leaf here): if another file of the run
  /// converts it, this file would keep calling its callback form.
  struct LeafUse {
    std::string USR, Name, Where; ///< Where: "file:line:col"
  };
  std::vector<LeafUse> LeafUses;
};

/// Processes the main file of \p Ctx; diagnostics go to Ctx's DiagnosticsEngine.
FileResult processFile(clang::ASTContext &Ctx, const FileRequest &Request);

} // namespace asyncshift

#endif
