// A known false alarm of --vyre-verify-schedule, kept to be fixed: a loop
// that allocates a buffer per iteration and frees the previous one through
// an iter_arg. With every copy moved (cost-model=false), the referee reports
// a race between the copy into the new buffer and the free of the old one:
// it numbers slots by allocation op, so both buffers are one slot to it.
// The gpu-level referee, which tells allocation instances apart, passes the
// lowered program (referee-realloc-in-loop-gpu.mlir).
// XFAIL: *
// RUN: vyre-opt %S/Inputs/realloc-in-loop.mlir --vyre-kernel-access --overlap-copies=cost-model=false --vyre-verify-schedule -o /dev/null
