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

With --shape, a shape built to defeat windows and indexes instead (the same
op count, in either dialect):
  copies-first     every copy first, then every kernel (a parameter-loading
                   prologue): each copy's window spans the whole function;
  one-buffer       one buffer that every kernel reads, and that every 64th
                   copy writes;
  many-functions   functions of about 20 ops each;
  deep-nesting     loops nested up to 1,000 deep, a copy and kernels at each
                   level;
  host-slices      copies in from rows of one host array, and back into rows
                   of another;
  branchy-loop     one loop whose body holds a branch per buffer, each a copy
                   in and a kernel (--vyre-pipeline-loops issues every copy
                   ahead under its condition);
  many-loops       small loops one after another, each a copy in and a
                   kernel on a buffer of its own (--vyre-pipeline-loops
                   rewrites every one).

Usage: generate.py N [--gpu] [--shape NAME] > out.mlir
"""

import argparse
import sys

POOL = 64
HOSTS = 8
KERNELS = 16


class Writer:
    """Writes copies, kernels and allocations in vyre or the gpu dialect."""

    TY = "memref<1024xf32>"

    def __init__(self, out, gpu):
        self.w = out.write
        self.gpu = gpu
        self.ops = 0

    def alloc(self, name, indent):
        op = "gpu.alloc () :" if self.gpu else "vyre.alloc :"
        self.w(f"{indent}%{name} = {op} {self.TY}\n")
        self.ops += 1

    def h2d(self, host, dev, indent, host_ty=None):
        host_ty = host_ty or self.TY
        if self.gpu:
            self.w(f"{indent}gpu.memcpy %{dev}, %{host} : {self.TY}, {host_ty}\n")
        else:
            self.w(f"{indent}vyre.copy_h2d %{host} to %{dev} : {host_ty} to "
                   f"{self.TY}\n")
        self.ops += 1

    def d2h(self, dev, host, indent, host_ty=None):
        host_ty = host_ty or self.TY
        if self.gpu:
            self.w(f"{indent}gpu.memcpy %{host}, %{dev} : {host_ty}, {self.TY}\n")
        else:
            self.w(f"{indent}vyre.copy_d2h %{dev} to %{host} : {self.TY} to "
                   f"{host_ty}\n")
        self.ops += 1

    def kernel(self, k, args, indent):
        names = ", ".join(f"%{a}" for a in args)
        types = ", ".join(self.TY for _ in args)
        if self.gpu:
            pairs = ", ".join(f"%{a} : {self.TY}" for a in args)
            self.w(f"{indent}gpu.launch_func @kernels::@k{k} blocks in (%c4, "
                   f"%c1, %c1) threads in (%c256, %c1, %c1) args({pairs})\n")
        else:
            self.w(f"{indent}vyre.dispatch @kernels::@k{k} blocks(%c4, %c1, "
                   f"%c1) threads(%c256, %c1, %c1) args({names} : {types})\n")
        self.ops += 1

    def constants(self, indent):
        for value in (0, 1, 2, 4, 256):
            self.w(f"{indent}%c{value} = arith.constant {value} : index\n")
        self.ops += 5


def kernels_module(w):
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


def host_args(count):
    return ", ".join(f"%h{i}: memref<1024xf32> {{vyre.pinned, llvm.noalias}}"
                     for i in range(count))


def shape_copies_first(out, target, gpu):
    g = Writer(out, gpu)
    g.w(f"  func.func @prologue({host_args(HOSTS)}) {{\n")
    g.constants("    ")
    count = max(1, (target - 8) // 3)
    for b in range(count):
        g.alloc(f"d{b}", "    ")
    for b in range(count):
        g.h2d(f"h{b % HOSTS}", f"d{b}", "    ")
    for b in range(count):
        g.kernel(b % KERNELS, [f"d{b}", f"d{b}", f"d{(b + 1) % count}"], "    ")
    g.w("    return\n  }\n")


def shape_one_buffer(out, target, gpu):
    g = Writer(out, gpu)
    g.w(f"  func.func @shared({host_args(HOSTS)}) {{\n")
    g.constants("    ")
    g.alloc("shared", "    ")
    for b in range(POOL):
        g.alloc(f"d{b}", "    ")
    i = 0
    while g.ops < target:
        dev = "shared" if i % 64 == 63 else f"d{i % POOL}"
        g.h2d(f"h{i % HOSTS}", dev, "    ")
        g.kernel(i % KERNELS, ["shared", f"d{i % POOL}",
                               f"d{(i + 1) % POOL}"], "    ")
        i += 1
    g.w("    return\n  }\n")


def shape_many_functions(out, target, gpu):
    count = max(1, target // 20)
    for f in range(count):
        g = Writer(out, gpu)
        g.w(f"  func.func @f{f}({host_args(2)}) {{\n")
        g.constants("    ")
        for b in range(4):
            g.alloc(f"d{b}", "    ")
        for i in range(3):
            g.h2d(f"h{i % 2}", f"d{i}", "    ")
            g.kernel((f + i) % KERNELS, [f"d{i}", f"d{i + 1}", f"d{3}"],
                     "    ")
        g.d2h("d3", "h1", "    ")
        g.w("    return\n  }\n")


def shape_deep_nesting(out, target, gpu):
    g = Writer(out, gpu)
    depth = max(1, min(target // 10, 1000))
    per_level = max(1, (target // depth - 2) // 2)
    g.w(f"  func.func @nest({host_args(HOSTS)}) {{\n")
    g.constants("    ")
    for b in range(4):
        g.alloc(f"d{b}", "    ")
    for level in range(depth):
        indent = "    " + "  " * level
        for i in range(per_level):
            g.h2d(f"h{(level + i) % HOSTS}", f"d{i % 3}", indent)
            g.kernel((level + i) % KERNELS, [f"d{i % 3}", "d3", "d3"], indent)
        g.w(f"{indent}scf.for %i{level} = %c0 to %c2 step %c1 {{\n")
        g.ops += 1
    for level in reversed(range(depth)):
        g.w("    " + "  " * level + "}\n")
    g.w("    return\n  }\n")


def shape_host_slices(out, target, gpu):
    g = Writer(out, gpu)
    rows = max(1, (target - 80) // 5)
    big = f"memref<{rows}x1024xf32>"
    g.w(f"  func.func @slices(%in: {big} {{vyre.pinned, llvm.noalias}}, "
        f"%out: {big} {{vyre.pinned, llvm.noalias}}) {{\n")
    g.constants("    ")
    for b in range(POOL):
        g.alloc(f"d{b}", "    ")
    for r in range(rows):
        row = f"memref<1024xf32, strided<[1], offset: {r * 1024}>>"
        g.w(f"    %in{r} = memref.subview %in[{r}, 0] [1, 1024] [1, 1] : "
            f"{big} to {row}\n")
        g.w(f"    %out{r} = memref.subview %out[{r}, 0] [1, 1024] [1, 1] : "
            f"{big} to {row}\n")
        g.ops += 2
        a, b = f"d{(2 * r) % POOL}", f"d{(2 * r + 1) % POOL}"
        g.h2d(f"in{r}", a, "    ", row)
        g.kernel(r % KERNELS, [a, a, b], "    ")
        g.d2h(b, f"out{r}", "    ", row)
    g.w("    return\n  }\n")


def shape_branchy_loop(out, target, gpu):
    # One loop whose body holds a branch per buffer, on the parity of the
    # iteration: each copies a row in and launches a kernel that writes
    # another buffer. --vyre-pipeline-loops issues every copy an iteration
    # ahead under its branch's condition, and looks, for each, at what the
    # rest of the body touches.
    g = Writer(out, gpu)
    count = max(1, (target - 12) // 4)
    rows = f"memref<4x1024xf32>"
    g.w(f"  func.func @branchy(%rows: {rows} {{vyre.pinned, llvm.noalias}}) {{\n")
    g.constants("    ")
    for b in range(count):
        g.alloc(f"d{b}", "    ")
    g.alloc("y", "    ")
    g.w("    scf.for %i = %c0 to %c4 step %c1 {\n")
    g.w("      %parity = arith.remui %i, %c2 : index\n")
    g.w("      %even = arith.cmpi eq, %parity, %c0 : index\n")
    g.w(f"      %row = memref.subview %rows[%i, 0] [1, 1024] [1, 1] : {rows} to "
        "memref<1024xf32, strided<[1], offset: ?>>\n")
    g.ops += 4
    row = "memref<1024xf32, strided<[1], offset: ?>>"
    for b in range(count):
        g.w("      scf.if %even {\n")
        g.h2d("row", f"d{b}", "        ", row)
        g.kernel(b % KERNELS, [f"d{b}", f"d{b}", "y"], "        ")
        g.w("      }\n")
        g.ops += 1
    g.w("    }\n    return\n  }\n")


def shape_many_loops(out, target, gpu):
    # Loops of 4 trips one after another, each copying the rows of a host
    # array into a buffer of its own and launching a kernel on it:
    # --vyre-pipeline-loops rewrites each, and must not analyse the whole
    # function again after each.
    g = Writer(out, gpu)
    count = max(1, (target - 7) // 6)
    rows = "memref<4x1024xf32>"
    row = "memref<1024xf32, strided<[1], offset: ?>>"
    g.w(f"  func.func @loops(%rows: {rows} {{vyre.pinned, llvm.noalias}}) {{\n")
    g.constants("    ")
    g.alloc("y", "    ")
    for b in range(count):
        g.alloc(f"d{b}", "    ")
        g.w(f"    scf.for %i{b} = %c0 to %c4 step %c1 {{\n")
        g.w(f"      %row{b} = memref.subview %rows[%i{b}, 0] [1, 1024] [1, 1] : "
            f"{rows} to {row}\n")
        g.ops += 3
        g.h2d(f"row{b}", f"d{b}", "      ", row)
        g.kernel(b % KERNELS, [f"d{b}", f"d{b}", "y"], "      ")
        g.w("    }\n")
    g.w("    return\n  }\n")


SHAPES = {
    "branchy-loop": shape_branchy_loop,
    "copies-first": shape_copies_first,
    "one-buffer": shape_one_buffer,
    "many-functions": shape_many_functions,
    "many-loops": shape_many_loops,
    "deep-nesting": shape_deep_nesting,
    "host-slices": shape_host_slices,
}


def main():
    parser = argparse.ArgumentParser(
        description="Writes a program of about OPS ops for the compile-time "
        "benchmark, in vyre (or, with --gpu, in the upstream gpu dialect).")
    parser.add_argument("ops", type=int, help="how many ops, about")
    parser.add_argument("--gpu", action="store_true",
                        help="write the gpu-dialect form of the program")
    parser.add_argument("--shape", choices=sorted(SHAPES),
                        help="an adversarial shape instead of the default "
                        "(weights streamed through a pool of buffers)")
    args = parser.parse_args()
    if args.ops <= 0:
        parser.error("OPS must be positive")
    target, gpu = args.ops, args.gpu
    out = sys.stdout
    w = out.write
    w("module attributes {gpu.container_module} {\n")
    kernels_module(w)
    if args.shape:
        SHAPES[args.shape](out, target, gpu)
        w("}\n")
        return
    w(f"  func.func @stream({host_args(HOSTS)}) {{\n")
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
