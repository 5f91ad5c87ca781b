// The program of referee-realloc-in-loop.mlir, with every copy moved, is
// race-free at the gpu level, where the referee tells allocation instances
// apart.
// RUN: vyre-opt %S/Inputs/realloc-in-loop.mlir --vyre-kernel-access --overlap-copies=cost-model=false --convert-vyre-to-gpu --canonicalize --cse --vyre-verify-gpu-streams -o /dev/null
