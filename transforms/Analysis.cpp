//===- Analysis.cpp - Analyses over the continuation IR -------------------===//

#include "Analysis.h"

#include <algorithm>
#include <map>
#include <set>

#include <cassert>

namespace asyncshift {

std::vector<const Node *> nodesOf(const Block &B) {
  std::vector<const Node *> Out;
  Out.reserve(B.size());
  for (const NodePtr &N : B)
    Out.push_back(N.get());
  return Out;
}

// ---- References ----------------------------------------------------------------

static bool references(const ErrorArg &A, VarId V) { return A.Var == V || A.Expr.references(V); }

static bool references(const Continuation &C, VarId V) { return references(C.Body, V); }

bool references(const Node &N, VarId V) {
  switch (N.Kind) {
  case NodeKind::Sync:
    return static_cast<const SyncNode &>(N).Code.references(V);
  case NodeKind::AsyncCall: {
    const auto &A = static_cast<const AsyncCallNode &>(N);
    if (A.Comb && (references(A.Comb->Body, V) ||
                   std::find(A.Comb->Captured.begin(), A.Comb->Captured.end(), V) != A.Comb->Captured.end()))
      return true; // a parallel / each_series body (also the counter idiom's) reads it
    return A.Prefix.references(V) || A.Suffix.references(V) || references(A.Cont, V);
  }
  case NodeKind::If: {
    const auto &I = static_cast<const IfNode &>(N);
    return I.Test.Err == V || I.Cond.references(V) || I.Tail.references(V) || references(I.Then, V) ||
           references(I.Else, V);
  }
  case NodeKind::Complete: {
    const auto &C = static_cast<const CompleteNode &>(N);
    return references(C.Err, V) || C.Value.references(V);
  }
  case NodeKind::Jump: {
    const auto &J = static_cast<const JumpNode &>(N);
    return references(J.Err, V) || J.Value.references(V);
  }
  case NodeKind::ContDef:
    return references(static_cast<const ContDefNode &>(N).Cont, V);
  case NodeKind::Return:
    return false;
  case NodeKind::Loop: {
    const auto &L = static_cast<const LoopNode &>(N);
    for (const Text &T : L.Init)
      if (T.references(V))
        return true;
    return references(L.Body, V);
  }
  case NodeKind::Recur:
    for (const Text &T : static_cast<const RecurNode &>(N).Args)
      if (T.references(V))
        return true;
    return false;
  }
  return false;
}

bool references(const Block &B, VarId V) {
  for (const NodePtr &N : B)
    if (references(*N, V))
      return true;
  return false;
}

// ---- Completion paths ----------------------------------------------------------

namespace {

/// Which kinds of path reach a point: paths on which nothing has completed
/// yet, and paths on which something already took over (a completion, a jump,
/// an async call), with the node that did.
struct Flow {
  bool Open = false;
  const Node *Done = nullptr;
  bool reachable() const { return Open || Done; }
};

Finding makeFinding(const char *Id, Loc Where, std::string Message) {
  Finding F;
  F.Id = Id;
  F.Where = Where;
  F.Message = std::move(Message);
  return F;
}

class PathChecker {
public:
  PathChecker(const AsyncFunction &F, std::vector<Finding> &Out) : F(F), Out(Out) {}

  void checkBody(const Block &B, Loc Where, const char *What) {
    Flow In;
    In.Open = true;
    Flow End = walk(B, In);
    if (End.Open)
      Out.push_back(makeFinding(ids::NotCalled, Where,
                                std::string(What) + " can finish without calling, forwarding or passing on its handler"));
  }

private:
  Flow walk(const Block &B, Flow Cur) {
    for (const NodePtr &P : B) {
      const Node &N = *P;
      if (!Cur.reachable())
        break; // dead code after a return: nothing runs
      switch (N.Kind) {
      case NodeKind::Sync:
        if (Cur.Done)
          report(afterDone(Cur.Done), N.Where, Cur.Done);
        break;
      case NodeKind::ContDef: {
        const auto &D = static_cast<const ContDefNode &>(N);
        checkBody(D.Cont.Body, D.Where, ("named continuation '" + F.Vars[D.Name].Name + "'").c_str());
        break;
      }
      case NodeKind::Return:
        if (Cur.Open)
          Out.push_back(makeFinding(ids::NotCalled, N.Where,
                                    "this path returns without calling, forwarding or passing on the handler"));
        Cur = Flow{};
        break;
      case NodeKind::Loop:
        checkBody(static_cast<const LoopNode &>(N).Body, N.Where, "this loop's body");
        [[fallthrough]];
      case NodeKind::Recur: {
        if (Cur.Done) {
          Finding Fd = makeFinding(ids::CalledTwice, N.Where, "handler may be called twice on this path");
          Fd.Notes.push_back({Cur.Done->Where, "handler already called here"});
          Out.push_back(std::move(Fd));
        }
        bool Returns = N.Kind == NodeKind::Loop ? static_cast<const LoopNode &>(N).IsReturn
                                                : static_cast<const RecurNode &>(N).IsReturn;
        if (Returns) {
          Cur = Flow{};
        } else {
          Cur.Open = false;
          Cur.Done = &N;
        }
        break;
      }
      case NodeKind::AsyncCall: {
        const auto &A = static_cast<const AsyncCallNode &>(N);
        if (A.Comb)
          checkBody(A.Comb->Body, A.Comb->Where,
                    A.Comb->K == Combinator::Kind::Parallel ? "this branch" : "this step");
        if (A.Handler == AsyncCallNode::HandlerKind::Continuation)
          checkBody(A.Cont.Body, A.Where, "this continuation");
        [[fallthrough]];
      }
      case NodeKind::Complete:
      case NodeKind::Jump: {
        if (Cur.Done) {
          bool Earlier = Cur.Done->Kind == NodeKind::AsyncCall;
          Finding Fd = makeFinding(
              Earlier && N.Kind == NodeKind::AsyncCall ? ids::AsyncNotInTail : ids::CalledTwice, N.Where,
              N.Kind == NodeKind::Complete ? "handler may be called twice on this path"
                                           : "handler may be called twice on this path (this call passes it on again)");
          Fd.Notes.push_back({Cur.Done->Where, Earlier ? "an async call already took over the path here"
                                                         : "handler already called here"});
          Out.push_back(std::move(Fd));
        }
        bool Returns = N.Kind == NodeKind::Complete ? static_cast<const CompleteNode &>(N).IsReturn
                       : N.Kind == NodeKind::Jump   ? static_cast<const JumpNode &>(N).IsReturn
                                                    : static_cast<const AsyncCallNode &>(N).IsReturn;
        if (Returns)
          Cur = Flow{};
        else {
          Cur.Open = false;
          Cur.Done = &N;
        }
        break;
      }
      case NodeKind::If: {
        const auto &I = static_cast<const IfNode &>(N);
        Flow T = walk(I.Then, Cur);
        if (I.Endless) { // left only by the body's completions, which return
          Cur = Flow{};
          break;
        }
        Flow E = I.HasElse ? walk(I.Else, Cur) : Cur;
        Flow Merged;
        Merged.Open = T.Open || E.Open;
        Merged.Done = T.Done ? T.Done : E.Done;
        Cur = Merged;
        break;
      }
      }
    }
    return Cur;
  }

  static const char *afterDone(const Node *Done) {
    return Done->Kind == NodeKind::AsyncCall ? ids::AsyncNotInTail : ids::CompletionNotInTail;
  }

  void report(const char *Id, Loc Where, const Node *Done) {
    Finding Fd;
    Fd.Id = Id;
    Fd.Where = Where;
    if (Done->Kind == NodeKind::AsyncCall) {
      Fd.Message = "statement runs after an async call started and before its continuation; cannot convert";
      Fd.Notes.push_back({Done->Where, "the async call"});
    } else {
      Fd.Message = "statement runs after the handler was called; cannot convert";
      Fd.Notes.push_back({Done->Where, "handler called here"});
    }
    Out.push_back(std::move(Fd));
  }

  const AsyncFunction &F;
  std::vector<Finding> &Out;
};

} // namespace

void checkCompletionPaths(const AsyncFunction &F, std::vector<Finding> &Out) {
  PathChecker C(F, Out);
  C.checkBody(F.Body, F.Where, ("async function '" + F.Name + "'").c_str());
}

// ---- Values read with an error ---------------------------------------------------

static bool endsPath(const Block &B);

namespace {

class ValueWithErrorReads {
public:
  ValueWithErrorReads(const AsyncFunction &F, std::vector<Finding> &Out) : F(F), Out(Out) {}

  /// \p Failing: the error variables known to hold a failure here.
  void walk(const Block &B, const std::set<VarId> &Failing) {
    std::set<VarId> Here = Failing;
    for (const NodePtr &N : B) {
      walk(*N, Here);
      // `if (!err) return ...;`: what follows runs only with err set.
      if (const auto *I = dyn<IfNode>(N.get()); I && I->Test.Err != NoVar && I->Test.Negated && endsPath(I->Then))
        Here.insert(I->Test.Err);
    }
  }

private:
  void walk(const Node &N, const std::set<VarId> &Failing) {
    switch (N.Kind) {
    case NodeKind::If: {
      const auto &I = static_cast<const IfNode &>(N);
      if (reads(I.Cond, Failing, N) || reads(I.Tail, Failing, N))
        return;
      std::set<VarId> Then = Failing, Else = Failing;
      if (I.Test.Err != NoVar)
        (I.Test.Negated ? Else : Then).insert(I.Test.Err);
      walk(I.Then, Then);
      walk(I.Else, Else);
      return;
    }
    case NodeKind::AsyncCall: {
      const auto &A = static_cast<const AsyncCallNode &>(N);
      if (reads(A.Prefix, Failing, N) || reads(A.Suffix, Failing, N))
        return;
      if (A.Comb)
        walk(A.Comb->Body, Failing);
      if (!A.CalleeConverted && A.Cont.Err != NoVar && A.Cont.Value != NoVar)
        ValueOf[A.Cont.Err] = A.Cont.Value;
      walk(A.Cont.Body, Failing);
      return;
    }
    case NodeKind::ContDef:
      walk(static_cast<const ContDefNode &>(N).Cont.Body, Failing);
      return;
    case NodeKind::Loop:
      walk(static_cast<const LoopNode &>(N).Body, Failing);
      return;
    default:
      for (VarId E : Failing)
        if (auto It = ValueOf.find(E); It != ValueOf.end() && references(N, It->second) && !forwards(N, E, It->second))
          return report(It->second, E, N);
      return;
    }
  }

  /// `done(err, v)` or `next(err, v)`: the value passed on with its own error,
  /// as the callback convention's default one (IRBuilder's isForwardedValue).
  static bool forwards(const Node &N, VarId E, VarId V) {
    auto Just = [V](const Text &T) {
      return T.Refs.size() == 1 && T.Refs[0].Var == V && T.Refs[0].Offset == 0 && T.Refs[0].Length == T.Source.size();
    };
    if (const auto *C = dyn<CompleteNode>(&N))
      return C->Err.Var == E && Just(C->Value);
    if (const auto *J = dyn<JumpNode>(&N))
      return J->Err.Var == E && Just(J->Value);
    return false;
  }

  bool reads(const Text &T, const std::set<VarId> &Failing, const Node &At) {
    for (VarId E : Failing)
      if (auto It = ValueOf.find(E); It != ValueOf.end() && T.references(It->second)) {
        report(It->second, E, At);
        return true;
      }
    return false;
  }

  void report(VarId V, VarId E, const Node &At) {
    Finding Fd;
    Fd.Id = ids::ValueReadWithError;
    Fd.Where = At.Where;
    Fd.IsWarning = true;
    Fd.Message = "'" + F.Vars[V].Name + "' is read here where '" + F.Vars[E].Name +
                 "' is set: converted, it holds a default value here (a failing operation passes its error "
                 "alone, `cb(err)`); a value this operation passes with its error is lost, since a rejected "
                 "promise, a failed future, an exception and a settled result carry only the error";
    Out.push_back(std::move(Fd));
  }

  const AsyncFunction &F;
  std::vector<Finding> &Out;
  /// A leaf operation's error variable, and the value that came with it.
  std::map<VarId, VarId> ValueOf;
};

} // namespace

void checkValuesReadWithError(const AsyncFunction &F, std::vector<Finding> &Out) {
  ValueWithErrorReads(F, Out).walk(F.Body, {});
}

// ---- Joins -------------------------------------------------------------------------

unsigned countJumps(const Node &N, unsigned Target) {
  switch (N.Kind) {
  case NodeKind::Jump:
    return static_cast<const JumpNode &>(N).Target == Target ? 1 : 0;
  case NodeKind::AsyncCall: {
    const auto &A = static_cast<const AsyncCallNode &>(N);
    return countJumps(A.Cont.Body, Target) + (A.Comb ? countJumps(A.Comb->Body, Target) : 0);
  }
  case NodeKind::If: {
    const auto &I = static_cast<const IfNode &>(N);
    return countJumps(I.Then, Target) + countJumps(I.Else, Target);
  }
  case NodeKind::ContDef:
    return countJumps(static_cast<const ContDefNode &>(N).Cont.Body, Target);
  case NodeKind::Loop:
    return countJumps(static_cast<const LoopNode &>(N).Body, Target);
  default:
    return 0;
  }
}

unsigned countJumps(const Block &B, unsigned Target) {
  unsigned N = 0;
  for (const NodePtr &P : B)
    N += countJumps(*P, Target);
  return N;
}

bool joinsAfter(const IfNode &I, unsigned Target, std::size_t Sites) {
  return countJumps(I, Target) == Sites && countJumps(I.Then, Target) < Sites && countJumps(I.Else, Target) < Sites;
}

/// Does a node of \p B, from its \p From-th on, jump to a named continuation?
static bool containsJump(const Block &B, std::size_t From = 0) {
  for (std::size_t K = From; K < B.size(); ++K) {
    const NodePtr &P = B[K];
    switch (P->Kind) {
    case NodeKind::Jump:
      return true;
    case NodeKind::AsyncCall:
      if (containsJump(static_cast<const AsyncCallNode &>(*P).Cont.Body))
        return true;
      break;
    case NodeKind::If: {
      const auto &I = static_cast<const IfNode &>(*P);
      if (containsJump(I.Then) || containsJump(I.Else))
        return true;
      break;
    }
    default:
      break;
    }
  }
  return false;
}

/// True if control never falls off the end of \p B.
static bool endsPath(const Block &B) {
  if (B.empty())
    return false;
  const Node &Last = *B.back();
  switch (Last.Kind) {
  case NodeKind::Return:
    return true;
  case NodeKind::Complete:
    return static_cast<const CompleteNode &>(Last).IsReturn;
  case NodeKind::Jump:
    return static_cast<const JumpNode &>(Last).IsReturn;
  case NodeKind::AsyncCall:
    return static_cast<const AsyncCallNode &>(Last).IsReturn;
  case NodeKind::Loop:
    return static_cast<const LoopNode &>(Last).IsReturn;
  case NodeKind::Recur:
    return static_cast<const RecurNode &>(Last).IsReturn;
  case NodeKind::If: {
    const auto &I = static_cast<const IfNode &>(Last);
    return I.Endless || (I.HasElse && endsPath(I.Then) && endsPath(I.Else));
  }
  default:
    return false;
  }
}

static void normalizeBlock(Block &B) {
  for (std::size_t I = 0; I < B.size(); ++I) {
    Node *N = B[I].get();
    if (auto *If = dyn<IfNode>(N)) {
      // `if (c) { ...; return; } rest` is `if (c) {...} else { rest }` when a
      // join is involved on either side: a join after the rest must not
      // also receive the early return's path (chain styles continue it). Not
      // a kept statement: a `catch` or a loop body that returns is no arm
      // of a choice (the try block, the loop, goes on to the rest).
      if (!If->HasElse && If->Kept == IfNode::KeptStatement::None && I + 1 < B.size() && endsPath(If->Then) &&
          (containsJump(If->Then) || containsJump(B, I + 1))) {
        for (std::size_t J = I + 1; J < B.size(); ++J)
          If->Else.push_back(std::move(B[J]));
        B.resize(I + 1);
        If->HasElse = true;
      }
      normalizeBlock(If->Then);
      normalizeBlock(If->Else);
    } else if (auto *A = dyn<AsyncCallNode>(N)) {
      normalizeBlock(A->Cont.Body);
      if (A->Comb)
        normalizeBlock(A->Comb->Body);
    } else if (auto *D = dyn<ContDefNode>(N)) {
      normalizeBlock(D->Cont.Body);
    } else if (auto *L = dyn<LoopNode>(N)) {
      normalizeBlock(L->Body);
    }
  }
}

void normalizeJoins(AsyncFunction &F) { normalizeBlock(F.Body); }

static void collectSites(const Block &B, const AsyncCallNode *Enclosing, std::map<unsigned, std::vector<JumpSite>> &Out) {
  for (const NodePtr &P : B) {
    switch (P->Kind) {
    case NodeKind::Jump: {
      const auto &J = static_cast<const JumpNode &>(*P);
      JumpSite S;
      S.Jump = &J;
      if (Enclosing && Enclosing->Cont.Body.size() == 1 && Enclosing->Cont.Body[0].get() == &J &&
          J.Err.Var != NoVar && J.Err.Var == Enclosing->Cont.Err)
        S.Forwarder = Enclosing;
      Out[J.Target].push_back(S);
      break;
    }
    case NodeKind::AsyncCall: {
      const auto &A = static_cast<const AsyncCallNode &>(*P);
      collectSites(A.Cont.Body, &A, Out);
      if (A.Comb) // a parallel / each_series branch may define and join its own
        collectSites(A.Comb->Body, nullptr, Out);
      // `if (err) { cleanup; return next(err, ...); }` leading the continuation.
      if (A.Cont.Err != NoVar && !A.Cont.Body.empty())
        if (const auto *If = dyn<IfNode>(A.Cont.Body.front().get());
            If && If->Test.Err == A.Cont.Err && !If->Test.Negated && !If->Then.empty())
          if (const auto *J = dyn<JumpNode>(If->Then.back().get()); J && J->Err.Var == A.Cont.Err) {
            bool Plain = true;
            for (std::size_t I = 0; I + 1 < If->Then.size(); ++I) {
              const auto *S = dyn<SyncNode>(If->Then[I].get());
              Plain &= S && !S->Code.references(A.Cont.Err);
            }
            for (std::size_t I = 1; I < A.Cont.Body.size(); ++I)
              Plain &= !references(*A.Cont.Body[I], A.Cont.Err);
            Plain &= !references(If->Else, A.Cont.Err);
            if (Plain)
              for (JumpSite &Site : Out[J->Target])
                if (Site.Jump == J)
                  Site.CheckedBy = &A;
          }
      break;
    }
    case NodeKind::If: {
      const auto &I = static_cast<const IfNode &>(*P);
      collectSites(I.Then, nullptr, Out);
      collectSites(I.Else, nullptr, Out);
      break;
    }
    case NodeKind::ContDef:
      collectSites(static_cast<const ContDefNode &>(*P).Cont.Body, nullptr, Out);
      break;
    case NodeKind::Loop:
      collectSites(static_cast<const LoopNode &>(*P).Body, nullptr, Out);
      break;
    default:
      break;
    }
  }
}

std::map<unsigned, std::vector<JumpSite>> collectJumpSites(const AsyncFunction &F) {
  std::map<unsigned, std::vector<JumpSite>> Out;
  collectSites(F.Body, nullptr, Out);
  return Out;
}

JoinPlan planJoins(const AsyncFunction &F, bool ErrorsAsValues) {
  JoinPlan Plan;
  auto Sites = collectJumpSites(F);
  for (const ContDefNode *J : F.Conts) {
    JoinPlan::Join &S = Plan.Joins[J->Id];
    S.Leading = classifyErrorHandling(J->Cont);
    S.Sites = Sites[J->Id];
    if (J->Cont.Err == NoVar || S.Leading.K == ErrorHandling::Kind::Ignored) {
      // The error is never read: forwarding calls settle and drop it.
      for (const JumpSite &Site : S.Sites)
        if (Site.Forwarder)
          Plan.Forwarders[Site.Forwarder] = J->Id;
      continue;
    }
    // A cleanup that reads the continuation's value cannot run at the calls
    // that reach it with an error (as their on_error, tap_error or catch):
    // the value is the jump's argument (`next(err, 5)`), or the failed call's
    // default-made one, and exists only in the continuation. The error stays
    // a value, and the continuation's own check runs the cleanup.
    if (J->Cont.Value != NoVar)
      for (const SyncNode *C : S.Leading.Cleanup)
        S.CleanupReadsValue |= C->Code.references(J->Cont.Value);
    if (ErrorsAsValues || S.Leading.K != ErrorHandling::Kind::Propagate || S.CleanupReadsValue) {
      S.ErrorAsValue = true;
      continue;
    }
    std::vector<const AsyncCallNode *> Inherit, Checks;
    for (const JumpSite &Site : S.Sites) {
      if (Site.Jump->Err.IsSuccess)
        continue;
      if (Site.Forwarder) {
        Inherit.push_back(Site.Forwarder);
        continue;
      }
      if (Site.CheckedBy) {
        Checks.push_back(Site.CheckedBy);
        continue;
      }
      S.ErrorAsValue = true;
      if (!S.OwnErrorSite)
        S.OwnErrorSite = Site.Jump;
    }
    if (!S.ErrorAsValue) {
      for (const AsyncCallNode *A : Inherit)
        Plan.Forwarders[A] = J->Id;
      for (const AsyncCallNode *A : Checks)
        Plan.CheckJumps[A] = J->Id;
    }
  }
  return Plan;
}

ErrorHandling errorHandlingOf(const AsyncCallNode &A, const JoinPlan &Plan, bool ErrorsAsValues) {
  ErrorHandling H;
  H.Rest = nodesOf(A.Cont.Body);
  if (auto It = Plan.Forwarders.find(&A); It != Plan.Forwarders.end()) {
    const JoinPlan::Join &J = Plan.Joins.at(It->second);
    if (J.Leading.K == ErrorHandling::Kind::Propagate && !ErrorsAsValues) {
      H.K = ErrorHandling::Kind::Propagate;
      H.Cleanup = J.Leading.Cleanup;
    } else {
      H.K = ErrorHandling::Kind::Ignored;
    }
    return H;
  }
  if (auto It = Plan.CheckJumps.find(&A); It != Plan.CheckJumps.end() && !ErrorsAsValues) {
    const auto &Check = static_cast<const IfNode &>(*A.Cont.Body.front());
    for (std::size_t I = 0; I + 1 < Check.Then.size(); ++I)
      H.Cleanup.push_back(static_cast<const SyncNode *>(Check.Then[I].get()));
    for (const SyncNode *S : Plan.Joins.at(It->second).Leading.Cleanup)
      H.Cleanup.push_back(S);
    H.K = ErrorHandling::Kind::Propagate;
    // Success: the check's else branch (if joins were made structured), then the rest.
    H.Rest = nodesOf(Check.Else);
    for (std::size_t I = 1; I < A.Cont.Body.size(); ++I)
      H.Rest.push_back(A.Cont.Body[I].get());
    return H;
  }
  H = classifyErrorHandling(A.Cont);
  if (ErrorsAsValues && H.K == ErrorHandling::Kind::Propagate) {
    H.K = ErrorHandling::Kind::Value;
    H.Cleanup.clear();
    H.Rest = nodesOf(A.Cont.Body);
  }
  return H;
}

// ---- Error handling ------------------------------------------------------------------

/// `[cleanup...;] return done(err);` with \p Err, and nothing else.
static bool isPropagation(const Block &B, VarId Err, std::vector<const SyncNode *> &Cleanup) {
  if (B.empty())
    return false;
  const auto *C = dyn<CompleteNode>(B.back().get());
  if (!C || C->HasValue || C->Err.Var != Err)
    return false;
  for (std::size_t I = 0; I + 1 < B.size(); ++I) {
    const auto *S = dyn<SyncNode>(B[I].get());
    if (!S || S->Code.references(Err))
      return false;
    Cleanup.push_back(S);
  }
  return true;
}

ErrorHandling classifyErrorHandling(const Continuation &C) {
  ErrorHandling H;
  H.Rest = nodesOf(C.Body);
  if (C.Err == NoVar || !references(C.Body, C.Err)) {
    H.K = ErrorHandling::Kind::Ignored;
    return H;
  }
  if (C.Body.empty())
    return H;
  const auto *If = dyn<IfNode>(C.Body.front().get());
  if (!If || If->Test.Err != C.Err)
    return H;
  std::vector<const SyncNode *> Cleanup;
  std::vector<const Node *> Rest;
  if (!If->Test.Negated) {
    // if (err) { cleanup; return done(err); } [else { success }] success...
    if (!isPropagation(If->Then, C.Err, Cleanup))
      return H;
    for (const NodePtr &N : If->Else)
      Rest.push_back(N.get());
  } else {
    // if (!err) { success } else { cleanup; return done(err); } success...
    if (!If->HasElse || !isPropagation(If->Else, C.Err, Cleanup))
      return H;
    for (const NodePtr &N : If->Then)
      Rest.push_back(N.get());
  }
  for (std::size_t I = 1; I < C.Body.size(); ++I)
    Rest.push_back(C.Body[I].get());
  for (const Node *N : Rest)
    if (references(*N, C.Err))
      return H;
  H.K = ErrorHandling::Kind::Propagate;
  H.Cleanup = std::move(Cleanup);
  H.Rest = std::move(Rest);
  const Node &Done = *(If->Test.Negated ? If->Else : If->Then).back();
  for (const std::string *Comment : {&Done.Comment, &Done.Trailing, &Done.After})
    if (!Comment->empty())
      H.Comments += (H.Comments.empty() ? "" : "\n") + *Comment;
  return H;
}

} // namespace asyncshift
