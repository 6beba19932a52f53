//===- Printer.cpp - The style registry and output naming -----------------===//

#include "Printer.h"

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
