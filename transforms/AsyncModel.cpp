//===- AsyncModel.cpp - What is async in the Clang AST --------------------===//

#include "AsyncModel.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/QualTypeNames.h"
#include "clang/Basic/CharInfo.h"

using namespace clang;

namespace asyncshift {

static const CXXRecordDecl *recordOf(QualType T) {
  if (T.isNull())
    return nullptr;
  T = T.getNonReferenceType().getUnqualifiedType();
  return T->getAsCXXRecordDecl();
}

static bool isNamed(const NamedDecl *D, llvm::StringRef Qualified) {
  return D && D->getQualifiedNameAsString() == Qualified;
}

/// The callback type whose value is the first type in \p Pack (a template
/// parameter pack of a specialization: callback<T...>, borrowed_sink<S, T...>).
static CallbackType fromValuePack(const TemplateArgument &Pack) {
  CallbackType Result;
  if (Pack.getKind() == TemplateArgument::Pack && Pack.pack_size() > 0) {
    Result.HasValue = true;
    Result.Value = Pack.pack_begin()->getAsType();
  }
  return Result;
}

std::optional<CallbackType> asCallbackType(QualType T) {
  if (T.isNull())
    return std::nullopt;
  QualType Plain = T.getNonReferenceType().getUnqualifiedType();
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(recordOf(Plain));
  if (Spec && isNamed(Spec->getSpecializedTemplate(), "asyncshift::detail::borrowed_sink")) {
    // The runtime's always-borrowing handle, borrowed_sink<Sink, T...>, which
    // a generic branch of parallel is instantiated with: a callback<T...>.
    const TemplateArgumentList &Args = Spec->getTemplateArgs();
    return Args.size() > 1 ? fromValuePack(Args[1]) : CallbackType{};
  }
  if (!Spec || !isNamed(Spec->getSpecializedTemplate(), "asyncshift::callback")) {
    // A class derived from callback<T> is one (the runtime's sink callbacks,
    // which a generic step of each_series is instantiated with).
    const CXXRecordDecl *RD = recordOf(Plain);
    if (RD && (RD = RD->getDefinition()))
      for (const CXXBaseSpecifier &Base : RD->bases())
        if (auto CT = asCallbackType(Base.getType()))
          return CT;
    return std::nullopt;
  }
  // Prefer the arguments as written (sugar: `std::int64_t`, not `long`).
  if (const auto *TST = Plain->getAs<TemplateSpecializationType>()) {
    auto Args = TST->template_arguments();
    if (!Args.empty() && Args[0].getKind() == TemplateArgument::Type) {
      CallbackType Result;
      Result.HasValue = true;
      Result.Value = Args[0].getAsType();
      return Result;
    }
    return Args.empty() ? CallbackType{} : fromValuePack(Args[0]);
  }
  const TemplateArgumentList &Args = Spec->getTemplateArgs();
  return Args.size() > 0 ? fromValuePack(Args[0]) : CallbackType{};
}

bool isErrorType(QualType T) { return isNamed(recordOf(T), "asyncshift::error"); }

const Expr *stripArgument(const Expr *E) {
  while (E) {
    E = E->IgnoreImplicit();
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
      if (isa<CXXTemporaryObjectExpr>(Construct))
        return E;
      if (Construct->getNumArgs() >= 1 && (Construct->getNumArgs() == 1 || isa<CXXDefaultArgExpr>(Construct->getArg(1)))) {
        E = Construct->getArg(0);
        continue;
      }
      return E;
    }
    if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E)) {
      if (asCallbackType(Cast->getType())) {
        E = Cast->getSubExpr();
        continue;
      }
      return E;
    }
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
      // A handle's conversion to a callback (borrowed_sink's to callback<T...>).
      if (isa_and_nonnull<CXXConversionDecl>(Member->getMethodDecl()) && asCallbackType(Member->getType())) {
        E = Member->getImplicitObjectArgument();
        continue;
      }
      return E;
    }
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      // std::move(x) / std::forward<T>(x)
      if (const FunctionDecl *FD = Call->getDirectCallee())
        if (FD->isInStdNamespace() && FD->getDeclName().isIdentifier() &&
            (FD->getName() == "move" || FD->getName() == "forward") && Call->getNumArgs() == 1) {
          E = Call->getArg(0);
          continue;
        }
      return E;
    }
    if (const auto *Paren = dyn_cast<ParenExpr>(E)) {
      E = Paren->getSubExpr();
      continue;
    }
    return E;
  }
  return E;
}

bool isContinuationVar(const VarDecl *V) {
  if (!V)
    return false;
  const CXXRecordDecl *RD = V->getType().getNonReferenceType()->getAsCXXRecordDecl();
  if (!RD || !RD->isLambda())
    return false;
  if (const Expr *Init = V->getInit())
    if (const auto *L = dyn_cast<LambdaExpr>(stripArgument(Init)))
      return isContinuationShaped(L);
  const CXXMethodDecl *Call = RD->getLambdaCallOperator();
  return Call && !RD->isGenericLambda() && Call->getNumParams() >= 1 && Call->getNumParams() <= 2 &&
         isErrorType(Call->getParamDecl(0)->getType());
}

bool isContinuationShaped(const LambdaExpr *L) {
  if (!L)
    return false;
  const CXXMethodDecl *Call = L->getCallOperator();
  if (!Call || L->isGenericLambda())
    return false;
  unsigned N = Call->getNumParams();
  if (N < 1 || N > 2)
    return false;
  return isErrorType(Call->getParamDecl(0)->getType());
}

bool isGenericContinuation(const LambdaExpr *L) {
  if (!L || !L->isGenericLambda())
    return false;
  const FunctionTemplateDecl *Template = L->getDependentCallOperator();
  if (!Template)
    return false;
  for (const FunctionDecl *Spec : Template->specializations()) {
    unsigned N = Spec->getNumParams();
    if (N >= 1 && N <= 2 && isErrorType(Spec->getParamDecl(0)->getType()))
      return true;
  }
  return false;
}

CallArgs callArguments(const CallExpr *C) {
  CallArgs Result;
  Result.Callee = C->getDirectCallee();
  unsigned Skip = 0;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(C)) {
    // Only `f(args)`: `a = b`, `a << b` and friends are not calls with a handler.
    if (Op->getOperator() != OO_Call) {
      Result.IsOperator = true;
      return Result;
    }
    Skip = 1;
    Result.Object = Op->getArg(0);
  }
  for (unsigned I = Skip; I < C->getNumArgs(); ++I) {
    const Expr *A = C->getArg(I);
    if (isa<CXXDefaultArgExpr>(A))
      break; // defaulted trailing arguments are not written
    Result.Args.push_back(A);
  }
  Result.FirstParam = 0;
  return Result;
}

const ParmVarDecl *handlerParam(const FunctionDecl *FD) {
  if (!FD || FD->getNumParams() == 0)
    return nullptr;
  const ParmVarDecl *Last = FD->getParamDecl(FD->getNumParams() - 1);
  return asCallbackType(Last->getType()) ? Last : nullptr;
}

CXXMethodDecl *singleInstantiation(const LambdaExpr *L) {
  if (!L->isGenericLambda())
    return nullptr;
  const FunctionTemplateDecl *Template = L->getDependentCallOperator();
  if (!Template)
    return nullptr;
  CXXMethodDecl *Found = nullptr;
  for (FunctionDecl *Spec : Template->specializations()) {
    if (Found || !Spec->hasBody())
      return nullptr; // more than one: which types the lambda sees is not one answer
    Found = dyn_cast<CXXMethodDecl>(Spec);
  }
  return Found;
}

const ParmVarDecl *dependentHandlerParam(const FunctionDecl *FD) {
  if (!FD || FD->getNumParams() == 0 || !FD->isTemplated())
    return nullptr;
  const ParmVarDecl *Last = FD->getParamDecl(FD->getNumParams() - 1);
  QualType T = Last->getType().getNonReferenceType();
  if (!T->isDependentType())
    return nullptr;
  const auto *TST = T->getAs<TemplateSpecializationType>();
  const TemplateDecl *TD = TST ? TST->getTemplateName().getAsTemplateDecl() : nullptr;
  return TD && isNamed(TD, "asyncshift::callback") ? Last : nullptr;
}

const VarDecl *referencedVar(const Expr *E) {
  if (!E)
    return nullptr;
  E = E->IgnoreParenImpCasts();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    return dyn_cast<VarDecl>(DRE->getDecl());
  return nullptr;
}

const LambdaCapture *captureOf(const LambdaExpr *L, const ValueDecl *V) {
  for (const LambdaCapture &C : L->captures())
    if (C.capturesVariable() && C.getCapturedVar() == V)
      return &C;
  return nullptr;
}

bool isSuccessLiteral(const Expr *E) {
  if (!E)
    return false;
  E = E->IgnoreImplicit();
  if (const auto *Paren = dyn_cast<ParenExpr>(E))
    return isSuccessLiteral(Paren->getSubExpr());
  if (isa<InitListExpr>(E))
    return cast<InitListExpr>(E)->getNumInits() == 0;
  if (isa<ImplicitValueInitExpr>(E) || isa<CXXScalarValueInitExpr>(E))
    return true;
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
    return Construct->getNumArgs() == 0 && isErrorType(Construct->getType());
  if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E))
    return isSuccessLiteral(Cast->getSubExpr());
  return false;
}

bool isFailureConstruction(const Expr *E) {
  if (!E)
    return false;
  E = E->IgnoreImplicit();
  if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E))
    E = Cast->getSubExpr()->IgnoreImplicit();
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    if (!isErrorType(Construct->getType()) || Construct->getNumArgs() != 1)
      return false;
    QualType ArgType = Construct->getArg(0)->getType();
    // Not the copy/move constructor: an error made from a message.
    return !isErrorType(ArgType);
  }
  return false;
}

bool isForcedLeaf(const Decl *D) {
  for (const auto *A : D->specific_attrs<AnnotateAttr>())
    if (A->getAnnotation() == "asyncshift::leaf")
      return true;
  return false;
}

static PrintingPolicy typePolicy(const ASTContext &Ctx) {
  PrintingPolicy Policy(Ctx.getLangOpts());
  Policy.SuppressScope = false;
  Policy.FullyQualifiedName = true;
  Policy.SuppressUnwrittenScope = true;
  Policy.PrintCanonicalTypes = false;
  return Policy;
}

/// A name brought in by a using-declaration at namespace scope, spelt where
/// the using-declaration puts it: `std::int64_t` (libstdc++ and libc++ declare
/// it as `using ::int64_t;` in std). getFullyQualifiedName qualifies by the
/// target's scope and prints `int64_t`, which only the C header promises.
static std::optional<std::string> printUsingType(QualType T, const PrintingPolicy &Policy) {
  const auto *Using = dyn_cast<UsingType>(T.getTypePtr());
  if (!Using || !Using->getFoundDecl()->getDeclContext()->isFileContext())
    return std::nullopt;
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  Using->getFoundDecl()->printQualifiedName(OS, Policy);
  return Out;
}

/// Spells \p T fully qualified, keeping using-declared names as the source
/// wrote them, at the top level and as the type arguments of a template
/// specialization (`callback<std::int64_t>`, `std::vector<std::int64_t>`);
/// anything else goes to Clang's getFullyQualifiedName.
static std::string printQualified(QualType T, const ASTContext &Ctx, const PrintingPolicy &Policy) {
  Qualifiers Quals = T.getLocalQualifiers();
  QualType Bare = T.getLocalUnqualifiedType();
  if (const auto *Elab = dyn_cast<ElaboratedType>(Bare.getTypePtr()))
    if (Elab->getKeyword() == ElaboratedTypeKeyword::None) {
      Quals += Elab->getNamedType().getLocalQualifiers();
      Bare = Elab->getNamedType().getLocalUnqualifiedType();
    }
  std::string Prefix = Quals.empty() ? "" : Quals.getAsString(Policy) + " ";
  if (auto Using = printUsingType(Bare, Policy))
    return Prefix + *Using;
  const auto *TST = dyn_cast<TemplateSpecializationType>(Bare.getTypePtr());
  const TemplateDecl *TD = TST ? TST->getTemplateName().getAsTemplateDecl() : nullptr;
  bool AnyUsing = false;
  if (TD && TD->getDeclContext()->isFileContext() && !TST->isDependentType()) {
    bool AllTypes = true;
    for (const TemplateArgument &A : TST->template_arguments()) {
      if (A.getKind() != TemplateArgument::Type) {
        AllTypes = false;
        break;
      }
      QualType Arg = A.getAsType();
      if (const auto *E = dyn_cast<ElaboratedType>(Arg.getTypePtr()))
        Arg = E->getNamedType();
      AnyUsing |= isa<UsingType>(Arg.getTypePtr()) || isa<TemplateSpecializationType>(Arg.getTypePtr());
    }
    if (AllTypes && AnyUsing) {
      std::string Out;
      llvm::raw_string_ostream OS(Out);
      TD->printQualifiedName(OS, Policy);
      OS << '<';
      bool First = true;
      for (const TemplateArgument &A : TST->template_arguments()) {
        OS << (First ? "" : ", ") << printQualified(A.getAsType(), Ctx, Policy);
        First = false;
      }
      OS << '>';
      return Prefix + Out;
    }
  }
  return TypeName::getFullyQualifiedName(T, Ctx, Policy, /*WithGlobalNsPrefix=*/false);
}

/// What deduction sugar at the top of \p T (`auto`, `decltype(auto)`,
/// `decltype(e)`, a class template deduced from its arguments, through
/// qualified names) stands for: the deduced type and the qualifiers gathered
/// on the way; nothing when \p T is not spelt by deduction.
static std::optional<std::pair<QualType, Qualifiers>> deducedFrom(QualType T) {
  Qualifiers Quals = T.getLocalQualifiers();
  QualType D = T.getLocalUnqualifiedType();
  bool Deduced = false;
  for (unsigned Depth = 0; Depth < 8; ++Depth) {
    QualType Next;
    if (const auto *Elab = dyn_cast<ElaboratedType>(D.getTypePtr()))
      Next = Elab->getNamedType();
    else if (const auto *A = dyn_cast<DeducedType>(D.getTypePtr()); A && !A->getDeducedType().isNull())
      Next = A->getDeducedType(); // auto, decltype(auto), std::vector x{...} (a dependent auto has none)
    else if (const auto *DT = dyn_cast<DecltypeType>(D.getTypePtr()); DT && !DT->isDependentType())
      Next = DT->getUnderlyingType(); // decltype(a) names what a state struct cannot see
    else
      break;
    Deduced |= !isa<ElaboratedType>(D.getTypePtr());
    Quals += Next.getLocalQualifiers();
    D = Next.getLocalUnqualifiedType();
  }
  if (!Deduced)
    return std::nullopt;
  return std::make_pair(D, Quals);
}

/// The names the standard library gives its string specializations, for
/// the canonical spelling of a type: `std::basic_string<char>` is
/// `std::string` in every library, and is what the source wrote.
static std::string useStandardNames(std::string Printed) {
  static const std::pair<const char *, const char *> Names[] = {
      {"std::basic_string<char>", "std::string"},
      {"std::basic_string<wchar_t>", "std::wstring"},
      {"std::basic_string<char8_t>", "std::u8string"},
      {"std::basic_string<char16_t>", "std::u16string"},
      {"std::basic_string<char32_t>", "std::u32string"},
      {"std::basic_string_view<char>", "std::string_view"},
      {"std::basic_string_view<wchar_t>", "std::wstring_view"},
      {"std::basic_string_view<char8_t>", "std::u8string_view"},
      {"std::basic_string_view<char16_t>", "std::u16string_view"},
      {"std::basic_string_view<char32_t>", "std::u32string_view"},
  };
  for (const auto &[Long, Short] : Names) {
    std::string_view L(Long);
    for (size_t At = Printed.find(L); At != std::string::npos; At = Printed.find(L, At)) {
      bool Starts = At == 0 || !(isAsciiIdentifierContinue(Printed[At - 1]) || Printed[At - 1] == ':');
      if (!Starts) {
        At += L.size();
        continue;
      }
      Printed.replace(At, L.size(), Short);
      At += std::string_view(Short).size();
    }
  }
  return Printed;
}

/// \p T's canonical type, printed as Clang's diagnostics print it: every
/// scope written out, default template arguments left off (`std::vector<int>`,
/// not `std::vector<int, std::allocator<int>>`), the standard string names
/// kept.
static std::string printCanonical(QualType T, const ASTContext &Ctx, const PrintingPolicy &Policy) {
  PrintingPolicy Canonical = Policy;
  Canonical.FullyQualifiedName = true;
  Canonical.SuppressScope = false;
  // Clang drops default arguments only when not asked for canonical types;
  // the type printed is canonical already.
  Canonical.PrintCanonicalTypes = false;
  Canonical.SuppressDefaultTemplateArgs = true;
  return useStandardNames(T.getCanonicalType().getAsString(Canonical));
}

static bool isReservedName(const NamedDecl *D) {
  return !D->getIdentifier() || D->getName().starts_with("_");
}

/// Does \p Printed name an identifier reserved to the implementation
/// (`__gnu_cxx`, `_Rb_tree_iterator`): one library's internals?
static bool hasReservedName(std::string_view Printed) {
  for (size_t I = 0; I + 1 < Printed.size(); ++I) {
    bool Starts = I == 0 || !isAsciiIdentifierContinue(Printed[I - 1]);
    if (Starts && Printed[I] == '_' && (Printed[I + 1] == '_' || isUppercase(Printed[I + 1])))
      return true;
  }
  return false;
}

bool isInStd(const Decl *D) {
  for (const DeclContext *DC = D->getDeclContext(); DC; DC = DC->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC); NS && NS->isStdNamespace())
      return true;
  return false;
}

/// The object a deduced member typedef came from (`totals` in
/// `auto it = totals.find(k)`): its class, and its type as written.
struct MemberObject {
  const CXXRecordDecl *Class = nullptr;
  std::string Spelling;
};

/// A public member typedef of a class the program can name, spelt through
/// that class: `std::map<int, std::string>::const_iterator` for what
/// `m.find(k)` returns, `std::vector<int>::size_type` for `v.size()`. Their
/// canonical types are each library's own (`std::_Rb_tree_const_iterator`,
/// `unsigned long`), which another library or target does not compile or
/// does not mean. The class is spelt as \p Via writes it when it is that
/// object's (`std::map<std::int64_t, int>`), else canonically.
static std::optional<std::string> printMemberTypedef(const TypedefNameDecl *Name, const ASTContext &Ctx,
                                                     const PrintingPolicy &Policy, const MemberObject *Via) {
  const auto *Class = dyn_cast<CXXRecordDecl>(Name->getDeclContext());
  if (!Class || isReservedName(Name) || isReservedName(Class) || Name->getAccess() != AS_public ||
      Class->isDependentContext() || Class->isLambda() || !Class->getDeclContext()->isFileContext())
    return std::nullopt;
  if (Via && Via->Class->getCanonicalDecl() == Class->getCanonicalDecl())
    return Via->Spelling + "::" + Name->getName().str();
  return printCanonical(Ctx.getRecordType(Class), Ctx, Policy) + "::" + Name->getName().str();
}

/// Spells \p D, a deduced type, so that it means the same outside the
/// expression it came from. A typedef or using-declared name at namespace
/// scope (`std::string`, `std::int64_t`) is kept, and a public member typedef
/// is spelt through its class; any other sugar is dropped for the canonical
/// type: a deduced type carries the sugar of the declaration it came from
/// (`shared_ptr<_NonArray<_Tp>>` from std::make_shared,
/// `basic_string<_CharT, _Traits, _Alloc>` from an operator+), spelt in that
/// declaration's scope and wrong anywhere else.
static std::string printDeduced(QualType D, Qualifiers Quals, const ASTContext &Ctx, const PrintingPolicy &Policy,
                                const MemberObject *Via = nullptr) {
  if (const auto *UT = dyn_cast<UsingType>(D.getTypePtr()))
    if (UT->getFoundDecl()->getDeclContext()->isFileContext() && !isReservedName(UT->getFoundDecl()))
      return printQualified(Ctx.getQualifiedType(D, Quals), Ctx, Policy);
  // Through a chain of typedefs, the first that can be named here: a member
  // typedef of a class template's pattern (`size_type` of vector<_Tp>, as
  // libstdc++'s size() is declared) names `size_t` in turn. A standard
  // library member typedef is kept only where the canonical spelling is not
  // plain: `std::vector<int>::const_iterator` for the library's own iterator,
  // but `std::string` for `std::tuple_element<1, std::pair<int, std::string>>::type`.
  std::string Canonical = printCanonical(Ctx.getQualifiedType(D, Quals), Ctx, Policy);
  const bool Plain = !D.getCanonicalType()->isBuiltinType() && !hasReservedName(Canonical);
  QualType Cur = D;
  Qualifiers CurQuals = Quals;
  for (unsigned Depth = 0; Depth < 8; ++Depth) {
    if (const auto *Elab = dyn_cast<ElaboratedType>(Cur.getTypePtr())) {
      CurQuals += Elab->getNamedType().getLocalQualifiers();
      Cur = Elab->getNamedType().getLocalUnqualifiedType();
    }
    const auto *TT = dyn_cast<TypedefType>(Cur.getTypePtr());
    if (!TT)
      break;
    const TypedefNameDecl *Name = TT->getDecl();
    if (Name->getDeclContext()->isFileContext() && !isReservedName(Name))
      return printQualified(Ctx.getQualifiedType(Cur, CurQuals), Ctx, Policy);
    if (auto Member = printMemberTypedef(Name, Ctx, Policy, Via); Member && (!isInStd(Name) || !Plain))
      return (CurQuals.empty() ? "" : CurQuals.getAsString(Policy) + " ") + *Member;
    QualType Next = TT->desugar();
    if (Next.isNull() || Next->isDependentType())
      break;
    CurQuals += Next.getLocalQualifiers();
    Cur = Next.getLocalUnqualifiedType();
  }
  return Canonical;
}

bool isDeducedType(QualType T) { return deducedFrom(T).has_value(); }

std::optional<std::string> printMemberTypeOf(QualType T, QualType Object, const ASTContext &Ctx) {
  auto Deduced = deducedFrom(T);
  Object = Object.getNonReferenceType();
  if (Object->isPointerType())
    Object = Object->getPointeeType();
  const CXXRecordDecl *Class = Object->getAsCXXRecordDecl();
  if (!Deduced || !Class || Object->isDependentType())
    return std::nullopt;
  const MemberObject Via{Class, printType(Object.getUnqualifiedType(), Ctx)};
  return printDeduced(Deduced->first, Deduced->second, Ctx, typePolicy(Ctx), &Via);
}

std::string printType(QualType T, const ASTContext &Ctx, bool Deduced) {
  PrintingPolicy Policy = typePolicy(Ctx);
  if (Deduced)
    return printDeduced(T.getLocalUnqualifiedType(), T.getLocalQualifiers(), Ctx, Policy);
  if (auto Deduced = deducedFrom(T))
    return printDeduced(Deduced->first, Deduced->second, Ctx, Policy);
  return printQualified(T, Ctx, Policy);
}

} // namespace asyncshift
