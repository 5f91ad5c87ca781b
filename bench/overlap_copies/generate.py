#!/usr/bin/env python3
"""Generates a vyre function with N ops in a realistic mix of copies and
dispatches, for the --overlap-copies compile-time benchmark.

The program streams weights layer by layer through a pool of 64 device
buffers: each layer copies a weight buffer in (from one of 8 pinned host
arguments), runs 3 kernels (16 distinct kernels, reading the layer's weights
and the previous activation, writing the next), and every 16th layer copies a
result back. Buffers are reused round-robin, so copies meet write-after-read
hazards on older kernels as in real weight streaming.

With --gpu, the same program in the upstream gpu dialect, as a compiler that
targets it writes it before `--gpu-async-region`: `gpu.alloc`, synchronous
`gpu.memcpy` both ways, `gpu.launch_func` and the same op count and mix.

Usage: generate.py N [--gpu] > out.mlir
"""

import sys

POOL = 64
HOSTS = 8
KERNELS = 16


def main():
    target = int(sys.argv[1])
    gpu = "--gpu" in sys.argv[2:]
    out = sys.stdout
    w = out.write
    w("module attributes {gpu.container_module} {\n")
    w("  gpu.module @kernels {\n")
    for k in range(KERNELS):
        w(f"    gpu.func @k{k}(%w: memref<1024xf32>, %x: memref<1024xf32>, "
          f"%y: memref<1024xf32>) kernel {{\n")
        w("      %i = gpu.thread_id x\n")
        w("      %a = memref.load %w[%i] : memref<1024xf32>\n")
        w("      %b = memref.load %x[%i] : memref<1024xf32>\n")
        w("      %c = arith.addf %a, %b : f32\n")
        w("      memref.store %c, %y[%i] : memref<1024xf32>\n")
        w("      gpu.return\n    }\n")
    w("  }\n")
    args = ", ".join(f"%h{i}: memref<1024xf32> {{vyre.pinned, llvm.noalias}}"
                     for i in range(HOSTS))
    w(f"  func.func @stream({args}) {{\n")
    w("    %c1 = arith.constant 1 : index\n")
    w("    %c4 = arith.constant 4 : index\n")
    w("    %c256 = arith.constant 256 : index\n")
    ops = 3
    for b in range(POOL):
        if gpu:
            w(f"    %d{b} = gpu.alloc () : memref<1024xf32>\n")
        else:
            w(f"    %d{b} = vyre.alloc : memref<1024xf32>\n")
        ops += 1
    ty = "memref<1024xf32>"
    layer = 0
    while ops < target:
        weights = (3 * layer) % POOL
        act_in = (3 * layer + 1) % POOL
        act_out = (3 * layer + 2) % POOL
        host = layer % HOSTS
        if gpu:
            w(f"    gpu.memcpy %d{weights}, %h{host} : {ty}, {ty}\n")
        else:
            w(f"    vyre.copy_h2d %h{host} to %d{weights} : {ty} to {ty}\n")
        ops += 1
        for j in range(3):
            k = (layer * 3 + j) % KERNELS
            if gpu:
                w(f"    gpu.launch_func @kernels::@k{k} blocks in (%c4, %c1, "
                  f"%c1) threads in (%c256, %c1, %c1) args(%d{weights} : {ty}, "
                  f"%d{act_in} : {ty}, %d{act_out} : {ty})\n")
            else:
                w(f"    vyre.dispatch @kernels::@k{k} blocks(%c4, %c1, %c1) "
                  f"threads(%c256, %c1, %c1) args(%d{weights}, %d{act_in}, "
                  f"%d{act_out} : {ty}, {ty}, {ty})\n")
            ops += 1
        if layer % 16 == 15:
            if gpu:
                w(f"    gpu.memcpy %h{(host + 1) % HOSTS}, %d{act_out} : "
                  f"{ty}, {ty}\n")
            else:
                w(f"    vyre.copy_d2h %d{act_out} to %h{(host + 1) % HOSTS} : "
                  f"{ty} to {ty}\n")
            ops += 1
        layer += 1
    w("    return\n  }\n}\n")


if __name__ == "__main__":
    main()
