// Small helpers to build continuation IR by hand in unit tests.
#pragma once

#include "IR.h"

#include <memory>
#include <string>

namespace irtest {

using namespace asyncshift;

inline Text text(const std::string &S) { return Text{S, {}}; }

/// `S` with every occurrence of each variable's name referencing it.
inline Text textWith(AsyncFunction &F, const std::string &S) {
  Text T{S, {}};
  for (std::size_t Pos = 0; Pos < S.size(); ++Pos)
    for (VarId V = 0; V < F.Vars.size(); ++V) {
      const std::string &N = F.Vars[V].Name;
      if (S.compare(Pos, N.size(), N) == 0 && (Pos == 0 || !isalnum(static_cast<unsigned char>(S[Pos - 1]))) &&
          (Pos + N.size() == S.size() || !isalnum(static_cast<unsigned char>(S[Pos + N.size()])))) {
        T.Refs.push_back({static_cast<unsigned>(Pos), static_cast<unsigned>(N.size()), V});
        Pos += N.size() - 1;
        break;
      }
    }
  return T;
}

inline VarId var(AsyncFunction &F, const std::string &Name, bool IsError = false) {
  F.Vars.push_back(Var{Name, "", IsError});
  return static_cast<VarId>(F.Vars.size() - 1);
}

inline NodePtr sync(AsyncFunction &F, const std::string &S) {
  auto N = std::make_unique<SyncNode>();
  N->Code = textWith(F, S);
  return N;
}

inline NodePtr complete(VarId Err, bool IsReturn = true) {
  auto N = std::make_unique<CompleteNode>();
  N->Err.Present = true;
  N->Err.Var = Err;
  N->IsReturn = IsReturn;
  return N;
}

inline NodePtr success(bool IsReturn = false) {
  auto N = std::make_unique<CompleteNode>();
  N->Err.Present = true;
  N->Err.IsSuccess = true;
  N->IsReturn = IsReturn;
  return N;
}

inline std::unique_ptr<IfNode> ifError(VarId Err, bool Negated = false) {
  auto N = std::make_unique<IfNode>();
  N->Test.Err = Err;
  N->Test.Negated = Negated;
  N->Cond = text(Negated ? "!err" : "err");
  return N;
}

inline std::unique_ptr<AsyncCallNode> call(const std::string &Callee, VarId Err) {
  auto N = std::make_unique<AsyncCallNode>();
  N->Prefix = text(Callee + "(");
  N->Suffix = text(")");
  N->Cont.Err = Err;
  return N;
}

} // namespace irtest
