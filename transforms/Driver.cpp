//===- Driver.cpp - The asyncshift command line ---------------------------===//
//
// Options, input validation, running the Clang tool over every file, and
// writing the results: to stdout, to -o, into --out-dir, or in place (-i).
// Every write is atomic: a temporary file in the target's directory, renamed
// over the target, so a failure never leaves a half-written file.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "FileRewriter.h"
#include "Printer.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/Basic/LangStandard.h"
#include "clang/Driver/Options.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CommonOptionsParser.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <set>

#ifndef ASYNCSHIFT_VERSION
#define ASYNCSHIFT_VERSION "unknown"
#endif

using namespace clang;
using namespace clang::tooling;
namespace cl = llvm::cl;

namespace asyncshift {
namespace {

cl::OptionCategory Category("asyncshift options");

const char Overview[] = R"(Rewrites callback-style C++ (error-first completion handlers, nested
continuations) into promise, future or coroutine style, or checks it.

  asyncshift --style=coro file.cpp -- -std=c++20 -Iinclude   # rewritten file on stdout
  asyncshift --style=coro --out-dir gen a.cpp b.cpp -p build  # gen/a.coro.cpp, gen/b.coro.cpp
  asyncshift --style=coro -i file.cpp -p build               # replace file.cpp atomically
  asyncshift --check file.cpp -p build                       # report callback bugs only

Compiler flags come from compile_commands.json (-p BUILD_DIR) or follow '--'.
With neither, the file is parsed with -std=c++20 and the runtime's headers.
Anything the tool cannot convert faithfully is refused with a diagnostic
('file:line:col: error: ... [asyncshift-<id>]'), exit status 1, and no output
for that file.
)";

cl::opt<std::string> StyleOpt("style", cl::desc("Output style: promise, future, coro or coro-values"), cl::value_desc("style"),
                              cl::cat(Category));
cl::opt<bool> CheckOpt("check", cl::desc("Only analyse: report callback bugs, write nothing"), cl::cat(Category));
cl::opt<std::string> OutputOpt("o", cl::desc("Write the rewritten file to <file> (one input file; - is stdout)"),
                               cl::value_desc("file"), cl::cat(Category));
cl::opt<std::string> OutDirOpt("out-dir", cl::desc("Write DIR/<stem>.<style><ext> for each input file"),
                               cl::value_desc("dir"), cl::cat(Category));
cl::opt<bool> InPlaceOpt("i", cl::desc("Rewrite the input files in place (atomically)"), cl::cat(Category));
cl::opt<std::string> DepFileOpt("depfile",
                                cl::desc("Write a Make-style depfile listing every file the input read "
                                         "(with -o, or --out-dir and one input)"),
                                cl::value_desc("file"), cl::cat(Category));
cl::opt<bool> DumpIROpt("dump-ir", cl::desc("Print each async function's continuation IR to stdout"),
                        cl::cat(Category));
cl::opt<std::string> FallbackStyleOpt("fallback-style",
                                      cl::desc("clang-format style when no .clang-format is found (default: LLVM)"),
                                      cl::init("LLVM"), cl::cat(Category));

void error(const llvm::Twine &Message) { llvm::errs() << "asyncshift: error: " << Message << "\n"; }
void warning(const llvm::Twine &Message) { llvm::errs() << "asyncshift: warning: " << Message << "\n"; }

/// Writes \p Content to \p Path through a temporary file in the same directory.
bool writeAtomically(const std::string &Path, const std::string &Content) {
  llvm::SmallString<256> Dir(Path);
  llvm::sys::path::remove_filename(Dir);
  if (Dir.empty())
    Dir = ".";
  if (std::error_code EC = llvm::sys::fs::create_directories(Dir)) {
    error("cannot create directory '" + Dir + "': " + EC.message());
    return false;
  }
  llvm::SmallString<256> Model(Dir);
  llvm::sys::path::append(Model, "." + llvm::sys::path::filename(Path) + ".asyncshift-%%%%%%.tmp");
  int FD = -1;
  llvm::SmallString<256> Temp;
  if (std::error_code EC = llvm::sys::fs::createUniqueFile(Model, FD, Temp)) {
    error("cannot create a temporary file next to '" + Path + "': " + EC.message());
    return false;
  }
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Content;
    OS.flush();
    if (OS.has_error()) {
      error("cannot write '" + Temp + "': " + OS.error().message());
      OS.clear_error();
      llvm::sys::fs::remove(Temp);
      return false;
    }
  }
  // Keep the permissions of a file being replaced.
  if (auto Perms = llvm::sys::fs::getPermissions(Path))
    llvm::sys::fs::setPermissions(Temp, *Perms);
  else
    llvm::consumeError(llvm::errorCodeToError(Perms.getError()));
  if (std::error_code EC = llvm::sys::fs::rename(Temp, Path)) {
    error("cannot replace '" + Path + "': " + EC.message());
    llvm::sys::fs::remove(Temp);
    return false;
  }
  return true;
}

std::string escapeForMake(llvm::StringRef Path) {
  std::string Out;
  for (char C : Path) {
    if (C == ' ' || C == '#')
      Out += '\\';
    if (C == '$')
      Out += '$';
    Out += C;
  }
  return Out;
}

std::string realPath(llvm::StringRef Path) {
  llvm::SmallString<256> Real;
  if (llvm::sys::fs::real_path(Path, Real))
    return Path.str();
  return std::string(Real);
}

struct RunState {
  FileRequest Request;
  std::map<std::string, FileResult> Results; ///< by real path
  std::map<std::string, bool> Failed;
  std::map<std::string, bool> Started; ///< clang began compiling it (so reports its own errors)
  bool InRewriter = false;                ///< inside processFile: a crash there is asyncshift's
};

/// Records the ranges of the main file that the preprocessor skips.
class SkippedRanges : public PPCallbacks {
public:
  SkippedRanges(const SourceManager &SM, std::vector<std::pair<unsigned, unsigned>> &Out) : SM(SM), Out(Out) {}
  void SourceRangeSkipped(SourceRange Range, SourceLocation) override {
    auto [BF, B] = SM.getDecomposedLoc(SM.getExpansionLoc(Range.getBegin()));
    auto [EF, E] = SM.getDecomposedLoc(SM.getExpansionLoc(Range.getEnd()));
    if (BF == SM.getMainFileID() && EF == BF && B <= E)
      Out.emplace_back(B, E);
  }

private:
  const SourceManager &SM;
  std::vector<std::pair<unsigned, unsigned>> &Out;
};

class Consumer : public ASTConsumer {
public:
  Consumer(RunState &State, std::vector<std::pair<unsigned, unsigned>> &Skipped) : State(State), Skipped(Skipped) {}
  void HandleTranslationUnit(ASTContext &Ctx) override {
    const SourceManager &SM = Ctx.getSourceManager();
    std::string Path = realPath(SM.getFileEntryRefForID(SM.getMainFileID())->getName());
    State.InRewriter = true;
    FileRequest Request = State.Request;
    Request.Skipped = Skipped;
    FileResult R = processFile(Ctx, Request);
    State.InRewriter = false;
    if (!R.Ok)
      State.Failed[Path] = true;
    State.Results[Path] = std::move(R);
  }

private:
  RunState &State;
  std::vector<std::pair<unsigned, unsigned>> &Skipped;
};

class Action : public ASTFrontendAction {
public:
  explicit Action(RunState &State) : State(State) {}
  bool BeginSourceFileAction(CompilerInstance &CI) override {
    // A precompiled header or AST file is loaded, not parsed: nothing to rewrite.
    if (getCurrentFileKind().getFormat() != InputKind::Source)
      return false;
    const std::string Path = realPath(getCurrentFile());
    State.Started[Path] = true;
    // The runtime's headers and every generated style are C++20: an older
    // standard fails inside the headers with a screen of unrelated errors.
    const LangOptions &LO = CI.getLangOpts();
    if (!LO.CPlusPlus20) {
      const LangStandard &Std = LangStandard::getLangStandardForKind(LO.LangStd);
      error("'" + getCurrentFile() + "' is compiled as " + Std.getName() +
            "; asyncshift and its runtime need C++20 (add -std=c++20 to the compile command, or after --)");
      State.Failed[Path] = true;
      return false;
    }
    CI.getPreprocessor().addPPCallbacks(std::make_unique<SkippedRanges>(CI.getSourceManager(), Skipped));
    return true;
  }
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &, StringRef) override {
    return std::make_unique<Consumer>(State, Skipped);
  }

private:
  RunState &State;
  std::vector<std::pair<unsigned, unsigned>> Skipped;
};

class Factory : public FrontendActionFactory {
public:
  explicit Factory(RunState &State) : State(State) {}
  std::unique_ptr<FrontendAction> create() override { return std::make_unique<Action>(State); }

private:
  RunState &State;
};

/// Drops the arguments clang's driver does not know (a g++-only flag in a
/// compile_commands.json, `-fconcepts-diagnostics-depth=3`), with one warning
/// each per run: clang would report each as an error of its own, with no
/// file or tool named, and still parse the file.
ArgumentsAdjuster dropUnknownArguments(std::set<std::string> &Warned) {
  return [&Warned](const CommandLineArguments &Args, StringRef File) {
    if (Args.size() < 2)
      return Args;
    std::vector<const char *> Argv;
    for (std::size_t I = 1; I < Args.size(); ++I)
      Argv.push_back(Args[I].c_str());
    unsigned MissingIndex = 0, MissingCount = 0;
    llvm::opt::InputArgList List =
        clang::driver::getDriverOptTable().ParseArgs(Argv, MissingIndex, MissingCount);
    std::set<std::string> Unknown;
    for (const llvm::opt::Arg *A : List.filtered(clang::driver::options::OPT_UNKNOWN))
      Unknown.insert(A->getSpelling().str());
    if (Unknown.empty())
      return Args;
    CommandLineArguments Out{Args.front()};
    for (std::size_t I = 1; I < Args.size(); ++I) {
      if (!Unknown.count(Args[I])) {
        Out.push_back(Args[I]);
        continue;
      }
      if (Warned.insert(Args[I]).second)
        warning("ignoring '" + Args[I] + "' in the compile command of '" + File +
                "': clang does not know this flag (a compiler-specific option)");
    }
    return Out;
  };
}

/// A `.h` file is C++ here: clang's driver takes it for a C header (and then
/// rejects -std=c++20 and finds no <cstddef>), but the code this tool reads is
/// C++, and docs/check.md suggests checking headers. A command that names its
/// language with -x keeps it.
ArgumentsAdjuster headersAreCxx() {
  return [](const CommandLineArguments &Args, StringRef File) {
    if (!File.ends_with(".h") || Args.empty())
      return Args;
    for (const std::string &A : Args)
      if (StringRef(A).starts_with("-x"))
        return Args;
    CommandLineArguments Out{Args.front(), "-xc++"};
    Out.insert(Out.end(), Args.begin() + 1, Args.end());
    return Out;
  };
}

/// A header given as an input is the main file of its parse, where clang
/// warns about its `#pragma once`: nothing the user can act on.
ArgumentsAdjuster headersMayPragmaOnce() {
  return [](const CommandLineArguments &Args, StringRef File) {
    static const char *const Exts[] = {".h", ".hh", ".hpp", ".hxx", ".h++", ".H"};
    for (const char *Ext : Exts)
      if (File.ends_with(Ext)) {
        CommandLineArguments Out = Args;
        Out.push_back("-Wno-pragma-once-outside-header");
        return Out;
      }
    return Args;
  };
}

/// The runtime headers next to the installed tool, or in the source tree.
std::string runtimeIncludeDir(const char *Argv0) {
  std::string Exe = llvm::sys::fs::getMainExecutable(Argv0, reinterpret_cast<void *>(&runtimeIncludeDir));
  llvm::SmallString<256> Installed(llvm::sys::path::parent_path(llvm::sys::path::parent_path(Exe)));
  llvm::sys::path::append(Installed, "include");
  llvm::SmallString<256> Probe(Installed);
  llvm::sys::path::append(Probe, "asyncshift", "callback.hpp");
  if (llvm::sys::fs::exists(Probe))
    return std::string(Installed);
#ifdef ASYNCSHIFT_SOURCE_RUNTIME_INCLUDE
  return ASYNCSHIFT_SOURCE_RUNTIME_INCLUDE;
#else
  return "";
#endif
}

} // namespace

int asyncshiftMain(int Argc, const char **Argv) {
  cl::SetVersionPrinter([](llvm::raw_ostream &OS) {
    OS << "asyncshift " << ASYNCSHIFT_VERSION << " (LLVM/Clang " << LLVM_VERSION_STRING << ")\n";
  });
  cl::HideUnrelatedOptions(Category);

  // Without -p and without '--', parse with default flags instead of
  // searching for a compilation database and complaining when there is none.
  std::vector<const char *> Args(Argv, Argv + Argc);
  bool HasDashDash = false, HasBuildPath = false;
  for (int I = 1; I < Argc; ++I) {
    llvm::StringRef A = Argv[I];
    if (A == "--") {
      HasDashDash = true;
      break;
    }
    if (A == "-p" || A.starts_with("-p=") || A.starts_with("--p="))
      HasBuildPath = true;
  }
  bool DefaultFlags = !HasDashDash && !HasBuildPath;
  // A broken compile_commands.json is an error, not a reason to guess flags.
  for (int I = 1; I + 1 < Argc || (I < Argc && llvm::StringRef(Argv[I]).starts_with("-p=")); ++I) {
    llvm::StringRef A = Argv[I];
    if (A == "--")
      break;
    std::string Dir = A == "-p" ? Argv[I + 1] : A.starts_with("-p=") ? A.drop_front(3).str() : "";
    if (Dir.empty())
      continue;
    llvm::SmallString<256> DB(Dir);
    if (!llvm::sys::fs::is_directory(DB) && llvm::sys::path::filename(DB) == "compile_commands.json")
      llvm::sys::path::remove_filename(DB);
    llvm::sys::path::append(DB, "compile_commands.json");
    if (!llvm::sys::fs::exists(DB)) {
      error("no compile_commands.json in '" + Dir + "' (-p names the build directory)");
      return 1;
    }
    // LLVM reads the database as YAML, and prints the parser's own
    // complaint about a broken one: check it as JSON first.
    if (auto Text = llvm::MemoryBuffer::getFile(DB)) {
      if (llvm::Expected<llvm::json::Value> V = llvm::json::parse((*Text)->getBuffer()); !V) {
        error("cannot read '" + std::string(DB) + "': it is not valid JSON (" + llvm::toString(V.takeError()) + ")");
        return 1;
      }
    }
    std::string Message;
    if (!JSONCompilationDatabase::loadFromFile(DB, Message, JSONCommandLineSyntax::AutoDetect)) {
      error("cannot read '" + DB + "': " + Message);
      return 1;
    }
  }
  if (DefaultFlags) {
    Args.push_back("--");
    Args.push_back("-std=c++20");
  }
  int ArgCount = static_cast<int>(Args.size());
  auto Parser = CommonOptionsParser::create(ArgCount, Args.data(), Category, cl::OneOrMore, Overview);
  if (!Parser) {
    std::string Message = llvm::toString(Parser.takeError());
    while (!Message.empty() && Message.back() == '\n')
      Message.pop_back();
    // LLVM's option parser names the program itself; error() does too.
    StringRef Text = Message;
    Text.consume_front(std::string(Args.front()) + ": ");
    Text.consume_front("asyncshift: ");
    // LLVM suggests the nearest option, however far: `--bogus` is not a
    // misspelt `-o`. Keep a suggestion only for a long option.
    std::string Said;
    llvm::SmallVector<StringRef, 4> Lines;
    Text.split(Lines, '\n');
    for (StringRef Line : Lines) {
      const StringRef Ask = "Did you mean '";
      const std::size_t At = Line.find(Ask);
      if (At != StringRef::npos && Line.substr(At + Ask.size()).find('\'') <= 2)
        continue; // the guess is one or two letters long
      Said += (Said.empty() ? "" : "\n") + Line.str();
    }
    error(Said);
    return 1;
  }

  // Validate the request before parsing anything.
  if (CheckOpt == !StyleOpt.empty()) {
    error(CheckOpt ? "--check and --style are exclusive" : "say what to do: --style=STYLE or --check");
    return 1;
  }
  std::unique_ptr<StylePrinter> Printer;
  if (!CheckOpt) {
    Printer = makePrinter(StyleOpt);
    if (!Printer) {
      std::string Known;
      for (const std::string &S : styleNames())
        Known += (Known.empty() ? "" : ", ") + S;
      error("unknown style '" + StyleOpt + "' (known styles: " + Known + ")");
      return 1;
    }
  }
  std::vector<std::string> Sources = Parser->getSourcePathList();
  int Outputs = !OutputOpt.empty() + !OutDirOpt.empty() + (InPlaceOpt ? 1 : 0);
  if (Outputs > 1) {
    error("-o, --out-dir and -i are exclusive");
    return 1;
  }
  if (CheckOpt && Outputs) {
    error("--check writes nothing; drop -o, --out-dir and -i");
    return 1;
  }
  if (!OutputOpt.empty() && Sources.size() != 1) {
    error("-o takes one input file; use --out-dir for several");
    return 1;
  }
  if (!DepFileOpt.empty() && !(Sources.size() == 1 && (!OutputOpt.empty() || !OutDirOpt.empty()))) {
    error("--depfile needs one input file and -o or --out-dir");
    return 1;
  }
  if (!DepFileOpt.empty() && OutputOpt == "-") {
    error("--depfile needs an output file to name; -o - writes to stdout");
    return 1;
  }
  for (const std::string &S : Sources)
    if (!llvm::sys::fs::is_regular_file(S)) {
      error(llvm::sys::fs::exists(S) ? "'" + S + "' is not a regular file" : "no such file: '" + S + "'");
      return 1;
    }
  // A file named twice (`a.cpp ./a.cpp`, a shell glob and a list) is read
  // once: twice, its findings were reported twice.
  {
    std::set<std::string> Seen;
    std::vector<std::string> Unique;
    for (const std::string &S : Sources)
      if (Seen.insert(realPath(S)).second)
        Unique.push_back(S);
    Sources = std::move(Unique);
  }

  // --out-dir names outputs by stem: two inputs with the same name in
  // different directories would write one file, the second over the first.
  auto OutDirTarget = [](const std::string &S) {
    llvm::SmallString<256> P(OutDirOpt);
    llvm::sys::path::append(P, llvm::sys::path::stem(S) + "." + StyleOpt + llvm::sys::path::extension(S));
    return std::string(P);
  };
  if (!OutDirOpt.empty() && !CheckOpt) {
    std::map<std::string, std::string> ByTarget; // output path -> the input that writes it
    for (const std::string &S : Sources) {
      auto [It, New] = ByTarget.emplace(OutDirTarget(S), S);
      if (!New && realPath(It->second) != realPath(S)) {
        error("'" + It->second + "' and '" + S + "' would both be written to '" + It->first +
              "'; run them with different --out-dir directories");
        return 1;
      }
    }
  }

  // A file the build directory's compile_commands.json does not list is
  // parsed with flags guessed from a neighbour's: say so, once per file.
  // With no neighbour (an empty database), it is not parsed at all.
  std::set<std::string> NotInDatabase;
  // The database is asked as ClangTool asks it, by absolute path: a file
  // given relative to the working directory is found under its own name.
  for (const std::string &S : Sources) {
    llvm::SmallString<256> Abs(S);
    llvm::sys::fs::make_absolute(Abs);
    llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
    std::vector<CompileCommand> Commands = Parser->getCompilations().getCompileCommands(Abs);
    if (Commands.empty())
      NotInDatabase.insert(S);
    else if (!Commands.front().Heuristic.empty())
      warning("'" + S + "' is not in the compilation database; parsing it with flags guessed from another entry (" +
              Commands.front().Heuristic + ")");
  }

  RunState State;
  State.Request.Printer = Printer.get();
  State.Request.DumpIR = DumpIROpt;
  State.Request.FallbackStyle = FallbackStyleOpt;

  // One ClangTool per file, each under crash recovery: Clang 19 itself
  // crashes on some malformed sources (in Sema's error recovery); such a file
  // gets an error and nothing written, and the other files go on.
  const std::string Runtime = runtimeIncludeDir(Argv[0]);
  Factory F(State);
  llvm::CrashRecoveryContext::Enable();
  bool AnyFailed = false;
  std::set<std::string> Crashed;
  std::set<std::string> WarnedUnknown;
  for (const std::string &S : Sources) {
    if (NotInDatabase.count(S)) {
      error("'" + S + "' is not in the compilation database, which lists no file to take its flags from; "
            "nothing done for it (build it once with CMAKE_EXPORT_COMPILE_COMMANDS=ON, or give the flags after --)");
      AnyFailed = true;
      continue;
    }
    ClangTool Tool(Parser->getCompilations(), {S});
    // Its diagnostics have said what went wrong; clang's "Error while
    // processing FILE." after them read as if the tool itself had failed.
    Tool.setPrintErrorMessage(false);
    Tool.appendArgumentsAdjuster(dropUnknownArguments(WarnedUnknown));
    Tool.appendArgumentsAdjuster(headersAreCxx());
    Tool.appendArgumentsAdjuster(headersMayPragmaOnce());
    Tool.appendArgumentsAdjuster(getInsertArgumentAdjuster(
        "-resource-dir=" ASYNCSHIFT_CLANG_RESOURCE_DIR, ArgumentInsertPosition::BEGIN));
    Tool.appendArgumentsAdjuster(getInsertArgumentAdjuster("-Wno-unknown-warning-option", ArgumentInsertPosition::END));
    if (!Runtime.empty())
      Tool.appendArgumentsAdjuster(getInsertArgumentAdjuster(("-idirafter" + Runtime).c_str(), ArgumentInsertPosition::END));
    // Every finding: clang stops after 20 errors by default, and the
    // checker's findings are errors.
    if (CheckOpt)
      Tool.appendArgumentsAdjuster(getInsertArgumentAdjuster("-ferror-limit=0", ArgumentInsertPosition::END));
    int ToolStatus = 0;
    llvm::CrashRecoveryContext CRC;
    if (!CRC.RunSafely([&] { ToolStatus = Tool.run(&F); })) {
      llvm::errs().flush();
      if (State.InRewriter)
        error("internal error: asyncshift crashed while rewriting '" + S +
              "'; nothing was written for this file (please report it with the file)");
      else
        error("clang crashed while parsing '" + S +
              "' (a Clang bug, most likely on malformed code); nothing was written for this file");
      State.InRewriter = false;
      Crashed.insert(S);
      ToolStatus = 1;
    }
    AnyFailed |= ToolStatus != 0;
  }

  // A function one file converts, which another file of the run declares
  // itself and uses in callback style: that file would keep calling the old
  // signature, and the program would not link. Both are refused.
  if (!CheckOpt) {
    std::map<std::string, std::string> ConvertedBy; // USR -> the file that converts it
    for (const auto &[Key, R] : State.Results)
      if (!State.Failed[Key])
        for (const std::string &USR : R.ConvertedUSRs)
          ConvertedBy.emplace(USR, Key);
    std::set<std::string> Refused;
    for (const auto &[Key, R] : State.Results) {
      if (State.Failed[Key])
        continue;
      for (const FileResult::LeafUse &U : R.LeafUses) {
        auto It = ConvertedBy.find(U.USR);
        if (It == ConvertedBy.end() || It->second == Key)
          continue;
        llvm::errs() << U.Where << ": error: '" << U.Name << "' is converted by this run (it is defined in '"
                     << It->second
                     << "'), but this file reads its declaration elsewhere and uses it in callback style; cannot "
                        "convert (a function other files call stays in callback style: mark its definition and "
                        "this declaration [[clang::annotate(\"asyncshift::leaf\")]]) "
                        "[asyncshift-declared-elsewhere]\n";
        Refused.insert(Key);
        Refused.insert(It->second);
      }
    }
    for (const std::string &Key : Refused)
      State.Failed[Key] = true;
  }

  for (const std::string &S : Sources) {
    if (Crashed.count(S) || NotInDatabase.count(S))
      continue;
    std::string Key = realPath(S);
    auto It = State.Results.find(Key);
    if (It == State.Results.end() || State.Failed[Key]) {
      // A file clang never started compiling (a .pch, an object file) may
      // otherwise end with exit code 1 and nothing said.
      if (!State.Started[Key])
        error("'" + S + "' was not compiled as C++ source; asyncshift reads C++ source files");
      AnyFailed = true;
      continue;
    }
    const FileResult &R = It->second;
    if (CheckOpt)
      continue;
    std::string Target;
    if (!OutputOpt.empty() && OutputOpt != "-") {
      Target = OutputOpt;
    } else if (!OutDirOpt.empty()) {
      Target = OutDirTarget(S);
    } else if (InPlaceOpt) {
      // Through a symbolic link to the file it names (renaming over the link
      // would replace the link and leave its target as it was).
      Target = realPath(S);
      // Unchanged: not even the modification time, so nothing rebuilds.
      if (auto Old = llvm::MemoryBuffer::getFile(Target); Old && (*Old)->getBuffer() == R.NewCode)
        continue;
      llvm::sys::fs::file_status Status;
      if (!llvm::sys::fs::status(Target, Status) && Status.getLinkCount() > 1)
        warning("'" + S + "' has " + llvm::Twine(Status.getLinkCount() - 1) +
                " other hard link(s); the file is replaced (atomically), so they keep the old contents");
    }
    if (Target.empty()) {
      llvm::outs() << R.NewCode;
      continue;
    }
    if (!writeAtomically(Target, R.NewCode)) {
      AnyFailed = true;
      continue;
    }
    if (!DepFileOpt.empty()) {
      std::string Dep = escapeForMake(Target) + ":";
      for (const std::string &D : R.Dependencies)
        Dep += " \\\n  " + escapeForMake(D);
      Dep += "\n";
      if (!writeAtomically(DepFileOpt, Dep))
        AnyFailed = true;
    }
  }
  return AnyFailed ? 1 : 0;
}

} // namespace asyncshift
