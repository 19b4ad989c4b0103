# ===- builders.py - training graphs from shapes ---------------------------=== #
#
# Builders of one training step (forward and backward) of common layers as
# MLIR text, without the user writing IR: a linear layer with bias, a SwiGLU
# MLP block and grouped experts (mxfp8train.grouped_mm with token-group
# offsets). Every matmul carries a NameLoc "<name>.<weight>.<fwd|dgrad|wgrad>"
# that the conversion report and the `exclude` filter of convert() refer
# to. The graphs have the form mxfp8train-rewrite-matmuls accepts (bf16
# operands, zero-filled f32 accumulators truncated to bf16), as the modules
# of examples/ do; the MLP and expert graphs are exactly those of
# examples/mlp_train_step_small.mlir and examples/moe_train_step_small.mlir
# at any size.
#
# ===----------------------------------------------------------------------=== #
"""Builders of training graphs (forward + backward) from shapes."""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from ._checks import check_bool, check_str
from .ir import Context, Module

__all__ = ["grouped_experts", "linear", "swiglu_mlp"]


def _check_sizes(experts: int = 1, **sizes) -> None:
    """Each size a positive int; every tensor of the step (at most two of
    the sizes, times ``experts`` for expert weights, in f32) within int64
    bytes, as the ops' verifiers require."""
    for key, value in sizes.items():
        if (not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_))
                or value <= 0):
            raise ValueError("%s must be a positive int, got %r" % (key, value))
    largest = sorted(sizes.values())[-2:]
    if experts * largest[0] * largest[-1] * 4 >= 2**63:
        raise ValueError(
            "sizes %s make a tensor of more than 2**63 bytes"
            % ", ".join("%s=%d" % kv for kv in sizes.items())
        )


def _check_name(name: str) -> None:
    check_str("name", name)
    if not name or any(c in name for c in '"\\\n'):
        raise ValueError("name must be a non-empty string without quotes, backslashes or newlines, got %r" % (name,))


def _check_function(function: str) -> None:
    check_str("function", function)
    if not function or not all(c.isalnum() or c in "_$." for c in function) or function[0].isdigit():
        raise ValueError("function must be an MLIR symbol name ([A-Za-z_][A-Za-z0-9_$.]*), got %r" % (function,))


_LINEAR = """#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#mm_a = affine_map<(m, n, k) -> (m, k)>
#mm_b = affine_map<(m, n, k) -> (k, n)>
#mm_bt = affine_map<(m, n, k) -> (n, k)>
#mm_at = affine_map<(m, n, k) -> (k, m)>
#mm_c = affine_map<(m, n, k) -> (m, n)>

func.func @{fn}(
    %x: tensor<{T}x{I}xbf16> {{mxfp8run.std = 1.0 : f64}},
    %w: tensor<{O}x{I}xbf16> {{mxfp8run.std = 0.02 : f64}},{bias_arg}
    %dY: tensor<{T}x{O}xbf16> {{mxfp8run.std = 1.0 : f64}})
    -> (tensor<{T}x{O}xbf16> {{mxfp8train.role = "output"}},
        tensor<{T}x{I}xbf16> {{mxfp8train.role = "input_grad"}},
        tensor<{O}x{I}xbf16> {{mxfp8train.role = "weight_grad"}}{bias_result}) {{
  %zero = arith.constant 0.0 : f32

  %y_init = tensor.empty() : tensor<{T}x{O}xf32>
  %y_zero = linalg.fill ins(%zero : f32) outs(%y_init : tensor<{T}x{O}xf32>) -> tensor<{T}x{O}xf32>
  %y_acc = linalg.matmul indexing_maps = [#mm_a, #mm_bt, #mm_c]
      ins(%x, %w : tensor<{T}x{I}xbf16>, tensor<{O}x{I}xbf16>)
      outs(%y_zero : tensor<{T}x{O}xf32>) -> tensor<{T}x{O}xf32> loc("{name}.fwd")
  %y_e = tensor.empty() : tensor<{T}x{O}xbf16>
  %y_mm = linalg.generic {{indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}}
      ins(%y_acc : tensor<{T}x{O}xf32>) outs(%y_e : tensor<{T}x{O}xbf16>) {{
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  }} -> tensor<{T}x{O}xbf16>
{bias_fwd}
  %dx_init = tensor.empty() : tensor<{T}x{I}xf32>
  %dx_zero = linalg.fill ins(%zero : f32) outs(%dx_init : tensor<{T}x{I}xf32>) -> tensor<{T}x{I}xf32>
  %dx_acc = linalg.matmul ins(%dY, %w : tensor<{T}x{O}xbf16>, tensor<{O}x{I}xbf16>)
      outs(%dx_zero : tensor<{T}x{I}xf32>) -> tensor<{T}x{I}xf32> loc("{name}.dgrad")
  %dx_e = tensor.empty() : tensor<{T}x{I}xbf16>
  %dx = linalg.generic {{indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}}
      ins(%dx_acc : tensor<{T}x{I}xf32>) outs(%dx_e : tensor<{T}x{I}xbf16>) {{
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  }} -> tensor<{T}x{I}xbf16>

  %dw_init = tensor.empty() : tensor<{O}x{I}xf32>
  %dw_zero = linalg.fill ins(%zero : f32) outs(%dw_init : tensor<{O}x{I}xf32>) -> tensor<{O}x{I}xf32>
  %dw_acc = linalg.matmul indexing_maps = [#mm_at, #mm_b, #mm_c]
      ins(%dY, %x : tensor<{T}x{O}xbf16>, tensor<{T}x{I}xbf16>)
      outs(%dw_zero : tensor<{O}x{I}xf32>) -> tensor<{O}x{I}xf32> loc("{name}.wgrad")
  %dw_e = tensor.empty() : tensor<{O}x{I}xbf16>
  %dw = linalg.generic {{indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}}
      ins(%dw_acc : tensor<{O}x{I}xf32>) outs(%dw_e : tensor<{O}x{I}xbf16>) {{
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  }} -> tensor<{O}x{I}xbf16>
{bias_bwd}
  return {returns}
}}
"""

_LINEAR_BIAS_FWD = """
  %y_b = tensor.empty() : tensor<{T}x{O}xbf16>
  %y = linalg.generic {{indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}}
      ins(%y_mm, %b : tensor<{T}x{O}xbf16>, tensor<{O}xbf16>) outs(%y_b : tensor<{T}x{O}xbf16>) {{
  ^bb0(%u: bf16, %c: bf16, %o: bf16):
    %uf = arith.extf %u : bf16 to f32
    %cf = arith.extf %c : bf16 to f32
    %s = arith.addf %uf, %cf : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  }} -> tensor<{T}x{O}xbf16> loc("{name}.bias")
"""

_LINEAR_BIAS_BWD = """
  %db_init = tensor.empty() : tensor<{O}xf32>
  %db_zero = linalg.fill ins(%zero : f32) outs(%db_init : tensor<{O}xf32>) -> tensor<{O}xf32>
  %db_acc = linalg.generic {{indexing_maps = [#id, #row], iterator_types = ["reduction", "parallel"]}}
      ins(%dY : tensor<{T}x{O}xbf16>) outs(%db_zero : tensor<{O}xf32>) {{
  ^bb0(%g: bf16, %acc: f32):
    %gf = arith.extf %g : bf16 to f32
    %s = arith.addf %acc, %gf : f32
    linalg.yield %s : f32
  }} -> tensor<{O}xf32> loc("{name}.bias.grad")
  %db_e = tensor.empty() : tensor<{O}xbf16>
  %db = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}}
      ins(%db_acc : tensor<{O}xf32>) outs(%db_e : tensor<{O}xbf16>) {{
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  }} -> tensor<{O}xbf16>
"""


def linear_text(tokens: int, in_features: int, out_features: int, *, bias: bool = True,
                name: str = "linear", function: str = "linear_train_step") -> str:
    """The MLIR text of :func:`linear`."""
    _check_sizes(tokens=tokens, in_features=in_features, out_features=out_features)
    _check_name(name)
    _check_function(function)
    bias = check_bool("bias", bias, optional=False)
    sizes = dict(T=int(tokens), I=int(in_features), O=int(out_features), name=name, fn=function)
    if bias:
        bias_arg = "\n    %b: tensor<{O}xbf16> {{mxfp8run.std = 0.02 : f64}},".format(**sizes)
        bias_result = ",\n        tensor<{O}xbf16> {{mxfp8train.role = \"weight_grad\"}}".format(**sizes)
        bias_fwd = _LINEAR_BIAS_FWD.format(**sizes)
        bias_bwd = _LINEAR_BIAS_BWD.format(**sizes)
        returns = "%y, %dx, %dw, %db : tensor<{T}x{O}xbf16>, tensor<{T}x{I}xbf16>, tensor<{O}x{I}xbf16>, tensor<{O}xbf16>".format(**sizes)
    else:
        bias_arg = bias_result = bias_bwd = ""
        bias_fwd = ""
        returns = "%y_mm, %dx, %dw : tensor<{T}x{O}xbf16>, tensor<{T}x{I}xbf16>, tensor<{O}x{I}xbf16>".format(**sizes)
    return _LINEAR.format(bias_arg=bias_arg, bias_result=bias_result, bias_fwd=bias_fwd,
                          bias_bwd=bias_bwd, returns=returns, **sizes)


def linear(tokens: int, in_features: int, out_features: int, *, bias: bool = True,
           name: str = "linear", function: str = "linear_train_step",
           context: Optional[Context] = None) -> Module:
    """One training step of ``y = x @ w^T + b`` (PyTorch ``nn.Linear`` in
    bf16): a module with one public function ``function``.

    Arguments (bf16): ``x (tokens, in_features)``, ``w (out_features,
    in_features)``, ``b (out_features,)`` (when ``bias``), ``dY (tokens,
    out_features)``. Results (bf16): ``y (tokens, out_features)``, ``dX =
    dY @ w (tokens, in_features)``, ``dW = dY^T @ x (out_features,
    in_features)`` and ``db = sum(dY, 0) (out_features,)`` (when ``bias``).
    Each matmul accumulates in f32 and rounds to bf16 once; the bias is
    added to the rounded product in f32 and rounded again (as torchao's MX
    linear does); ``db`` sums in f32.

    Matmul names: ``<name>.fwd``, ``<name>.dgrad``, ``<name>.wgrad``.
    Raises ``ValueError`` for a size that is not a positive int or a bad
    name.
    """
    return Module.parse(linear_text(tokens, in_features, out_features, bias=bias, name=name,
                                    function=function), context)


# silu(h1) of the f32 value %pf (with the constant %one): the sigmoid %sig and
# %silu, shared by the SwiGLU gate and its derivative below.
_SILU = """    %neg = arith.negf %pf : f32
    %exp = math.exp %neg : f32
    %den = arith.addf %exp, %one : f32
    %sig = arith.divf %one, %den : f32
    %silu = arith.mulf %pf, %sig : f32
"""

# The elementwise halves of SwiGLU shared by the dense MLP and the grouped
# experts (MLIR text with format fields T, F): the gate a = silu(h1) * h3 in
# f32, rounded to bf16, and its derivatives dh1 = dA * h3 * silu'(h1), dh3 =
# dA * silu(h1).
_SWIGLU_GATE = (
    """  %a_e = tensor.empty() : tensor<{T}x{F}xbf16>
  %a = linalg.generic {{indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}}
      ins(%h1, %h3 : tensor<{T}x{F}xbf16>, tensor<{T}x{F}xbf16>) outs(%a_e : tensor<{T}x{F}xbf16>) {{
  ^bb0(%p: bf16, %q: bf16, %o: bf16):
    %one = arith.constant 1.0 : f32
    %pf = arith.extf %p : bf16 to f32
    %qf = arith.extf %q : bf16 to f32
"""
    + _SILU
    + """    %r = arith.mulf %silu, %qf : f32
    %t = arith.truncf %r : f32 to bf16
    linalg.yield %t : bf16
  }} -> tensor<{T}x{F}xbf16>
"""
)

_SWIGLU_GATE_GRAD = (
    """  %dh_e = tensor.empty() : tensor<{T}x{F}xbf16>
  %dh1, %dh3 = linalg.generic {{indexing_maps = [#id, #id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}}
      ins(%dA, %h1, %h3 : tensor<{T}x{F}xbf16>, tensor<{T}x{F}xbf16>, tensor<{T}x{F}xbf16>)
      outs(%dh_e, %dh_e : tensor<{T}x{F}xbf16>, tensor<{T}x{F}xbf16>) {{
  ^bb0(%g: bf16, %p: bf16, %q: bf16, %o1: bf16, %o3: bf16):
    %one = arith.constant 1.0 : f32
    %gf = arith.extf %g : bf16 to f32
    %pf = arith.extf %p : bf16 to f32
    %qf = arith.extf %q : bf16 to f32
"""
    + _SILU
    + """    %dh3f = arith.mulf %gf, %silu : f32
    %oms = arith.subf %one, %sig : f32
    %homs = arith.mulf %pf, %oms : f32
    %inner = arith.addf %homs, %one : f32
    %dsilu = arith.mulf %sig, %inner : f32
    %gq = arith.mulf %gf, %qf : f32
    %dh1f = arith.mulf %gq, %dsilu : f32
    %dh1t = arith.truncf %dh1f : f32 to bf16
    %dh3t = arith.truncf %dh3f : f32 to bf16
    linalg.yield %dh1t, %dh3t : bf16, bf16
  }} -> (tensor<{T}x{F}xbf16>, tensor<{T}x{F}xbf16>)
"""
)


_SWIGLU = ("""#id = affine_map<(d0, d1) -> (d0, d1)>
#mm_a = affine_map<(m, n, k) -> (m, k)>
#mm_b = affine_map<(m, n, k) -> (k, n)>
#mm_bt = affine_map<(m, n, k) -> (n, k)>
#mm_at = affine_map<(m, n, k) -> (k, m)>
#mm_c = affine_map<(m, n, k) -> (m, n)>

func.func @{fn}(
    %x: tensor<{T}x{D}xbf16> {{mxfp8run.std = 1.0 : f64}},
    %w1: tensor<{F}x{D}xbf16> {{mxfp8run.std = 0.02 : f64}},
    %w3: tensor<{F}x{D}xbf16> {{mxfp8run.std = 0.02 : f64}},
    %w2: tensor<{D}x{F}xbf16> {{mxfp8run.std = 0.02 : f64}},
    %dO: tensor<{T}x{D}xbf16> {{mxfp8run.std = 1.0 : f64}})
    -> (tensor<{T}x{D}xbf16> {{mxfp8train.role = "output"}},
        tensor<{T}x{D}xbf16> {{mxfp8train.role = "input_grad"}},
        tensor<{F}x{D}xbf16> {{mxfp8train.role = "weight_grad"}},
        tensor<{F}x{D}xbf16> {{mxfp8train.role = "weight_grad"}},
        tensor<{D}x{F}xbf16> {{mxfp8train.role = "weight_grad"}}) {{
  %zero = arith.constant 0.0 : f32

  %h1_init = tensor.empty() : tensor<{T}x{F}xf32>
  %h1_zero = linalg.fill ins(%zero : f32) outs(%h1_init : tensor<{T}x{F}xf32>) -> tensor<{T}x{F}xf32>
  %h1_acc = linalg.matmul indexing_maps = [#mm_a, #mm_bt, #mm_c]
      ins(%x, %w1 : tensor<{T}x{D}xbf16>, tensor<{F}x{D}xbf16>)
      outs(%h1_zero : tensor<{T}x{F}xf32>) -> tensor<{T}x{F}xf32> loc("{name}.w1.fwd")
  %h1_e = tensor.empty() : tensor<{T}x{F}xbf16>
  %h1 = linalg.generic {{indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}}
      ins(%h1_acc : tensor<{T}x{F}xf32>) outs(%h1_e : tensor<{T}x{F}xbf16>) {{
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  }} -> tensor<{T}x{F}xbf16>

  %w3t_e = tensor.empty() : tensor<{D}x{F}xbf16>
  %w3t = linalg.transpose ins(%w3 : tensor<{F}x{D}xbf16>) outs(%w3t_e : tensor<{D}x{F}xbf16>) permutation = [1, 0]
  %h3_init = tensor.empty() : tensor<{T}x{F}xf32>
  %h3_zero = linalg.fill ins(%zero : f32) outs(%h3_init : tensor<{T}x{F}xf32>) -> tensor<{T}x{F}xf32>
  %h3_acc = linalg.matmul ins(%x, %w3t : tensor<{T}x{D}xbf16>, tensor<{D}x{F}xbf16>)
      outs(%h3_zero : tensor<{T}x{F}xf32>) -> tensor<{T}x{F}xf32> loc("{name}.w3.fwd")
  %h3_e = tensor.empty() : tensor<{T}x{F}xbf16>
  %h3 = linalg.generic {{indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}}
      ins(%h3_acc : tensor<{T}x{F}xf32>) outs(%h3_e : tensor<{T}x{F}xbf16>) {{
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  }} -> tensor<{T}x{F}xbf16>

"""
    + _SWIGLU_GATE
    + """
  %out_init = tensor.empty() : tensor<{T}x{D}xf32>
  %out_zero = linalg.fill ins(%zero : f32) outs(%out_init : tensor<{T}x{D}xf32>) -> tensor<{T}x{D}xf32>
  %out_acc = linalg.matmul indexing_maps = [#mm_a, #mm_bt, #mm_c]
      ins(%a, %w2 : tensor<{T}x{F}xbf16>, tensor<{D}x{F}xbf16>)
      outs(%out_zero : tensor<{T}x{D}xf32>) -> tensor<{T}x{D}xf32> loc("{name}.w2.fwd")
  %out_e = tensor.empty() : tensor<{T}x{D}xbf16>
  %out = linalg.generic {{indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}}
      ins(%out_acc : tensor<{T}x{D}xf32>) outs(%out_e : tensor<{T}x{D}xbf16>) {{
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  }} -> tensor<{T}x{D}xbf16>

  %dA_init = tensor.empty() : tensor<{T}x{F}xf32>
  %dA_zero = linalg.fill ins(%zero : f32) outs(%dA_init : tensor<{T}x{F}xf32>) -> tensor<{T}x{F}xf32>
  %dA_acc = linalg.matmul ins(%dO, %w2 : tensor<{T}x{D}xbf16>, tensor<{D}x{F}xbf16>)
      outs(%dA_zero : tensor<{T}x{F}xf32>) -> tensor<{T}x{F}xf32> loc("{name}.w2.dgrad")
  %dA_e = tensor.empty() : tensor<{T}x{F}xbf16>
  %dA = linalg.generic {{indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}}
      ins(%dA_acc : tensor<{T}x{F}xf32>) outs(%dA_e : tensor<{T}x{F}xbf16>) {{
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  }} -> tensor<{T}x{F}xbf16>

  %dOt_e = tensor.empty() : tensor<{D}x{T}xbf16>
  %dOt = linalg.transpose ins(%dO : tensor<{T}x{D}xbf16>) outs(%dOt_e : tensor<{D}x{T}xbf16>) permutation = [1, 0]
  %dw2_init = tensor.empty() : tensor<{D}x{F}xf32>
  %dw2_zero = linalg.fill ins(%zero : f32) outs(%dw2_init : tensor<{D}x{F}xf32>) -> tensor<{D}x{F}xf32>
  %dw2_acc = linalg.matmul ins(%dOt, %a : tensor<{D}x{T}xbf16>, tensor<{T}x{F}xbf16>)
      outs(%dw2_zero : tensor<{D}x{F}xf32>) -> tensor<{D}x{F}xf32> loc("{name}.w2.wgrad")
  %dw2_e = tensor.empty() : tensor<{D}x{F}xbf16>
  %dw2 = linalg.generic {{indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}}
      ins(%dw2_acc : tensor<{D}x{F}xf32>) outs(%dw2_e : tensor<{D}x{F}xbf16>) {{
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  }} -> tensor<{D}x{F}xbf16>

"""
    + _SWIGLU_GATE_GRAD
    + """
  %dx1_init = tensor.empty() : tensor<{T}x{D}xf32>
  %dx1_zero = linalg.fill ins(%zero : f32) outs(%dx1_init : tensor<{T}x{D}xf32>) -> tensor<{T}x{D}xf32>
  %dx1_acc = linalg.matmul ins(%dh1, %w1 : tensor<{T}x{F}xbf16>, tensor<{F}x{D}xbf16>)
      outs(%dx1_zero : tensor<{T}x{D}xf32>) -> tensor<{T}x{D}xf32> loc("{name}.w1.dgrad")
  %dx3_init = tensor.empty() : tensor<{T}x{D}xf32>
  %dx3_zero = linalg.fill ins(%zero : f32) outs(%dx3_init : tensor<{T}x{D}xf32>) -> tensor<{T}x{D}xf32>
  %dx3_acc = linalg.matmul ins(%dh3, %w3 : tensor<{T}x{F}xbf16>, tensor<{F}x{D}xbf16>)
      outs(%dx3_zero : tensor<{T}x{D}xf32>) -> tensor<{T}x{D}xf32> loc("{name}.w3.dgrad")
  %dx1_e = tensor.empty() : tensor<{T}x{D}xbf16>
  %dx1 = linalg.generic {{indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}}
      ins(%dx1_acc : tensor<{T}x{D}xf32>) outs(%dx1_e : tensor<{T}x{D}xbf16>) {{
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  }} -> tensor<{T}x{D}xbf16>
  %dx3_e = tensor.empty() : tensor<{T}x{D}xbf16>
  %dx3 = linalg.generic {{indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}}
      ins(%dx3_acc : tensor<{T}x{D}xf32>) outs(%dx3_e : tensor<{T}x{D}xbf16>) {{
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  }} -> tensor<{T}x{D}xbf16>
  %dx_e = tensor.empty() : tensor<{T}x{D}xbf16>
  %dx = linalg.generic {{indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}}
      ins(%dx1, %dx3 : tensor<{T}x{D}xbf16>, tensor<{T}x{D}xbf16>) outs(%dx_e : tensor<{T}x{D}xbf16>) {{
  ^bb0(%u: bf16, %v: bf16, %o: bf16):
    %uf = arith.extf %u : bf16 to f32
    %vf = arith.extf %v : bf16 to f32
    %s = arith.addf %uf, %vf : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  }} -> tensor<{T}x{D}xbf16>

  %dw1_init = tensor.empty() : tensor<{F}x{D}xf32>
  %dw1_zero = linalg.fill ins(%zero : f32) outs(%dw1_init : tensor<{F}x{D}xf32>) -> tensor<{F}x{D}xf32>
  %dw1_acc = linalg.matmul indexing_maps = [#mm_at, #mm_b, #mm_c]
      ins(%dh1, %x : tensor<{T}x{F}xbf16>, tensor<{T}x{D}xbf16>)
      outs(%dw1_zero : tensor<{F}x{D}xf32>) -> tensor<{F}x{D}xf32> loc("{name}.w1.wgrad")
  %dw1_e = tensor.empty() : tensor<{F}x{D}xbf16>
  %dw1 = linalg.generic {{indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}}
      ins(%dw1_acc : tensor<{F}x{D}xf32>) outs(%dw1_e : tensor<{F}x{D}xbf16>) {{
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  }} -> tensor<{F}x{D}xbf16>

  %dh3t_e = tensor.empty() : tensor<{F}x{T}xbf16>
  %dh3t = linalg.transpose ins(%dh3 : tensor<{T}x{F}xbf16>) outs(%dh3t_e : tensor<{F}x{T}xbf16>) permutation = [1, 0]
  %dw3_init = tensor.empty() : tensor<{F}x{D}xf32>
  %dw3_zero = linalg.fill ins(%zero : f32) outs(%dw3_init : tensor<{F}x{D}xf32>) -> tensor<{F}x{D}xf32>
  %dw3_acc = linalg.matmul ins(%dh3t, %x : tensor<{F}x{T}xbf16>, tensor<{T}x{D}xbf16>)
      outs(%dw3_zero : tensor<{F}x{D}xf32>) -> tensor<{F}x{D}xf32> loc("{name}.w3.wgrad")
  %dw3_e = tensor.empty() : tensor<{F}x{D}xbf16>
  %dw3 = linalg.generic {{indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}}
      ins(%dw3_acc : tensor<{F}x{D}xf32>) outs(%dw3_e : tensor<{F}x{D}xbf16>) {{
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  }} -> tensor<{F}x{D}xbf16>

  return %out, %dx, %dw1, %dw3, %dw2
      : tensor<{T}x{D}xbf16>, tensor<{T}x{D}xbf16>, tensor<{F}x{D}xbf16>,
        tensor<{F}x{D}xbf16>, tensor<{D}x{F}xbf16>
}}
""")


def swiglu_mlp_text(tokens: int, dim: int, hidden: int, *, name: str = "mlp",
                    function: str = "mlp_train_step") -> str:
    """The MLIR text of :func:`swiglu_mlp`."""
    _check_sizes(tokens=tokens, dim=dim, hidden=hidden)
    _check_name(name)
    _check_function(function)
    return _SWIGLU.format(T=tokens, D=dim, F=hidden, name=name, fn=function)


def swiglu_mlp(tokens: int, dim: int, hidden: int, *, name: str = "mlp",
               function: str = "mlp_train_step", context: Optional[Context] = None) -> Module:
    """One training step of a SwiGLU MLP block (Llama's):
    ``out = (silu(x @ w1^T) * (x @ w3^T)) @ w2^T`` and its backward.

    Arguments (bf16): ``x (tokens, dim)``, ``w1 (hidden, dim)``, ``w3
    (hidden, dim)``, ``w2 (dim, hidden)``, ``dO (tokens, dim)``. Results
    (bf16): ``out (tokens, dim)``, ``dX (tokens, dim)``, ``dW1 (hidden,
    dim)``, ``dW3 (hidden, dim)``, ``dW2 (dim, hidden)``. Matmuls
    accumulate in f32 and round to bf16; the elementwise math runs in f32.
    At ``(32, 256, 512)`` this is ``examples/mlp_train_step_small.mlir``.

    Matmul names: ``<name>.{w1,w2,w3}.{fwd,dgrad,wgrad}``. Raises
    ``ValueError`` for a size that is not a positive int or a bad name.
    """
    return Module.parse(swiglu_mlp_text(tokens, dim, hidden, name=name, function=function), context)


_EXPERTS = ("""#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @{fn}(
    %x: tensor<{T}x{D}xbf16> {{mxfp8run.std = 1.0 : f64}},
    %w1: tensor<{E}x{F}x{D}xbf16> {{mxfp8run.std = 0.02 : f64}},
    %w3: tensor<{E}x{F}x{D}xbf16> {{mxfp8run.std = 0.02 : f64}},
    %w2: tensor<{E}x{D}x{F}xbf16> {{mxfp8run.std = 0.02 : f64}},
    %dO: tensor<{T}x{D}xbf16> {{mxfp8run.std = 1.0 : f64}})
    -> (tensor<{T}x{D}xbf16> {{mxfp8train.role = "output"}},
        tensor<{T}x{D}xbf16> {{mxfp8train.role = "input_grad"}},
        tensor<{E}x{F}x{D}xbf16> {{mxfp8train.role = "weight_grad"}},
        tensor<{E}x{F}x{D}xbf16> {{mxfp8train.role = "weight_grad"}},
        tensor<{E}x{D}x{F}xbf16> {{mxfp8train.role = "weight_grad"}}) {{
  %offs = arith.constant dense<[{offs}]> : tensor<{E}xi32>

  %h1 = mxfp8train.grouped_mm %x, %w1 offs(%offs) transpose_rhs
      : tensor<{T}x{D}xbf16>, tensor<{E}x{F}x{D}xbf16>, tensor<{E}xi32> -> tensor<{T}x{F}xbf16> loc("{name}.w1.fwd")
  %h3 = mxfp8train.grouped_mm %x, %w3 offs(%offs) transpose_rhs
      : tensor<{T}x{D}xbf16>, tensor<{E}x{F}x{D}xbf16>, tensor<{E}xi32> -> tensor<{T}x{F}xbf16> loc("{name}.w3.fwd")

"""
    + _SWIGLU_GATE
    + """
  %out = mxfp8train.grouped_mm %a, %w2 offs(%offs) transpose_rhs
      : tensor<{T}x{F}xbf16>, tensor<{E}x{D}x{F}xbf16>, tensor<{E}xi32> -> tensor<{T}x{D}xbf16> loc("{name}.w2.fwd")

  %dA = mxfp8train.grouped_mm %dO, %w2 offs(%offs)
      : tensor<{T}x{D}xbf16>, tensor<{E}x{D}x{F}xbf16>, tensor<{E}xi32> -> tensor<{T}x{F}xbf16> loc("{name}.w2.dgrad")

  %dw2 = mxfp8train.grouped_mm %dO, %a offs(%offs) transpose_lhs
      : tensor<{T}x{D}xbf16>, tensor<{T}x{F}xbf16>, tensor<{E}xi32> -> tensor<{E}x{D}x{F}xbf16> loc("{name}.w2.wgrad")

"""
    + _SWIGLU_GATE_GRAD
    + """
  %dx1 = mxfp8train.grouped_mm %dh1, %w1 offs(%offs)
      : tensor<{T}x{F}xbf16>, tensor<{E}x{F}x{D}xbf16>, tensor<{E}xi32> -> tensor<{T}x{D}xbf16> loc("{name}.w1.dgrad")
  %dx3 = mxfp8train.grouped_mm %dh3, %w3 offs(%offs)
      : tensor<{T}x{F}xbf16>, tensor<{E}x{F}x{D}xbf16>, tensor<{E}xi32> -> tensor<{T}x{D}xbf16> loc("{name}.w3.dgrad")
  %dx_e = tensor.empty() : tensor<{T}x{D}xbf16>
  %dx = linalg.generic {{indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}}
      ins(%dx1, %dx3 : tensor<{T}x{D}xbf16>, tensor<{T}x{D}xbf16>) outs(%dx_e : tensor<{T}x{D}xbf16>) {{
  ^bb0(%u: bf16, %v: bf16, %o: bf16):
    %uf = arith.extf %u : bf16 to f32
    %vf = arith.extf %v : bf16 to f32
    %s = arith.addf %uf, %vf : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  }} -> tensor<{T}x{D}xbf16>

  %dw1 = mxfp8train.grouped_mm %dh1, %x offs(%offs) transpose_lhs
      : tensor<{T}x{F}xbf16>, tensor<{T}x{D}xbf16>, tensor<{E}xi32> -> tensor<{E}x{F}x{D}xbf16> loc("{name}.w1.wgrad")
  %dw3 = mxfp8train.grouped_mm %dh3, %x offs(%offs) transpose_lhs
      : tensor<{T}x{F}xbf16>, tensor<{T}x{D}xbf16>, tensor<{E}xi32> -> tensor<{E}x{F}x{D}xbf16> loc("{name}.w3.wgrad")

  return %out, %dx, %dw1, %dw3, %dw2
      : tensor<{T}x{D}xbf16>, tensor<{T}x{D}xbf16>, tensor<{E}x{F}x{D}xbf16>, tensor<{E}x{F}x{D}xbf16>, tensor<{E}x{D}x{F}xbf16>
}}
""")


def grouped_experts_text(group_sizes: Sequence[int], dim: int, hidden: int, *,
                         name: str = "experts", function: str = "moe_train_step") -> str:
    """The MLIR text of :func:`grouped_experts`."""
    sizes = list(group_sizes)
    if not sizes or any(
        isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0 for s in sizes
    ):
        raise ValueError("group_sizes must be a non-empty list of ints >= 0, got %r" % (sizes,))
    sizes = [int(s) for s in sizes]
    tokens = sum(sizes)
    if tokens == 0:
        raise ValueError("group_sizes must hold at least one token, got %r" % (sizes,))
    if tokens >= 2**31:
        raise ValueError("group_sizes must sum to less than 2**31 (i32 offs), got %d" % tokens)
    _check_sizes(experts=len(sizes), tokens=tokens, dim=dim, hidden=hidden)
    _check_name(name)
    _check_function(function)
    ends, total = [], 0
    for s in sizes:
        total += s
        ends.append(str(total))
    return _EXPERTS.format(T=tokens, E=len(sizes), D=dim, F=hidden, offs=", ".join(ends),
                           name=name, fn=function)


def grouped_experts(group_sizes: Sequence[int], dim: int, hidden: int, *, name: str = "experts",
                    function: str = "moe_train_step", context: Optional[Context] = None) -> Module:
    """One training step of a layer of SwiGLU experts over tokens sorted by
    expert (a MoE layer after routing), with ``mxfp8train.grouped_mm``.

    ``group_sizes[e]`` tokens go to expert ``e`` (sizes may be 0 and need
    not be multiples of 32); ``T = sum(group_sizes)``, ``E =
    len(group_sizes)``; the offsets (group ends) are a constant of the
    graph. Arguments (bf16): ``x (T, dim)``, ``w1 (E, hidden, dim)``,
    ``w3 (E, hidden, dim)``, ``w2 (E, dim, hidden)``, ``dO (T, dim)``.
    Results (bf16): ``out (T, dim)``, ``dX (T, dim)``, ``dW1 (E, hidden,
    dim)``, ``dW3 (E, hidden, dim)``, ``dW2 (E, dim, hidden)``. At
    ``([37, 0, 32, 31], 256, 512)`` this is
    ``examples/moe_train_step_small.mlir``.

    Matmul names: ``<name>.{w1,w2,w3}.{fwd,dgrad,wgrad}``. Raises
    ``ValueError`` for bad sizes or a bad name.
    """
    return Module.parse(grouped_experts_text(group_sizes, dim, hidden, name=name, function=function),
                        context)
