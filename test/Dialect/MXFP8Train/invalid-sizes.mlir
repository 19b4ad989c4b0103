// RUN: mxfp8-opt %s -split-input-file -verify-diagnostics

// Sizes computed from user shapes use checked int64 arithmetic (issue 14
// row 9): a tensor whose byte size, or a blocked or padded size that
// overflows int64, is rejected instead of wrapping to a small (or 0-byte)
// result.

func.func @to_blocked_rejects_overflowing_scales(%s: tensor<4611686018427387904x4xf8E8M0FNU>) {
  // expected-error @+1 {{'mxfp8train.to_blocked' op expects operand #0 ('tensor<4611686018427387904x4xf8E8M0FNU>') to fit in int64 bytes, found a byte size that overflows}}
  %b = mxfp8train.to_blocked %s layout = blocked : tensor<4611686018427387904x4xf8E8M0FNU> -> tensor<0xf8E8M0FNU>
  return
}

// -----

// 2^62 + 1 rows of one scale fit; their blocked layout (ceil(R/128)*128 * 4
// bytes) does not.
func.func @to_blocked_rejects_overflowing_blocked_size(%s: tensor<4611686018427387905x1xf8E8M0FNU>) {
  // expected-error @+1 {{'mxfp8train.to_blocked' op expects the blocked size of the scales 4611686018427387905x1 to fit in int64, found a size that overflows}}
  %b = mxfp8train.to_blocked %s layout = blocked : tensor<4611686018427387905x1xf8E8M0FNU> -> tensor<0xf8E8M0FNU>
  return
}

// -----

func.func @to_blocked_rejects_overflowing_k_groups(%s: tensor<128x9223372036854775800xf8E8M0FNU>, %offs: tensor<4xi32>) {
  // expected-error @+1 {{'mxfp8train.to_blocked' op expects operand #0 ('tensor<128x9223372036854775800xf8E8M0FNU>') to fit in int64 bytes, found a byte size that overflows}}
  %b = mxfp8train.to_blocked %s offs(%offs) layout = blocked_k_groups : tensor<128x9223372036854775800xf8E8M0FNU>, tensor<4xi32> -> tensor<0xf8E8M0FNU>
  return
}

// -----

func.func @to_blocked_rejects_overflowing_m_groups(%s: tensor<9223372036854775000x1xf8E8M0FNU>, %offs: tensor<8xi32>) {
  // expected-error @+1 {{'mxfp8train.to_blocked' op expects the blocked_m_groups size of the scales 9223372036854775000x1 to fit in int64, found a size that overflows}}
  %b = mxfp8train.to_blocked %s offs(%offs) layout = blocked_m_groups : tensor<9223372036854775000x1xf8E8M0FNU>, tensor<8xi32> -> tensor<0xf8E8M0FNU>
  return
}

// -----

func.func @quantize_rejects_overflowing_input(%x: tensor<4611686018427387904x32xbf16>) {
  // expected-error @+1 {{'mxfp8train.quantize' op expects operand #0 ('tensor<4611686018427387904x32xbf16>') to fit in int64 bytes, found a byte size that overflows}}
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil layout = blocked : tensor<4611686018427387904x32xbf16> -> tensor<4611686018427387904x32xf8E4M3FN>, tensor<0xf8E8M0FNU>
  return
}

// -----

func.func @quantize_rejects_overflowing_result(%x: tensor<64x32xbf16>) {
  // expected-error @+1 {{'mxfp8train.quantize' op expects result #1 ('tensor<9223372036854775807x2xf8E8M0FNU>') to fit in int64 bytes, found a byte size that overflows}}
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil : tensor<64x32xbf16> -> tensor<64x32xf8E4M3FN>, tensor<9223372036854775807x2xf8E8M0FNU>
  return
}

// -----

func.func @pad_token_groups_rejects_overflowing_rows(%x: tensor<9223372036854775800x0xbf16>, %offs: tensor<2xi32>) {
  // expected-error @+1 {{'mxfp8train.pad_token_groups' op expects the padded row count ceil((9223372036854775800 + 32*2)/32)*32 to fit in int64, found a size that overflows}}
  %p, %po = mxfp8train.pad_token_groups %x offs(%offs) alignment = 32 : tensor<9223372036854775800x0xbf16>, tensor<2xi32> -> tensor<0x0xbf16>, tensor<2xi32>
  return
}

// -----

func.func @unpad_token_groups_rejects_overflowing_rows(%x: tensor<0x0xbf16>, %offs: tensor<2xi32>) {
  // expected-error @+1 {{'mxfp8train.unpad_token_groups' op expects the padded row count ceil((9223372036854775800 + 128*2)/128)*128 to fit in int64, found a size that overflows}}
  %u = mxfp8train.unpad_token_groups %x offs(%offs) alignment = 128 : tensor<0x0xbf16>, tensor<2xi32> -> tensor<9223372036854775800x0xbf16>
  return
}
