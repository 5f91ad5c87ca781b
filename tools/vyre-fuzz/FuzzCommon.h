//===- FuzzCommon.h - What every vyre fuzz target checks --------*- C++ -*-===//
//
// Runs one program through the passes and aborts, so that libFuzzer records
// the input, on any crash (the sanitizers see those), on a race that
// --vyre-verify-schedule finds in --overlap-copies' output, or on a pass
// failure without a diagnostic.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_TOOLS_FUZZ_FUZZCOMMON_H
#define VYRE_TOOLS_FUZZ_FUZZCOMMON_H

#include "llvm/ADT/StringRef.h"

namespace vyre_fuzz {

/// Parses `program`; if it is valid MLIR, runs --overlap-copies,
/// --vyre-verify-schedule on the functions that had copies, and
/// --convert-vyre-to-gpu. Aborts on a race or a failure without a diagnostic.
void checkProgram(llvm::StringRef program);

} // namespace vyre_fuzz

#endif // VYRE_TOOLS_FUZZ_FUZZCOMMON_H
