//===- Reporter.h - The problems --vyre-verify-gpu-streams reports --------===//

#ifndef VYRE_LIB_VERIFICATION_GPUSTREAMS_REPORTER_H
#define VYRE_LIB_VERIFICATION_GPUSTREAMS_REPORTER_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/Twine.h"

#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace mlir::vyre::gpu_streams {

enum class ProblemKind {
  Race,
  UseBeforeAlloc,
  UseAfterFree,
  Unfinished,
  StreamLeak,
  EventLeak,
  EventReused,
  StreamReused,
  StreamDestroyedTwice,
};

/// Emits the problems found in the traces of one function, each once.
class Reporter {
public:
  /// Reports once per kind and pair of ops, whichever trace finds it: an
  /// error at `at` with `message`, and `note` at `noteAt` when there is one.
  void report(ProblemKind kind, Operation *at, Operation *noteAt,
              unsigned detail, const Twine &message, const Twine &note);

  /// Whether anything was found, reported now or before.
  bool reportedAny() const { return found; }

  /// From now on, keeps what is reported until `release` emits it or
  /// `discard` drops it (a trace that may have to be built again).
  void hold() { holding = true; }
  /// Whether what is held holds a problem not reported before.
  bool holdsNewProblems() const;

  /// A problem held, not emitted yet.
  struct Held {
    ProblemKind kind;
    Operation *at, *noteAt;
    unsigned detail;
    std::string message, note;
  };
  /// Takes what is held away (holding goes on), and puts it back.
  std::vector<Held> takeHeld() { return std::exchange(held, {}); }
  void restoreHeld(std::vector<Held> problems) { held = std::move(problems); }
  void release();
  void discard();

private:
  void emit(const Held &problem);

  bool holding = false;
  std::vector<Held> held;

  /// What was reported, once each across traces.
  std::set<std::tuple<unsigned, Operation *, Operation *, unsigned>> reported;
  bool found = false;
};

} // namespace mlir::vyre::gpu_streams

#endif // VYRE_LIB_VERIFICATION_GPUSTREAMS_REPORTER_H
