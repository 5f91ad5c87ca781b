//===- FuzzStructured.cpp - Fuzz with mutated generated programs -*- C++ -*-===//
//
// vyre-fuzz-structured: each input's bytes are the choices of the random
// program generator (op kinds, operands, slots, regions), so libFuzzer's byte
// mutations are mutations of a valid program's structure and reach the
// passes' logic rather than the parser.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"
#include "ProgramGenerator.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::vyre::test::ProgramGenerator generator(
      llvm::ArrayRef<uint8_t>(data, size));
  vyre_fuzz::checkProgram(generator.generate());
  return 0;
}
