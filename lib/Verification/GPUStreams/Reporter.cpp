//===- Reporter.cpp - The problems --vyre-verify-gpu-streams reports ------===//

#include "Reporter.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::vyre::gpu_streams;

void Reporter::report(ProblemKind kind, Operation *at, Operation *noteAt,
                      unsigned detail, const Twine &message,
                      const Twine &note) {
  found = true;
  if (!reported.insert({static_cast<unsigned>(kind), at, noteAt, detail})
           .second)
    return;
  InFlightDiagnostic diagnostic = at->emitError(message);
  if (noteAt)
    diagnostic.attachNote(noteAt->getLoc()) << note;
}
