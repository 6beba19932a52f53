//===- IRDump.cpp - Printing the IR as a tree (for --dump-ir) -------------===//

#include "IR.h"

namespace asyncshift {
namespace {

class Dumper {
public:
  explicit Dumper(const AsyncFunction &F) : F(F) {}

  std::string run() {
    Out += "async function " + F.Name + " -> callback<" + F.ResultType + ">, handler " + name(F.Handler) + "\n";
    block(F.Body, 1);
    return Out;
  }

private:
  std::string name(VarId V) const { return V == NoVar ? "_" : F.Vars[V].Name; }
  std::string text(const Text &T) const {
    std::string S = T.Source;
    for (char &C : S)
      if (C == '\n')
        C = ' ';
    return S;
  }
  std::string err(const ErrorArg &A) const {
    if (A.IsSuccess)
      return "success";
    if (A.Var != NoVar)
      return "var " + name(A.Var);
    return (A.IsFailure ? "failure " : "expr ") + text(A.Expr);
  }
  void line(unsigned Depth, const std::string &S) { Out += std::string(Depth * 2, ' ') + S + "\n"; }
  void cont(const Continuation &C, unsigned Depth) {
    line(Depth, "continuation (err " + name(C.Err) + (C.HasValueParam ? ", value " + name(C.Value) : "") + ")");
    block(C.Body, Depth + 1);
  }
  void block(const Block &B, unsigned Depth) {
    for (const NodePtr &P : B) {
      const Node &N = *P;
      switch (N.Kind) {
      case NodeKind::Sync:
        line(Depth, "sync: " + text(static_cast<const SyncNode &>(N).Code));
        break;
      case NodeKind::AsyncCall: {
        const auto &A = static_cast<const AsyncCallNode &>(N);
        std::string Head = std::string(A.IsReturn ? "return " : "") + "async " +
                           (A.CalleeConverted ? "converted " : "leaf ") + text(A.Prefix) + "<handler>" +
                           text(A.Suffix) + " -> callback<" + A.ValueType + ">";
        line(Depth, Head + (A.Handler == AsyncCallNode::HandlerKind::Forward ? " forwards the handler" : ""));
        if (A.Comb) {
          std::string Captured;
          for (VarId V : A.Comb->Captured)
            Captured += (Captured.empty() ? "" : ", ") + name(V);
          line(Depth + 1, std::string(A.Comb->K == Combinator::Kind::Parallel ? "parallel" : "each_series") +
                              " over " + text(A.Comb->Count) + " (index " + name(A.Comb->Index) + ", handler " +
                              name(A.Comb->Handler) + " -> callback<" + A.Comb->ItemType + ">, captures " +
                              Captured + ")");
          block(A.Comb->Body, Depth + 2);
        }
        if (A.Handler != AsyncCallNode::HandlerKind::Forward)
          cont(A.Cont, Depth + 1);
        break;
      }
      case NodeKind::If: {
        const auto &I = static_cast<const IfNode &>(N);
        std::string Test = I.Test.Err == NoVar ? "" : std::string(" [error test") + (I.Test.Negated ? ", negated" : "") + "]";
        if (I.Endless)
          Test += " [endless]";
        line(Depth, (I.Kept == IfNode::KeptStatement::None ? "if " : "kept ") + text(I.Cond) + Test);
        block(I.Then, Depth + 1);
        if (!I.Tail.empty())
          line(Depth, "tail " + text(I.Tail));
        if (I.HasElse) {
          line(Depth, "else");
          block(I.Else, Depth + 1);
        }
        break;
      }
      case NodeKind::Complete: {
        const auto &C = static_cast<const CompleteNode &>(N);
        line(Depth, std::string(C.IsReturn ? "return " : "") + "complete (" + err(C.Err) +
                        (C.HasValue ? ", " + text(C.Value) : "") + ")");
        break;
      }
      case NodeKind::Jump: {
        const auto &J = static_cast<const JumpNode &>(N);
        line(Depth, std::string(J.IsReturn ? "return " : "") + "jump " + name(F.Conts[J.Target]->Name) + " (" +
                        err(J.Err) + (J.HasValue ? ", " + text(J.Value) : "") + ")");
        break;
      }
      case NodeKind::ContDef: {
        const auto &D = static_cast<const ContDefNode &>(N);
        line(Depth, "named continuation " + name(D.Name));
        cont(D.Cont, Depth + 1);
        break;
      }
      case NodeKind::Return:
        line(Depth, "return");
        break;
      case NodeKind::Loop: {
        const auto &L = static_cast<const LoopNode &>(N);
        std::string Params;
        for (std::size_t I = 0; I < L.Params.size(); ++I)
          Params += (I ? ", " : "") + L.ParamTypes[I] + " " + name(L.Params[I]) + " = " + text(L.Init[I]);
        line(Depth, std::string(L.IsReturn ? "return " : "") + "loop " + name(L.Name) + " (" + Params + ")");
        block(L.Body, Depth + 1);
        break;
      }
      case NodeKind::Recur: {
        const auto &R = static_cast<const RecurNode &>(N);
        std::string Args;
        for (std::size_t I = 0; I < R.Args.size(); ++I)
          Args += (I ? ", " : "") + text(R.Args[I]);
        line(Depth, std::string(R.IsReturn ? "return " : "") + "next iteration (" + Args + ")");
        break;
      }
      }
    }
  }

  const AsyncFunction &F;
  std::string Out;
};

} // namespace

std::string dumpIR(const AsyncFunction &F) { return Dumper(F).run(); }

} // namespace asyncshift
