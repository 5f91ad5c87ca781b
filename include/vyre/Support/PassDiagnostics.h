//===- PassDiagnostics.h - Errors passes report about options and limits -===//
//
// An error about a pass option, a file a pass writes, or a limit a whole
// function or module runs into is about no op in particular. Reported with
// `op->emitOpError`, it would print the whole function or module after it
// (`--mlir-print-op-on-diagnostic`, on by default): tens of lines in generic
// form for one wrong number. These report at the op's location only.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_SUPPORT_PASSDIAGNOSTICS_H
#define VYRE_SUPPORT_PASSDIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"

#include <cstdint>
#include <initializer_list>
#include <utility>

namespace mlir::vyre {

/// An error at `op`'s location, worded as `op->emitOpError` words it
/// ("'func.func' op ..."), that does not print the op.
InFlightDiagnostic emitErrorAt(Operation *op);

/// "cannot run --PASS with OPTION=VALUE: it must be REQUIREMENT", at `loc`.
InFlightDiagnostic emitOptionError(Location loc, StringRef pass,
                                   StringRef option, StringRef value,
                                   StringRef requirement);

/// Checks the pass option `option` of `pass`, a number of microseconds or of
/// GB/s: it must be finite and 0 or more, or above 0 where `positive`. NaN
/// and infinities are refused. Reports at `loc` (emitOptionError).
LogicalResult checkNumberOption(Location loc, StringRef pass,
                                StringRef option, double value,
                                bool positive = false);

/// `checkNumberOption` for each (option, value) of `times` (0 or more) and
/// of `rates` (above 0); stops at the first error.
LogicalResult
checkNumberOptions(Location loc, StringRef pass,
                   std::initializer_list<std::pair<StringRef, double>> times,
                   std::initializer_list<std::pair<StringRef, double>> rates);

/// The figures of the runtime's cost model that --overlap-copies and
/// --vyre-choose-versions read, under the same option names.
struct RuntimeCostOptions {
  double h2dGBps, d2hGBps, copyLatencyUs, defaultKernelUs, launchUs, eventUs,
      hostSyncUs, streamCreateUs;
};

/// `checkNumberOptions` for each of `options`: the bandwidths above 0, the
/// times 0 or more.
LogicalResult checkRuntimeCostOptions(Location loc, StringRef pass,
                                      const RuntimeCostOptions &options);

/// Checks a count option: at least `least`, with `why` saying what needs it
/// (emitOptionError's requirement is "at least LEAST: WHY").
LogicalResult checkCountOption(Location loc, StringRef pass, StringRef option,
                               uint64_t value, uint64_t least, StringRef why);

} // namespace mlir::vyre

#endif // VYRE_SUPPORT_PASSDIAGNOSTICS_H
