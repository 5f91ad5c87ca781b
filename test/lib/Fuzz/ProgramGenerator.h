//===- ProgramGenerator.h - Random vyre programs ----------------*- C++ -*-===//
//
// Writes random, verifier-valid vyre programs for the property test and the
// fuzzers: H2D and D2H copies, dispatches of kernels with varied read/write
// sets (one with many workgroup and private attributions), shared host
// buffers, buffer reuse, two views of one allocation, a buffer that is only
// copied into (dead copies), arguments with and without llvm.noalias, host
// loads and stores (also through a pointer taken from a buffer), opaque
// calls, host calls that fill a staging buffer a loop then copies in,
// programs without copies, and scf.for / scf.if nested three deep. One op
// per line, so that source order is program order.
//
// The same programs can be written as upstream gpu-dialect host code
// (gpu.alloc, gpu.memcpy, gpu.launch_func, gpu.dealloc, host buffers from
// memref.alloc, some registered with gpu.host_register), the input of
// --convert-gpu-host-to-vyre.
//
//===----------------------------------------------------------------------===//

#ifndef VYRE_TEST_FUZZ_PROGRAMGENERATOR_H
#define VYRE_TEST_FUZZ_PROGRAMGENERATOR_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <functional>
#include <string>

namespace mlir::vyre::test {

class ProgramGenerator {
public:
  /// Choices from a seeded pseudo-random sequence.
  explicit ProgramGenerator(uint64_t seed);
  /// Choices read from `bytes` (structure-aware fuzzing: mutating the bytes
  /// mutates the program's ops, operands, slots and regions). `bytes` must
  /// outlive the generator.
  explicit ProgramGenerator(llvm::ArrayRef<uint8_t> bytes);

  /// The dialect a program's host code is written in.
  enum class Form { Vyre, UpstreamGPU };

  std::string generate(Form form = Form::Vyre);

private:
  std::function<uint64_t()> draw;
};

} // namespace mlir::vyre::test

#endif // VYRE_TEST_FUZZ_PROGRAMGENERATOR_H
