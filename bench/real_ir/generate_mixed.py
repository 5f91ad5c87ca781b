#!/usr/bin/env python3
"""A host function that mixes an explicit token chain with synchronous gpu
ops, GROUPS groups long (about 7 ops each): per group, a copy and a kernel
on the chain, then a synchronous copy in, kernel and copy out on a buffer
of their own; every tenth group a synchronous kernel on the chain's buffer,
which must wait for the chain. For timing --convert-gpu-host-to-vyre and
--vyre-gpu-async-pipeline at scale (docs/benchmarks.md).

Usage: bench/real_ir/generate_mixed.py GROUPS > mixed.mlir
"""
import sys
n = int(sys.argv[1])  # groups
out = []
out.append('module attributes {gpu.container_module} {')
out.append('  gpu.module @k { gpu.func @scale(%x: memref<256xf32>) kernel { %i = gpu.thread_id x\n %v = memref.load %x[%i] : memref<256xf32>\n memref.store %v, %x[%i] : memref<256xf32>\n gpu.return } }')
out.append('  func.func @mixed(%h: memref<256xf32>, %o: memref<256xf32>) {')
out.append('    %c1 = arith.constant 1 : index')
out.append('    %c256 = arith.constant 256 : index')
out.append('    %s = gpu.wait async')
out.append('    %e, %te0 = gpu.alloc async [%s] () : memref<256xf32>')
prev = '%te0'
for i in range(n):
    # explicit: copy into %e and a kernel on it, chained
    out.append(f'    %tc{i} = gpu.memcpy async [{prev}] %e, %h : memref<256xf32>, memref<256xf32>')
    out.append(f'    %tk{i} = gpu.launch_func async [%tc{i}] @k::@scale blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%e : memref<256xf32>)')
    prev = f'%tk{i}'
    # synchronous: its own buffer, copy in, kernel, copy out
    out.append(f'    %d{i} = gpu.alloc () : memref<256xf32>')
    out.append(f'    gpu.memcpy %d{i}, %h : memref<256xf32>, memref<256xf32>')
    out.append(f'    gpu.launch_func @k::@scale blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%d{i} : memref<256xf32>)')
    if i % 10 == 9:
        # a synchronous op on the explicit buffer: waits for the chain
        out.append(f'    gpu.launch_func @k::@scale blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%e : memref<256xf32>)')
    out.append(f'    gpu.memcpy %o, %d{i} : memref<256xf32>, memref<256xf32>')
    out.append(f'    gpu.dealloc %d{i} : memref<256xf32>')
out.append(f'    %tf = gpu.dealloc async [{prev}] %e : memref<256xf32>')
out.append('    gpu.wait [%tf]')
out.append('    return')
out.append('  }')
out.append('}')
print('\n'.join(out))
