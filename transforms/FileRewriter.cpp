//===- FileRewriter.cpp - Rewriting one translation unit ------------------===//

#include "FileRewriter.h"
#include "Analysis.h"
#include "AsyncModel.h"
#include "Checker.h"
#include "IRBuilder.h"
#include "Printer.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Format/Format.h"
#include "clang/Index/USRGeneration.h"
#include "clang/Lex/Lexer.h"
#include "clang/Tooling/Core/Replacement.h"
#include "clang/Tooling/Inclusions/HeaderIncludes.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <set>

using namespace clang;

namespace asyncshift {
namespace {

/// Is \p L written in the main file (a macro's expansion counts where it is
/// expanded)? The tool finds and edits only what is.
bool writtenInMainFile(const SourceManager &SM, SourceLocation L) {
  return L.isValid() && SM.isWrittenInMainFile(SM.getExpansionLoc(L));
}

/// The async functions defined in the main file, in source order.
class AsyncFunctionFinder : public RecursiveASTVisitor<AsyncFunctionFinder> {
public:
  explicit AsyncFunctionFinder(const SourceManager &SM) : SM(SM) {}
  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (!FD->isThisDeclarationADefinition() || !FD->hasBody())
      return true;
    if (const auto *M = dyn_cast<CXXMethodDecl>(FD); M && M->getParent()->isLambda())
      return true; // async lambdas stay in callback style inside the code that holds them
    if (writtenInMainFile(SM, FD->getLocation()) && isAsyncFunction(FD))
      Found.push_back(FD);
    return true;
  }
  std::vector<const FunctionDecl *> Found;

private:
  const SourceManager &SM;
};

/// References in the main file to functions with a handler that the
/// translation unit declares but does not define, or defines in a header
/// (another input of the run may be that header, and convert them).
class LeafUseFinder : public RecursiveASTVisitor<LeafUseFinder> {
public:
  explicit LeafUseFinder(const SourceManager &SM) : SM(SM) {}
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    note(E->getDecl(), E->getLocation());
    return true;
  }
  bool VisitMemberExpr(MemberExpr *E) { // `store.add(key, done)`
    note(E->getMemberDecl(), E->getMemberLoc());
    return true;
  }
  std::vector<std::pair<const NamedDecl *, SourceLocation>> Found;

private:
  void note(const ValueDecl *D, SourceLocation Where) {
    const auto *FD = dyn_cast<FunctionDecl>(D);
    const FunctionDecl *Def = nullptr;
    if (FD && (!FD->isDefined(Def) || !writtenInMainFile(SM, Def->getLocation())) && handlerParam(FD) &&
        writtenInMainFile(SM, Where))
      Found.push_back({FD, Where});
  }

private:
  const SourceManager &SM;
};

/// Calls of converted functions from code that is not converted.
class ForeignCallFinder : public RecursiveASTVisitor<ForeignCallFinder> {
public:
  ForeignCallFinder(const SourceManager &SM, const ConvertedSet &Converted) : SM(SM), Converted(Converted) {}
  bool TraverseFunctionDecl(FunctionDecl *FD) {
    if (Converted.count(FD->getCanonicalDecl()) && FD->hasBody())
      return true; // inside a converted function: the IR builder decides
    return RecursiveASTVisitor::TraverseFunctionDecl(FD);
  }
  bool TraverseCXXMethodDecl(CXXMethodDecl *FD) {
    if (Converted.count(FD->getCanonicalDecl()) && FD->hasBody())
      return true;
    return RecursiveASTVisitor::TraverseCXXMethodDecl(FD);
  }
  bool VisitCallExpr(CallExpr *C) {
    if (const FunctionDecl *Callee = C->getDirectCallee())
      if (Converted.count(Callee->getCanonicalDecl()) && writtenInMainFile(SM, C->getBeginLoc()))
        Found.push_back(C);
    return true;
  }
  std::vector<const CallExpr *> Found;

private:
  const SourceManager &SM;
  const ConvertedSet &Converted;
};

/// Converted functions named other than as the callee of a call: their
/// address taken, stored in a std::function, passed along. Their type changes
/// with the conversion, so such code would no longer compile. Passing one to
/// the runtime (ASYNCSHIFT_WORKLOAD's registration, overloaded for every
/// style's signature) is fine.
class FunctionValueFinder : public RecursiveASTVisitor<FunctionValueFinder> {
public:
  FunctionValueFinder(const SourceManager &SM, const ConvertedSet &Converted) : SM(SM), Converted(Converted) {}
  bool VisitCallExpr(CallExpr *C) {
    if (const auto *Ref = dyn_cast<DeclRefExpr>(C->getCallee()->IgnoreParenImpCasts()))
      Allowed.insert(Ref);
    allowArguments(C->arguments(), C->getCalleeDecl());
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *C) {
    allowArguments(C->arguments(), C->getConstructor());
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    const auto *FD = dyn_cast<FunctionDecl>(E->getDecl());
    if (FD && Converted.count(FD->getCanonicalDecl()) && !Allowed.count(E) &&
        writtenInMainFile(SM, E->getBeginLoc()))
      Found.push_back(E);
    return true;
  }
  std::vector<const DeclRefExpr *> Found;

private:
  static bool inRuntime(const Decl *D) {
    const auto *ND = dyn_cast_or_null<NamedDecl>(D);
    return ND && StringRef(ND->getQualifiedNameAsString()).starts_with("asyncshift::");
  }
  /// Arguments naming a converted function are fine when \p Callee is the
  /// runtime's. The callee's name is looked at only then: this visits every
  /// call of the translation unit, headers included.
  template <class Range> void allowArguments(Range Args, const Decl *Callee) {
    for (const Expr *A : Args) {
      const Expr *E = A->IgnoreParenImpCasts();
      if (const auto *U = dyn_cast<UnaryOperator>(E); U && U->getOpcode() == UO_AddrOf)
        E = U->getSubExpr()->IgnoreParenImpCasts();
      const auto *Ref = dyn_cast<DeclRefExpr>(E);
      const auto *FD = Ref ? dyn_cast<FunctionDecl>(Ref->getDecl()) : nullptr;
      if (FD && Converted.count(FD->getCanonicalDecl()) && inRuntime(Callee))
        Allowed.insert(Ref);
    }
  }
  const SourceManager &SM;
  const ConvertedSet &Converted;
  std::set<const DeclRefExpr *> Allowed;
};

class Rewriter {
public:
  Rewriter(ASTContext &Ctx, const FileRequest &Request)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), LO(Ctx.getLangOpts()), Request(Request) {}

  FileResult run();

private:
  void refuse(const char *Id, SourceLocation L, const std::string &Message) {
    Finding F;
    F.Id = Id;
    F.Where.Raw = L.getRawEncoding();
    F.Message = Message;
    report(Ctx.getDiagnostics(), F);
    Failed = true;
  }
  /// The first `#if`, `#ifdef`, `#ifndef`, `#elif` or `#else` in \p FD's
  /// body, with its directive's name.
  /// Where \p FD's name is written as an identifier in a range of the main
  /// file the preprocessor skipped (`#ifdef FAST_PATH` around another
  /// definition of it, or a call of it under `#ifndef NDEBUG`).
  std::optional<SourceLocation> writtenInSkippedCode(const FunctionDecl *FD) const {
    const IdentifierInfo *Name = FD->getIdentifier();
    if (!Name)
      return std::nullopt;
    StringRef Buf = SM.getBufferData(SM.getMainFileID());
    SourceLocation Start = SM.getLocForStartOfFile(SM.getMainFileID());
    for (const auto &[Begin, End] : Request.Skipped) {
      if (End > Buf.size())
        continue;
      // `#if 0`: code no build takes.
      StringRef Directive = Buf.slice(Begin, End).take_until([](char C) { return C == '\n'; }).ltrim();
      Directive.consume_front("#");
      Directive = Directive.ltrim();
      if (Directive.consume_front("if")) {
        Directive = Directive.ltrim();
        if (Directive.consume_front("0") && (Directive.empty() || !isAlphanumeric(Directive.front())))
          continue;
      }
      Lexer Raw(Start, LO, Buf.data(), Buf.data() + Begin, Buf.data() + End);
      Token T;
      bool AtEnd = false; // set with the range's last token, which still counts
      while (!AtEnd) {
        AtEnd = Raw.LexFromRawLexer(T);
        if (T.is(tok::raw_identifier) && T.getRawIdentifier() == Name->getName())
          return T.getLocation();
      }
    }
    return std::nullopt;
  }
  std::optional<std::pair<SourceLocation, std::string>> conditionalDirectiveIn(const FunctionDecl *FD) const {
    auto Off = offsets(FD->getBody()->getSourceRange());
    if (!Off)
      return std::nullopt;
    StringRef Buf = SM.getBufferData(SM.getMainFileID());
    SourceLocation Start = SM.getLocForStartOfFile(SM.getMainFileID());
    Lexer Raw(Start, LO, Buf.data(), Buf.data() + Off->first, Buf.end());
    Token T;
    while (!Raw.LexFromRawLexer(T) && SM.getFileOffset(T.getLocation()) < Off->second) {
      if (!T.is(tok::hash) || !T.isAtStartOfLine())
        continue;
      Token Name;
      if (Raw.LexFromRawLexer(Name) || !Name.is(tok::raw_identifier))
        continue;
      StringRef K = Name.getRawIdentifier();
      if (K == "if" || K == "ifdef" || K == "ifndef" || K == "elif" || K == "else" || K == "elifdef" ||
          K == "elifndef")
        return std::make_pair(T.getLocation(), "#" + K.str());
    }
    return std::nullopt;
  }
  std::optional<std::pair<unsigned, unsigned>> offsets(SourceRange R) const {
    CharSourceRange CR = Lexer::makeFileCharRange(CharSourceRange::getTokenRange(R), SM, LO);
    if (CR.isInvalid())
      return std::nullopt;
    auto [BF, B] = SM.getDecomposedLoc(CR.getBegin());
    auto [EF, E] = SM.getDecomposedLoc(CR.getEnd());
    if (BF != SM.getMainFileID() || EF != SM.getMainFileID())
      return std::nullopt;
    return std::make_pair(B, E);
  }
  /// Warns where the output style runs a continuation later than the
  /// original's synchronous completion did (docs/transforms/README.md, "What
  /// promise style cannot keep"): at every function or lambda of the file
  /// that completes its handler synchronously on some paths and
  /// asynchronously on others, the checker's asyncshift-mixed-sync-async.
  void warnReorderedCompletions(Checker &Check) {
    const std::string Style = Request.Printer->name();
    for (Finding &F : Check.checkMainFile()) {
      if (StringRef(F.Id) != ids::MixedSyncAsync)
        continue;
      F.Id = ids::SyncCompletionReordered;
      F.IsWarning = true;
      F.Message += "; " + Style +
                   " style runs every continuation from the microtask queue, so after a synchronous completion it "
                   "runs later than in the original, and work in the same turn may start in another order "
                   "(--style=future, coro or coro-values keep the order; or make every path asynchronous)";
      report(Ctx.getDiagnostics(), F);
    }
  }
  bool replace(SourceRange R, const std::string &With);
  bool replaceOffsets(unsigned B, unsigned E, const std::string &With);
  bool editSignature(const FunctionDecl *D, const std::string &ReturnType);
  void collectDependencies(FileResult &Result);
  std::string applyAndFormat(const std::string &Code, bool UsesRuntime);

  ASTContext &Ctx;
  SourceManager &SM;
  const LangOptions &LO;
  const FileRequest &Request;
  tooling::Replacements Edits;
  std::vector<tooling::Range> EditedRanges;
  bool Failed = false;
};

bool Rewriter::replaceOffsets(unsigned B, unsigned E, const std::string &With) {
  StringRef File = SM.getFileEntryRefForID(SM.getMainFileID())->getName();
  if (llvm::Error Err = Edits.add(tooling::Replacement(File, B, E - B, With))) {
    llvm::consumeError(std::move(Err));
    return false;
  }
  EditedRanges.emplace_back(B, static_cast<unsigned>(With.size()));
  return true;
}

bool Rewriter::replace(SourceRange R, const std::string &With) {
  auto Off = offsets(R);
  if (!Off)
    return false;
  return replaceOffsets(Off->first, Off->second, With);
}

/// The offset of the first character at or after \p Pos in \p Buf that is
/// neither whitespace nor inside a comment.
static unsigned skipBlanksAndComments(StringRef Buf, unsigned Pos) {
  while (Pos < Buf.size()) {
    StringRef Rest = Buf.drop_front(Pos);
    if (isWhitespace(Rest.front())) {
      ++Pos;
    } else if (Rest.starts_with("//")) {
      std::size_t Eol = Rest.find('\n');
      Pos = Eol == StringRef::npos ? Buf.size() : Pos + Eol;
    } else if (Rest.starts_with("/*")) {
      std::size_t Close = Rest.find("*/", 2);
      Pos = Close == StringRef::npos ? Buf.size() : Pos + Close + 2;
    } else {
      break;
    }
  }
  return Pos;
}

/// The return type becomes the style's; the handler parameter goes.
/// \p Code with every line ending `\r\n`.
static std::string withCrlf(const std::string &Code) {
  std::string Out;
  Out.reserve(Code.size() + Code.size() / 16);
  for (std::size_t I = 0; I < Code.size(); ++I) {
    if (Code[I] == '\n' && (I == 0 || Code[I - 1] != '\r'))
      Out += '\r';
    Out += Code[I];
  }
  return Out;
}

/// Whether the handler's type of \p D, a definition written outside its
/// class or namespace (`void inventory::load(int id, callback<item> done)`),
/// names a member of that class or namespace without qualifying it: in the
/// return type, before the declarator's `inventory::`, the name is not in
/// scope, so the new type goes after the parameters (`auto inventory::load(int
/// id) -> asyncshift::task<item>`), where it is.
static bool handlerNamesQualifierMembers(const FunctionDecl *D) {
  if (!D->getQualifier())
    return false;
  std::set<const DeclContext *> Lexical, Semantic;
  for (const DeclContext *DC = D->getLexicalDeclContext(); DC; DC = DC->getParent())
    Lexical.insert(DC->getPrimaryContext());
  for (const DeclContext *DC = D->getDeclContext(); DC; DC = DC->getParent())
    if (!Lexical.count(DC->getPrimaryContext()))
      Semantic.insert(DC->getPrimaryContext());
  const TypeSourceInfo *TSI = D->getParamDecl(D->getNumParams() - 1)->getTypeSourceInfo();
  if (!TSI || Semantic.empty())
    return false;
  struct Finder : RecursiveASTVisitor<Finder> {
    const std::set<const DeclContext *> &Scopes;
    bool Found = false;
    explicit Finder(const std::set<const DeclContext *> &S) : Scopes(S) {}
    bool VisitElaboratedTypeLoc(ElaboratedTypeLoc TL) {
      if (TL.getQualifierLoc())
        return true; // written `inventory::item`: found from anywhere
      const Type *Named = TL.getNamedTypeLoc().getTypePtr();
      const Decl *D = nullptr;
      if (const auto *T = Named->getAs<TypedefType>())
        D = T->getDecl();
      else if (const auto *T = Named->getAs<TemplateSpecializationType>())
        D = T->getTemplateName().getAsTemplateDecl();
      else
        D = Named->getAsTagDecl();
      if (D && D->getDeclContext() && Scopes.count(D->getDeclContext()->getPrimaryContext()))
        Found = true;
      return !Found;
    }
  } F(Semantic);
  F.TraverseTypeLoc(TSI->getTypeLoc());
  return F.Found;
}

bool Rewriter::editSignature(const FunctionDecl *D, const std::string &ReturnType) {
  SourceRange RT = D->getReturnTypeSourceRange();
  const auto *Proto = D->getType()->getAs<FunctionProtoType>();
  const bool Trailing = D->doesThisDeclarationHaveABody() && Proto && !Proto->hasTrailingReturn() &&
                        handlerNamesQualifierMembers(D);
  if (RT.isInvalid() || !replace(RT, Trailing ? "auto" : ReturnType)) {
    refuse(ids::Macro, D->getLocation(), "cannot find the return type of '" + D->getNameAsString() + "' in the source");
    return false;
  }
  if (Trailing) {
    auto BodyOff = offsets(D->getBody()->getSourceRange());
    if (!BodyOff || !replaceOffsets(BodyOff->first, BodyOff->first, "-> " + ReturnType + " ")) {
      refuse(ids::Macro, D->getLocation(), "cannot find the body of '" + D->getNameAsString() + "' in the source");
      return false;
    }
  }
  unsigned N = D->getNumParams();
  const ParmVarDecl *H = D->getParamDecl(N - 1);
  auto HandlerOff = offsets(H->getSourceRange());
  if (!HandlerOff) {
    refuse(ids::Macro, H->getLocation(), "handler parameter comes from a macro expansion; cannot convert");
    return false;
  }
  // The handler goes with the comments after it (they are about it); the
  // comments between the parameter before it and the comma stay with that
  // one, and so do those after the comma (`int key, // the key`).
  StringRef Buf = SM.getBufferData(SM.getMainFileID());
  unsigned End = skipBlanksAndComments(Buf, HandlerOff->second);
  if (End >= Buf.size() || Buf[End] != ')')
    End = HandlerOff->second;
  if (N >= 2) {
    auto PrevOff = offsets(D->getParamDecl(N - 2)->getSourceRange());
    if (!PrevOff) {
      refuse(ids::Macro, H->getLocation(), "parameter comes from a macro expansion; cannot convert");
      return false;
    }
    unsigned Comma = skipBlanksAndComments(Buf, PrevOff->second);
    if (Comma >= Buf.size() || Buf[Comma] != ',')
      return replaceOffsets(PrevOff->second, HandlerOff->second, "");
    return replaceOffsets(Comma, Comma + 1, "") && replaceOffsets(HandlerOff->first, End, "");
  }
  return replaceOffsets(HandlerOff->first, End, "");
}

void Rewriter::collectDependencies(FileResult &Result) {
  for (auto It = SM.fileinfo_begin(); It != SM.fileinfo_end(); ++It) {
    StringRef Name = It->getFirst().getName();
    if (!Name.empty() && Name != "<built-in>")
      Result.Dependencies.push_back(Name.str());
  }
  llvm::sort(Result.Dependencies);
  Result.Dependencies.erase(std::unique(Result.Dependencies.begin(), Result.Dependencies.end()),
                            Result.Dependencies.end());
}

std::string Rewriter::applyAndFormat(const std::string &Code, bool UsesRuntime) {
  StringRef FileName = SM.getFileEntryRefForID(SM.getMainFileID())->getName();
  llvm::Expected<format::FormatStyle> Style =
      format::getStyle("file", FileName, Request.FallbackStyle, Code, &SM.getFileManager().getVirtualFileSystem());
  format::FormatStyle FS = format::getLLVMStyle();
  if (Style)
    FS = *Style;
  else
    llvm::consumeError(Style.takeError());

  tooling::Replacements All = Edits;
  if (UsesRuntime) {
    bool Included = StringRef(Code).contains("asyncshift/asyncshift.hpp") || StringRef(Code).contains("asyncshift/bench.hpp");
    if (!Included) {
      tooling::HeaderIncludes Includes(FileName, Code, FS.IncludeStyle);
      if (auto R = Includes.insert("asyncshift/asyncshift.hpp", /*IsAngled=*/true, tooling::IncludeDirective::Include))
        if (llvm::Error Err = All.add(*R))
          llvm::consumeError(std::move(Err));
    }
  }
  auto Cleaned = format::cleanupAroundReplacements(Code, All, FS);
  if (!Cleaned) {
    llvm::consumeError(Cleaned.takeError());
    Cleaned = All;
  }
  auto Formatted = format::formatReplacements(Code, *Cleaned, FS);
  if (!Formatted) {
    llvm::consumeError(Formatted.takeError());
    Formatted = *Cleaned;
  }
  auto NewCode = tooling::applyAllReplacements(Code, *Formatted);
  if (!NewCode) {
    llvm::consumeError(NewCode.takeError());
    auto Plain = tooling::applyAllReplacements(Code, All);
    if (!Plain) {
      llvm::consumeError(Plain.takeError());
      return Code;
    }
    return *Plain;
  }
  return *NewCode;
}

/// The parameter types a call of \p D passes once the file is converted: all
/// but the handler when \p D converts.
static std::vector<CanQualType> convertedParams(const ASTContext &Ctx, const FunctionDecl *D,
                                                const ConvertedSet &Converted) {
  unsigned N = D->getNumParams() - (Converted.count(D->getCanonicalDecl()) ? 1 : 0);
  std::vector<CanQualType> Types;
  for (unsigned I = 0; I < N; ++I)
    Types.push_back(Ctx.getCanonicalParamType(D->getParamDecl(I)->getType()));
  return Types;
}

/// Another function of \p FD's scope and name that takes the parameters
/// \p FD takes once converted (with the same qualifiers, for a member).
static const FunctionDecl *overloadClash(const ASTContext &Ctx, const FunctionDecl *FD, const ConvertedSet &Converted) {
  const std::vector<CanQualType> Mine = convertedParams(Ctx, FD, Converted);
  const auto *M = dyn_cast<CXXMethodDecl>(FD);
  for (const NamedDecl *ND : FD->getDeclContext()->getRedeclContext()->lookup(FD->getDeclName())) {
    const auto *G = dyn_cast<FunctionDecl>(ND);
    if (!G || G->getCanonicalDecl() == FD->getCanonicalDecl() || G->isVariadic() != FD->isVariadic())
      continue;
    if (const auto *GM = dyn_cast<CXXMethodDecl>(G); M && GM &&
        (GM->getMethodQualifiers() != M->getMethodQualifiers() || GM->getRefQualifier() != M->getRefQualifier()))
      continue;
    if (convertedParams(Ctx, G, Converted) == Mine)
      return G;
  }
  return nullptr;
}

FileResult Rewriter::run() {
  FileResult Result;
  collectDependencies(Result);
  if (Ctx.getDiagnostics().hasErrorOccurred())
    return Result; // the compiler already said why

  AsyncFunctionFinder Finder(SM);
  Finder.TraverseDecl(Ctx.getTranslationUnitDecl());
  ConvertedSet Converted;
  for (const FunctionDecl *FD : Finder.Found)
    Converted.insert(FD->getCanonicalDecl());
  Result.AsyncFunctions = static_cast<unsigned>(Finder.Found.size());

  // Check mode (--check): the checker's findings for every function of the
  // file, convertible or not; the rewriter's refusals are not bugs.
  if (!Request.Printer) {
    for (const Finding &F : Checker(Ctx).checkMainFile()) {
      report(Ctx.getDiagnostics(), F);
      Failed = true;
    }
    std::vector<Finding> Refusals; // --check --dump-ir: the IR, without the refusals
    for (const FunctionDecl *FD : Finder.Found)
      if (std::optional<AsyncFunction> IR = Request.DumpIR ? buildIR(Ctx, FD, Converted, Refusals) : std::nullopt)
        llvm::outs() << dumpIR(*IR);
    Result.Ok = !Failed;
    return Result;
  }

  Checker Check(Ctx);
  std::vector<std::pair<const FunctionDecl *, PrintedFunction>> Printed;
  for (const FunctionDecl *FD : Finder.Found) {
    // The AST holds only the branch of a preprocessor conditional that this
    // compile selected: the rewritten function would keep that one for good.
    if (auto Skipped = writtenInSkippedCode(FD)) {
      refuse(ids::PreprocessorConditional, FD->getLocation(),
             "'" + FD->getNameAsString() + "' is also named in code this compile skips (line " +
                 std::to_string(SM.getPresumedLineNumber(*Skipped)) +
                 "): a definition or call there would keep the callback form, and not compile in a build that "
                 "takes it; cannot convert (keep what differs between builds in functions left in callback style, "
                 "or mark this one [[clang::annotate(\"asyncshift::leaf\")]])");
      continue;
    }
    if (auto Directive = conditionalDirectiveIn(FD)) {
      refuse(ids::PreprocessorConditional, Directive->first,
             "'" + Directive->second + "' inside a function to convert: the tool sees only the branch this compile "
                 "selects, and the converted function would keep that branch whatever the build defines; cannot "
                 "convert (move the conditional code into a function kept in callback style, or choose with a "
                 "constant: `if constexpr (kDebug)`)");
      continue;
    }
    // Two overloads that differ only in the handler's type (or a converted
    // one and another that already takes the converted parameters) would be
    // one function declared twice.
    if (const FunctionDecl *Other = overloadClash(Ctx, FD, Converted)) {
      Finding F;
      F.Id = ids::OverloadConflict;
      F.Where.Raw = FD->getLocation().getRawEncoding();
      F.Message = "converted, '" + FD->getNameAsString() +
                  "' would take the same parameters as another overload (without the handler, which is all that "
                  "told them apart); cannot convert (give one of them another name)";
      F.Notes.push_back({Loc{Other->getLocation().getRawEncoding()},
                         std::string(Converted.count(Other->getCanonicalDecl()) ? "converted too, " : "") +
                             "the other overload is declared here"});
      report(Ctx.getDiagnostics(), F);
      Failed = true;
      continue;
    }
    // Checker hook: a function whose handler some path calls twice or never
    // is refused with the checker's findings (it sees every path). The IR is
    // still built, for refusals of other constructs, but its own reports of
    // the same two problems are dropped so nothing is reported twice.
    if (std::vector<Finding> Bugs = Check.check(FD, /*CompletionOnly=*/true); !Bugs.empty()) {
      std::vector<Finding> Refusals;
      buildIR(Ctx, FD, Converted, Refusals);
      llvm::erase_if(Refusals, [](const Finding &F) {
        return StringRef(F.Id) == ids::CalledTwice || StringRef(F.Id) == ids::NotCalled;
      });
      for (const std::vector<Finding> *List : {&Bugs, &Refusals})
        for (const Finding &F : *List)
          report(Ctx.getDiagnostics(), F);
      Failed = true;
      continue;
    }
    // A member function called on a local object that dies before the
    // work it started uses `this`: the converted code would keep the object
    // alive until then (in a frame or a state), which the original does not.
    if (std::vector<Finding> Dangling = Check.checkDanglingThis(FD); !Dangling.empty()) {
      for (Finding &F : Dangling) {
        F.Message += "; cannot convert (the converted code would keep the object alive until that work ends, "
                     "which the original does not: give it a lifetime that covers the work)";
        report(Ctx.getDiagnostics(), F);
      }
      Failed = true;
      continue;
    }
    std::vector<Finding> Findings;
    std::optional<AsyncFunction> IR = buildIR(Ctx, FD, Converted, Findings);
    if (IR) {
      checkCompletionPaths(*IR, Findings);
      if (Findings.empty())
        normalizeJoins(*IR);
    }
    if (IR && Request.DumpIR)
      llvm::outs() << dumpIR(*IR);
    if (IR && Findings.empty() && Request.Printer) {
      if (auto P = Request.Printer->print(*IR, Findings)) {
        settleThisCaptures(P->Body);
        Printed.emplace_back(FD, std::move(*P));
      }
    }
    for (const Finding &F : Findings)
      report(Ctx.getDiagnostics(), F);
    if (!Findings.empty()) {
      Failed = true;
    } else if (IR && Request.Printer) {
      std::vector<Finding> Caveats;
      checkValuesReadWithError(*IR, Caveats);
      for (const Finding &F : Caveats)
        report(Ctx.getDiagnostics(), F);
    }
  }

  if (Request.Printer) {
    FunctionValueFinder Values(SM, Converted);
    Values.TraverseDecl(Ctx.getTranslationUnitDecl());
    for (const DeclRefExpr *E : Values.Found)
      refuse(ids::FunctionAsValue, E->getLocation(),
             "'" + E->getDecl()->getNameAsString() +
                 "' is used here as a value, not called; converting it changes its type, so this use would no "
                 "longer compile; cannot convert (call it, or mark it " +
                 LeafAttribute + " to keep it in callback style)");
  }

  // Calls of converted functions from code that keeps its callbacks: the
  // call returns a task (promise, future) now, started and delivered to the
  // same handler (asyncshift::start / .then_callback).
  std::vector<std::pair<std::pair<unsigned, unsigned>, std::string>> Detached;
  if (Request.Printer) {
    ForeignCallFinder Calls(SM, Converted);
    Calls.TraverseDecl(Ctx.getTranslationUnitDecl());
    struct Site {
      unsigned Begin, End;
      std::optional<std::pair<unsigned, unsigned>> Prev; ///< the argument before the handler
      std::pair<unsigned, unsigned> Handler;
    };
    std::vector<Site> Sites;
    for (const CallExpr *C : Calls.Found) {
      CallArgs A = callArguments(C);
      auto Whole = offsets(C->getSourceRange());
      auto HandlerOff = A.Args.empty() ? std::nullopt : offsets(A.Args.back()->getSourceRange());
      auto PrevOff = A.Args.size() >= 2 ? offsets(A.Args[A.Args.size() - 2]->getSourceRange()) : std::nullopt;
      if (!Whole || !HandlerOff || (A.Args.size() >= 2 && !PrevOff)) {
        refuse(ids::Macro, C->getBeginLoc(), "call of a converted function comes from a macro expansion; cannot convert");
        continue;
      }
      Sites.push_back({Whole->first, Whole->second, PrevOff, *HandlerOff});
    }
    // Outer calls first; one call can sit in another's handler (a driver
    // starting the next call from the first one's callback): the text of
    // each piece of the outer call has the inner ones rewritten.
    llvm::sort(Sites, [](const Site &L, const Site &R) { return L.Begin != R.Begin ? L.Begin < R.Begin : L.End > R.End; });
    StringRef Buffer = SM.getBufferData(SM.getMainFileID());
    std::function<std::string(const Site &)> render;
    auto textOf = [&](unsigned Begin, unsigned End) {
      std::string Out;
      unsigned Pos = Begin;
      for (const Site &S : Sites) {
        if (S.Begin >= End)
          break;
        if (S.Begin < Pos || S.End > End)
          continue; // before this piece, or inside a call already rendered
        Out += Buffer.slice(Pos, S.Begin).str() + render(S);
        Pos = S.End;
      }
      return Out + Buffer.slice(Pos, End).str();
    };
    render = [&](const Site &S) {
      std::string Call = S.Prev ? textOf(S.Begin, S.Prev->second) : StringRef(textOf(S.Begin, S.Handler.first)).rtrim().str();
      Call += textOf(S.Handler.second, S.End);
      return Request.Printer->detachedCall(Call, textOf(S.Handler.first, S.Handler.second));
    };
    unsigned Covered = 0;
    for (const Site &S : Sites)
      if (Detached.empty() || S.Begin >= Covered) {
        Detached.push_back({{S.Begin, S.End}, render(S)});
        Covered = S.End;
      }
  }
  if (Failed)
    return Result;
  if (!Request.Printer) {
    Result.Ok = true;
    return Result;
  }

  for (auto &[FD, P] : Printed)
    for (const FunctionDecl *Redecl : FD->redecls())
      if (!writtenInMainFile(SM, Redecl->getLocation())) {
        Finding F;
        F.Id = ids::DeclaredElsewhere;
        F.Where.Raw = FD->getLocation().getRawEncoding();
        F.Message = "'" + FD->getNameAsString() +
                    "' is also declared in another file (a header), and the tool converts a function only in the "
                    "file that defines it, so that declaration would keep the callback form; cannot convert "
                    "(declare it in this file only, or mark that declaration "
                    "[[clang::annotate(\"asyncshift::leaf\")]] to keep it in callback style)";
        F.Notes.push_back({Loc{Redecl->getLocation().getRawEncoding()}, "declared here"});
        report(Ctx.getDiagnostics(), F);
        Failed = true;
        break;
      }
  if (Failed)
    return Result;
  if (!Printed.empty() && Request.Printer->defersContinuations())
    warnReorderedCompletions(Check);
  for (auto &[FD, P] : Printed) {
    if (!editSignature(FD, P.ReturnType) || !replace(FD->getBody()->getSourceRange(), P.Body))
      return Result;
    for (const FunctionDecl *Redecl : FD->redecls())
      if (Redecl != FD && !Redecl->doesThisDeclarationHaveABody() &&
          writtenInMainFile(SM, Redecl->getLocation()))
        if (!editSignature(Redecl, P.ReturnType))
          return Result;
  }
  for (const auto &[Range, Text] : Detached)
    if (!replaceOffsets(Range.first, Range.second, Text))
      return Result;
  std::string Code = SM.getBufferData(SM.getMainFileID()).str();
  Result.NewCode = Printed.empty() ? Code : applyAndFormat(Code, /*UsesRuntime=*/true);
  if (!Printed.empty() && StringRef(Code).count("\r\n") * 2 > StringRef(Code).count('\n'))
    Result.NewCode = withCrlf(Result.NewCode); // a CRLF file stays one
  Result.Ok = true;
  // For the run's cross-file check (Driver): what this file converts, and
  // which functions it only declares and uses in callback style.
  llvm::SmallString<128> USR;
  for (auto &[FD, P] : Printed)
    if (USR.clear(), !index::generateUSRForDecl(FD, USR))
      Result.ConvertedUSRs.insert(std::string(USR));
  LeafUseFinder Uses(SM);
  Uses.TraverseDecl(Ctx.getTranslationUnitDecl());
  for (const auto &[D, Where] : Uses.Found)
    if (USR.clear(), !index::generateUSRForDecl(D, USR)) {
      PresumedLoc PL = SM.getPresumedLoc(SM.getFileLoc(Where));
      Result.LeafUses.push_back({std::string(USR), D->getQualifiedNameAsString(),
                                 PL.isValid() ? std::string(PL.getFilename()) + ":" + std::to_string(PL.getLine()) +
                                                    ":" + std::to_string(PL.getColumn())
                                              : std::string()});
    }
  return Result;
}

} // namespace

/// Limits every traversal of \p Ctx from the translation unit, and its parent
/// map, to the main file's top-level declarations. Everything the tool finds
/// (async functions, calls and uses of them, check roots) is written in the
/// main file, and every parent it asks for is inside one of them; without the
/// scope each of the rewriter's whole-unit walks also went through every
/// included header, and the first getParents mapped all of them: most of the
/// tool's time on a small file that includes the runtime or the standard
/// library.
static void scopeToMainFile(ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  std::vector<Decl *> Scope;
  for (Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (writtenInMainFile(SM, D->getLocation()) || writtenInMainFile(SM, D->getBeginLoc()))
      Scope.push_back(D);
  Ctx.setTraversalScope(Scope);
}

FileResult processFile(ASTContext &Ctx, const FileRequest &Request) {
  scopeToMainFile(Ctx);
  Rewriter R(Ctx, Request);
  return R.run();
}

} // namespace asyncshift
