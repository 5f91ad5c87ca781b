//===- FuzzMLIR.cpp - Fuzz the passes with arbitrary bytes ------*- C++ -*-===//
//
// vyre-fuzz-mlir: each input is parsed as MLIR text (vyre, func, memref,
// arith, scf, gpu and more) and, if valid, run through the passes.
// Seed it with the lit inputs and generated programs (scripts/fuzz.sh).
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  vyre_fuzz::checkProgram(
      std::string(reinterpret_cast<const char *>(data), size));
  return 0;
}
