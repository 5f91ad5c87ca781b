//===- PassDiagnostics.cpp - Errors passes report about options and limits ===//

#include "vyre/Support/PassDiagnostics.h"

#include "llvm/Support/Format.h"

#include <cmath>
#include <string>

using namespace mlir;

InFlightDiagnostic vyre::emitErrorAt(Operation *op) {
  InFlightDiagnostic diagnostic = emitError(op->getLoc());
  diagnostic << "'" << op->getName() << "' op ";
  return diagnostic;
}

InFlightDiagnostic vyre::emitOptionError(Location loc, StringRef pass,
                                         StringRef option, StringRef value,
                                         StringRef requirement) {
  InFlightDiagnostic diagnostic = emitError(loc);
  diagnostic << "cannot run --" << pass << " with " << option << "=" << value
             << ": it must be " << requirement;
  return diagnostic;
}

LogicalResult vyre::checkNumberOption(Location loc, StringRef pass,
                                      StringRef option, double value,
                                      bool positive) {
  if (std::isfinite(value) && value >= 0 && (!positive || value > 0))
    return success();
  std::string shown;
  llvm::raw_string_ostream os(shown);
  os << llvm::format("%g", value);
  return emitOptionError(loc, pass, option, shown,
                         positive ? "a finite number above 0"
                                  : "a finite number of 0 or more");
}

LogicalResult vyre::checkNumberOptions(
    Location loc, StringRef pass,
    std::initializer_list<std::pair<StringRef, double>> times,
    std::initializer_list<std::pair<StringRef, double>> rates) {
  for (auto [option, value] : times)
    if (failed(checkNumberOption(loc, pass, option, value)))
      return failure();
  for (auto [option, value] : rates)
    if (failed(checkNumberOption(loc, pass, option, value, /*positive=*/true)))
      return failure();
  return success();
}

LogicalResult
vyre::checkRuntimeCostOptions(Location loc, StringRef pass,
                              const RuntimeCostOptions &options) {
  return checkNumberOptions(loc, pass,
                            {{"copy-latency-us", options.copyLatencyUs},
                             {"default-kernel-us", options.defaultKernelUs},
                             {"launch-us", options.launchUs},
                             {"event-us", options.eventUs},
                             {"host-sync-us", options.hostSyncUs},
                             {"stream-create-us", options.streamCreateUs}},
                            {{"h2d-gbps", options.h2dGBps},
                             {"d2h-gbps", options.d2hGBps}});
}

LogicalResult vyre::checkCountOption(Location loc, StringRef pass,
                                     StringRef option, uint64_t value,
                                     uint64_t least, StringRef why) {
  if (value >= least)
    return success();
  return emitOptionError(loc, pass, option, std::to_string(value),
                         ("at least " + std::to_string(least) + ": " + why)
                             .str());
}
