// RUN: mxfp8-opt %s --mxfp8train-emit-c-interface | FileCheck %s

// Public functions with a body get llvm.emit_c_interface (their
// _mlir_ciface_ wrapper after convert-func-to-llvm); private functions and
// declarations do not.

// CHECK-LABEL: func.func @public_with_body(
// CHECK-SAME:    memref<4xf32>) attributes {llvm.emit_c_interface} {{[{]$}}
func.func @public_with_body(%x: memref<4xf32>) {
  return
}

// CHECK-LABEL: func.func private @private_helper(
// CHECK-SAME:    memref<4xf32>) {{[{]$}}
func.func private @private_helper(%x: memref<4xf32>) {
  return
}

// CHECK:       func.func private @external(memref<4xf32>){{$}}
func.func private @external(memref<4xf32>)
