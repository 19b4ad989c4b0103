//===- BlockView.h - the (outer, rows, cols) view of an MX cast -*- C++ -*-===//
//
// The canonical view of data quantized or dequantized along one axis, shared
// by the MX cast kernels (QuantizeKernels.cpp, ColumnCastKernels.cpp,
// DequantizeKernels.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_BLOCKVIEW_H
#define MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_BLOCKVIEW_H

#include "KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/STLExtras.h"

#include <array>

namespace mlir {
namespace mxfp8train {
namespace gpu_lowering {

/// The canonical view of data quantized along `axis`: `outer` independent
/// slabs of a `rows x cols` matrix whose blocks run along the rows (32x1,
/// `rowwise` false) or along the columns (1x32, `rowwise` true; then `outer`
/// is 1 and `rows` is the product of the leading dims).
struct BlockView {
  bool rowwise;
  int64_t outer, rows, cols;

  static BlockView get(ArrayRef<int64_t> shape, int64_t axis) {
    int64_t rank = shape.size();
    if (axis == rank - 1)
      return {true, 1, llvm::product_of(shape.drop_back()), shape.back()};
    return {false, llvm::product_of(shape.take_front(axis)), shape[axis],
            llvm::product_of(shape.drop_front(axis + 1))};
  }

  /// The data view: (rows, cols) or (outer, rows, cols) when outer > 1.
  SmallVector<int64_t> dataShape() const {
    if (outer == 1)
      return {rows, cols};
    return {outer, rows, cols};
  }
  /// The row-major scale view.
  SmallVector<int64_t> scaleShape() const {
    if (rowwise)
      return {rows, cols / kBlockSize};
    if (outer == 1)
      return {rows / kBlockSize, cols};
    return {outer, rows / kBlockSize, cols};
  }
  /// Indices (outer?, r, c) into a view of this rank.
  SmallVector<Value> index(Value o, Value r, Value c) const {
    if (outer == 1)
      return {r, c};
    return {o, r, c};
  }
};

/// Decomposes work item `i` of a 32x1 grid into (outer, row block, column
/// group); returns {o, r0 = 32*rowBlock, rowBlock, c0 = cpt*group}.
inline std::array<Value, 4> decomposeColumnItem(KernelBuilder &kb, Value i,
                                                const BlockView &v,
                                                int64_t cpt) {
  int64_t groups = v.cols / cpt, rowBlocks = v.rows / kBlockSize;
  Value g = arith::RemUIOp::create(kb, i, kb.idx(groups));
  Value t = arith::DivUIOp::create(kb, i, kb.idx(groups));
  Value rb = arith::RemUIOp::create(kb, t, kb.idx(rowBlocks));
  Value o = arith::DivUIOp::create(kb, t, kb.idx(rowBlocks));
  Value r0 = arith::MulIOp::create(kb, rb, kb.idx(kBlockSize));
  Value c0 = arith::MulIOp::create(kb, g, kb.idx(cpt));
  return {o, r0, rb, c0};
}

/// The kernel-name tag of a scale layout.
inline StringRef getLayoutTag(ScaleLayout layout) {
  return layout == ScaleLayout::Blocked ? "blocked" : "rowmajor";
}

} // namespace gpu_lowering
} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_BLOCKVIEW_H
