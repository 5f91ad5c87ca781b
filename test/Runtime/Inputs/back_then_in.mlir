// Copies only (the host runtime runs no kernel, and moves data): %a to the
// device and back into %out, then %in to the device and back into %res. When
// %in is %out, %res is %a's data; when they are apart, %in's. Nothing says
// the arguments are distinct: the pipelines version the function
// (docs/VersionAliasing.md), and its disjoint copy issues the copy from %in
// before the copy back into %out, beside it.
func.func @back_then_in(%a: memref<1048576xf32> {vyre.pinned}, %out: memref<1048576xf32> {vyre.pinned}, %in: memref<1048576xf32> {vyre.pinned}, %res: memref<1048576xf32> {vyre.pinned}) {
  %d1 = vyre.alloc : memref<1048576xf32>
  %d3 = vyre.alloc : memref<1048576xf32>
  vyre.copy_h2d %a to %d1 : memref<1048576xf32> to memref<1048576xf32>
  vyre.copy_d2h %d1 to %out : memref<1048576xf32> to memref<1048576xf32>
  vyre.copy_h2d %in to %d3 : memref<1048576xf32> to memref<1048576xf32>
  vyre.copy_d2h %d3 to %res : memref<1048576xf32> to memref<1048576xf32>
  vyre.dealloc %d1 : memref<1048576xf32>
  vyre.dealloc %d3 : memref<1048576xf32>
  return
}
