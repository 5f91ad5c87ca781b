//===- Reporter.cpp - The problems --vyre-verify-gpu-streams reports ------===//

#include "Reporter.h"

#include "vyre/Support/PassDiagnostics.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::vyre::gpu_streams;

void Reporter::report(ProblemKind kind, Operation *at, Operation *noteAt,
                      unsigned detail, const Twine &message,
                      const Twine &note) {
  Held problem{kind, at, noteAt, detail, message.str(), note.str()};
  if (holding)
    held.push_back(std::move(problem));
  else
    emit(problem);
}

bool Reporter::holdsNewProblems() const {
  return llvm::any_of(held, [&](const Held &problem) {
    return !reported.count({static_cast<unsigned>(problem.kind), problem.at,
                            problem.noteAt, problem.detail});
  });
}

void Reporter::release() {
  holding = false;
  for (const Held &problem : held)
    emit(problem);
  held.clear();
}

void Reporter::discard() {
  holding = false;
  held.clear();
}

void Reporter::emit(const Held &problem) {
  found = true;
  if (!reported
           .insert({static_cast<unsigned>(problem.kind), problem.at,
                    problem.noteAt, problem.detail})
           .second)
    return;
  // At the op's location, without printing it: a race's message names both
  // ops, and every other one starts with the op it is about.
  InFlightDiagnostic diagnostic =
      problem.kind == ProblemKind::Race
          ? emitError(problem.at->getLoc(), problem.message)
          : vyre::emitErrorAt(problem.at) << problem.message;
  if (problem.noteAt)
    diagnostic.attachNote(problem.noteAt->getLoc()) << problem.note;
}
