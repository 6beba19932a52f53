//===- Findings.cpp - Reporting findings through Clang's diagnostics ------===//

#include "Findings.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceLocation.h"

using namespace clang;

namespace asyncshift {

void report(DiagnosticsEngine &Diags, const Finding &F) {
  const unsigned Main = Diags.getCustomDiagID(F.IsWarning ? DiagnosticsEngine::Warning : DiagnosticsEngine::Error, "%0");
  const unsigned Note = Diags.getCustomDiagID(DiagnosticsEngine::Note, "%0");
  {
    DiagnosticBuilder B = Diags.Report(SourceLocation::getFromRawEncoding(F.Where.Raw), Main);
    B << (F.Message + " [" + F.Id + "]");
    if (F.RangeBegin.Raw != 0)
      B << CharSourceRange::getTokenRange(SourceLocation::getFromRawEncoding(F.RangeBegin.Raw),
                                          SourceLocation::getFromRawEncoding(F.RangeEnd.Raw));
  }
  for (const FindingNote &N : F.Notes)
    Diags.Report(SourceLocation::getFromRawEncoding(N.Where.Raw), Note) << N.Message;
}

} // namespace asyncshift
