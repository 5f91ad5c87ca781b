// Values at the level that runs: a function versioned for aliasing, lowered
// to the gpu dialect, computes what its input computes with its arguments
// apart and with them aliased (the value interpreter gives memref arguments
// of one type one buffer: --test-vyre-value-digest alias-arguments=true),
// under eager and lazy interleavings of its streams.
//
// Both versions are kept (only-if-faster=false; the default pipeline folds
// this one back, which is checked too), and both referees run on them.
// RUN: vyre-opt %s --pass-pipeline="builtin.module(vyre-deduce-noalias,vyre-version-aliasing,vyre-kernel-access,vyre-estimate-kernel-costs,vyre-function-effects,func.func(vyre-pipeline-loops,overlap-copies),vyre-choose-versions{only-if-faster=false},func.func(vyre-verify-schedule),convert-vyre-to-gpu{keep-effects},canonicalize,cse,vyre-verify-gpu-streams,convert-vyre-to-gpu)" -o %t.kept.mlir
// RUN: FileCheck %s --input-file=%t.kept.mlir --check-prefix=KEPT
// KEPT: func.func @back_then_in(
// KEPT: scf.if
// KEPT: func.func private @back_then_in_disjoint(
// KEPT: func.func private @back_then_in_may_alias(
// RUN: vyre-opt %s --vyre-to-gpu-pipeline="verify=true" -o %t.default.mlir
//
// RUN: vyre-opt %s --test-vyre-value-digest="alias-arguments=false" -o /dev/null 2>&1 | grep -A1 "remark: digest" | grep -B1 "func.func @back_then_in(" | grep remark > %t.apart
// RUN: vyre-opt %t.kept.mlir --test-vyre-value-digest="alias-arguments=false interleaving=eager" -o /dev/null 2>&1 | grep -A1 "remark: digest" | grep -B1 "func.func @back_then_in(" | grep remark >> %t.apart
// RUN: vyre-opt %t.kept.mlir --test-vyre-value-digest="alias-arguments=false interleaving=lazy" -o /dev/null 2>&1 | grep -A1 "remark: digest" | grep -B1 "func.func @back_then_in(" | grep remark >> %t.apart
// RUN: vyre-opt %t.default.mlir --test-vyre-value-digest="alias-arguments=false interleaving=eager" -o /dev/null 2>&1 | grep -A1 "remark: digest" | grep -B1 "func.func @back_then_in(" | grep remark >> %t.apart
// RUN: FileCheck %s --input-file=%t.apart --check-prefix=VALUES
// RUN: vyre-opt %s --test-vyre-value-digest="alias-arguments=true" -o /dev/null 2>&1 | grep -A1 "remark: digest" | grep -B1 "func.func @back_then_in(" | grep remark > %t.aliased
// RUN: vyre-opt %t.kept.mlir --test-vyre-value-digest="alias-arguments=true interleaving=eager" -o /dev/null 2>&1 | grep -A1 "remark: digest" | grep -B1 "func.func @back_then_in(" | grep remark >> %t.aliased
// RUN: vyre-opt %t.kept.mlir --test-vyre-value-digest="alias-arguments=true interleaving=lazy" -o /dev/null 2>&1 | grep -A1 "remark: digest" | grep -B1 "func.func @back_then_in(" | grep remark >> %t.aliased
// RUN: vyre-opt %t.default.mlir --test-vyre-value-digest="alias-arguments=true interleaving=eager" -o /dev/null 2>&1 | grep -A1 "remark: digest" | grep -B1 "func.func @back_then_in(" | grep remark >> %t.aliased
// RUN: FileCheck %s --input-file=%t.aliased --check-prefix=VALUES
// The input's digest, then each build's @back_then_in's (its copies' own
// digests are left out).
// VALUES: {{^}}[[INPUT:.+]]:{{[0-9]+}}:1: remark: digest [[D:0x[0-9a-f]+]]
// VALUES-NEXT: kept.mlir:{{[0-9]+}}:3: remark: digest [[D]]
// VALUES-NEXT: kept.mlir:{{[0-9]+}}:3: remark: digest [[D]]
// VALUES-NEXT: default.mlir:{{[0-9]+}}:3: remark: digest [[D]]
//
// The check matters: a dispatcher that always calls the disjoint version
// computes other values when the arguments alias (its copy in of %in is
// issued before the copy back into %out, which %in is).
// RUN: sed 's/call @back_then_in_may_alias(/call @back_then_in_disjoint(/' %t.kept.mlir > %t.always.mlir
// RUN: vyre-opt %s --test-vyre-value-digest="alias-arguments=true" -o /dev/null 2>&1 | grep -A1 "remark: digest" | grep -B1 "func.func @back_then_in(" | grep remark > %t.wrong
// RUN: vyre-opt %t.always.mlir --test-vyre-value-digest="alias-arguments=true interleaving=eager" -o /dev/null 2>&1 | grep -A1 "remark: digest" | grep -B1 "func.func @back_then_in(" | grep remark >> %t.wrong
// RUN: FileCheck %s --input-file=%t.wrong --check-prefix=WRONG
// WRONG: remark: digest [[D:0x[0-9a-f]+]]
// WRONG-NEXT: always.mlir:{{[0-9]+}}:3: remark: digest
// WRONG-NOT: [[D]]

gpu.module @k {
  gpu.func @bump(%x: memref<4xf32>, %y: memref<4xf32>) kernel {
    %i = gpu.thread_id x
    %v = memref.load %x[%i] : memref<4xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %y[%i] : memref<4xf32>
    gpu.return
  }
}

func.func @back_then_in(%a: memref<4xf32> {vyre.pinned}, %out: memref<4xf32> {vyre.pinned}, %in: memref<4xf32> {vyre.pinned}, %res: memref<4xf32> {vyre.pinned}) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %d1 = vyre.alloc : memref<4xf32>
  %d2 = vyre.alloc : memref<4xf32>
  %d3 = vyre.alloc : memref<4xf32>
  %d4 = vyre.alloc : memref<4xf32>
  vyre.copy_h2d %a to %d1 : memref<4xf32> to memref<4xf32>
  vyre.dispatch @k::@bump blocks(%c1, %c1, %c1) threads(%c4, %c1, %c1) args(%d1, %d2 : memref<4xf32>, memref<4xf32>) {vyre.cost_us = 100.0}
  vyre.copy_d2h %d2 to %out : memref<4xf32> to memref<4xf32>
  vyre.copy_h2d %in to %d3 : memref<4xf32> to memref<4xf32>
  vyre.dispatch @k::@bump blocks(%c1, %c1, %c1) threads(%c4, %c1, %c1) args(%d3, %d4 : memref<4xf32>, memref<4xf32>) {vyre.cost_us = 100.0}
  vyre.copy_d2h %d4 to %res : memref<4xf32> to memref<4xf32>
  vyre.dealloc %d1 : memref<4xf32>
  vyre.dealloc %d2 : memref<4xf32>
  vyre.dealloc %d3 : memref<4xf32>
  vyre.dealloc %d4 : memref<4xf32>
  return
}
