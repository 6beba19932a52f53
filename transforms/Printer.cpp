//===- Printer.cpp - The style registry and output naming -----------------===//

#include "Printer.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace asyncshift {

std::unique_ptr<StylePrinter> makeChainPrinter(bool IsPromise);
std::unique_ptr<StylePrinter> makeCoroPrinter(bool ErrorsAsValues);

namespace {
struct Registered {
  const char *Name;
  std::unique_ptr<StylePrinter> (*Make)();
};
// One line per style, sorted.
const Registered Registry[] = {
    {"coro", [] { return makeCoroPrinter(/*ErrorsAsValues=*/false); }},
    {"coro-values", [] { return makeCoroPrinter(/*ErrorsAsValues=*/true); }},
    {"future", [] { return makeChainPrinter(/*IsPromise=*/false); }},
    {"promise", [] { return makeChainPrinter(/*IsPromise=*/true); }},
};
} // namespace

std::unique_ptr<StylePrinter> makePrinter(const std::string &Style) {
  for (const Registered &R : Registry)
    if (Style == R.Name)
      return R.Make();
  return nullptr;
}

/// Skips the balanced group that opens at \p Body[I] ('(', '{' or '['),
/// past string and character literals and comments (raw strings are not
/// printed here); false if it never closes.
static bool skipGroup(const std::string &Body, std::size_t &I) {
  const std::size_t N = Body.size();
  int Depth = 0;
  while (I < N) {
    const char C = Body[I];
    if (C == '"' || C == '\'') {
      ++I;
      while (I < N && Body[I] != C)
        I += Body[I] == '\\' ? 2 : 1;
      ++I;
      continue;
    }
    if (C == '/' && I + 1 < N && Body[I + 1] == '/') {
      I = Body.find('\n', I);
      if (I == std::string::npos)
        return false;
      continue;
    }
    if (C == '/' && I + 1 < N && Body[I + 1] == '*') {
      I = Body.find("*/", I + 2);
      if (I == std::string::npos)
        return false;
      I += 2;
      continue;
    }
    if (C == '(' || C == '{' || C == '[')
      ++Depth;
    else if (C == ')' || C == '}' || C == ']') {
      if (--Depth == 0) {
        ++I;
        return true;
      }
    }
    ++I;
  }
  return false;
}

static bool isBlank(char C) { return C == ThisMark || std::isspace(static_cast<unsigned char>(C)); }

bool isOneIfStatement(const std::string &Body) {
  std::size_t I = 0;
  const std::size_t N = Body.size();
  auto skipSpace = [&] {
    while (I < N && isBlank(Body[I]))
      ++I;
  };
  auto startsWith = [&](const char *Word) {
    const std::size_t L = std::strlen(Word);
    return Body.compare(I, L, Word) == 0 && (I + L == N || !(std::isalnum(static_cast<unsigned char>(Body[I + L])) || Body[I + L] == '_'));
  };
  skipSpace();
  if (!startsWith("if"))
    return false;
  while (true) {
    // At `if`: its condition and its braced arm.
    I += 2;
    skipSpace();
    if (I >= N || Body[I] != '(' || !skipGroup(Body, I))
      return false;
    skipSpace();
    if (I >= N || Body[I] != '{' || !skipGroup(Body, I))
      return false;
    skipSpace();
    if (I == N)
      return true;
    if (!startsWith("else"))
      return false;
    I += 4;
    skipSpace();
    if (startsWith("if"))
      continue;
    if (I >= N || Body[I] != '{' || !skipGroup(Body, I))
      return false;
    skipSpace();
    return I == N;
  }
}

void settleThisCaptures(std::string &Body) {
  static constexpr std::string_view Capture = "[=, this]";
  std::vector<std::size_t> At;
  for (std::size_t P = Body.find(Capture); P != std::string::npos; P = Body.find(Capture, P + 1))
    At.push_back(P);
  // From the last, so that the places before stay where they were.
  for (auto It = At.rbegin(); It != At.rend(); ++It) {
    std::size_t I = *It + Capture.size();
    while (I < Body.size() && isBlank(Body[I]))
      ++I;
    if (I >= Body.size() || Body[I] != '(' || !skipGroup(Body, I))
      continue;
    // `mutable`, `-> type`: up to the body's brace.
    const std::size_t Open = Body.find_first_of("{;", I);
    if (Open == std::string::npos || Body[Open] != '{')
      continue;
    std::size_t Close = Open;
    if (!skipGroup(Body, Close))
      continue; // unsure where it ends: keep `this`
    if (Body.find(ThisMark, Open) < Close)
      continue;
    Body.replace(*It, Capture.size(), "[=]");
  }
  Body.erase(std::remove(Body.begin(), Body.end(), ThisMark), Body.end());
}

std::vector<std::string> styleNames() {
  std::vector<std::string> Names;
  for (const Registered &R : Registry)
    Names.push_back(R.Name);
  return Names;
}

Naming::Naming(const AsyncFunction &F) : F(&F) {
  for (const Var &V : F.Vars)
    Names.push_back(V.Name);
  Taken = F.Identifiers;
  Scopes.emplace_back();
}

bool Naming::visible(const std::string &Name) const {
  for (const auto &S : Scopes)
    if (S.count(Name))
      return true;
  return false;
}

std::string Naming::fresh(const std::string &Base) {
  std::string Stem = Base.empty() ? "value" : Base;
  if (!Taken.count(Stem) && !visible(Stem)) {
    Taken.insert(Stem);
    return Stem;
  }
  for (unsigned I = 2;; ++I) {
    std::string Candidate = Stem + "_" + std::to_string(I);
    if (!Taken.count(Candidate) && !visible(Candidate)) {
      Taken.insert(Candidate);
      return Candidate;
    }
  }
}

const std::string &Naming::declare(VarId V, const std::set<std::string> &Avoid) {
  std::string Want = F->Vars[V].Name;
  if (visible(Want) || F->JoinOuterNames.count(Want) || Avoid.count(Want)) {
    Want = fresh(Want);
  }
  Taken.insert(Want);
  Scopes.back().insert(Want);
  Names[V] = Want;
  return Names[V];
}

std::string Naming::render(const Text &T) const {
  return renderText(T, [this](VarId V) { return Names[V]; }, Detached);
}

} // namespace asyncshift
