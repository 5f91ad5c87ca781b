//===- TraceChoices.h - The combinations a function is unfolded along -----===//
//
// Part of --vyre-verify-gpu-streams: each trace takes one alternative of
// every choice it meets (an scf.if branch, an scf.index_switch case, whether
// a loop of unknown trip count runs); the traces of a function enumerate
// every combination, depth first.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_LIB_VERIFICATION_GPUSTREAMS_TRACECHOICES_H
#define VYRE_LIB_VERIFICATION_GPUSTREAMS_TRACECHOICES_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::vyre::gpu_streams {

/// The choices of the current trace, and the way to the next combination.
class TraceChoices {
public:
  /// Starts a trace: its choices are read again from the first.
  void startTrace() { cursor = 0; }

  /// Picks one of `arity` alternatives for the next choice of this trace.
  unsigned choose(unsigned arity) {
    if (cursor == choices.size()) {
      choices.push_back(0);
      arities.push_back(arity);
    }
    return choices[cursor++];
  }

  /// Moves to the next combination of choices; false when all were tried.
  bool nextTrace() {
    while (!choices.empty()) {
      if (choices.back() + 1 < arities.back()) {
        ++choices.back();
        return true;
      }
      choices.pop_back();
      arities.pop_back();
    }
    return false;
  }

private:
  SmallVector<unsigned> choices, arities;
  unsigned cursor = 0;
};

} // namespace mlir::vyre::gpu_streams

#endif // VYRE_LIB_VERIFICATION_GPUSTREAMS_TRACECHOICES_H
