# ===- execution.py - compile and run a module on numpy arrays -------------=== #
#
# run(): lower a module for the CPU or a CUDA GPU, JIT-compile it and call
# one of its public functions on numpy arrays (bf16 and fp8 as ml_dtypes
# arrays, i1 as bool), as mxfp8-run does, through mxfp8trainRunFunction.
#
# ===----------------------------------------------------------------------=== #
"""Compile-and-run of modules on numpy arrays (CPU or CUDA)."""

from __future__ import annotations

from typing import List, Sequence, Tuple

import ml_dtypes
import numpy as np

from . import _mxfp8train as _ext
from ._checks import check_bool, check_int, check_str
from .ir import MLIRError, Module

__all__ = ["cuda_available", "run", "DTYPES"]

#: Element kinds of the C API (MXFP8TrainElementKind) and their numpy dtypes.
DTYPES = {
    0: np.dtype(ml_dtypes.bfloat16),
    1: np.dtype(np.float32),
    2: np.dtype(np.float64),
    3: np.dtype(ml_dtypes.float8_e4m3fn),
    4: np.dtype(ml_dtypes.float8_e5m2),
    5: np.dtype(ml_dtypes.float8_e8m0fnu),
    6: np.dtype(np.int32),
    7: np.dtype(np.int64),
    8: np.dtype(np.bool_),
    9: np.dtype(np.int8),
    10: np.dtype(np.int16),
    11: np.dtype(np.float16),
}
_KINDS = {dtype: kind for kind, dtype in DTYPES.items()}
_DEVICES = {"cpu": 0, "cuda": 1}


def cuda_available(gpu: int = 0) -> Tuple[bool, str]:
    """``(True, "")`` when the CUDA driver opens and GPU ``gpu`` exists,
    else ``(False, reason)``."""
    gpu = check_int("gpu", gpu, 0, 2**31, optional=False)
    ok, reason = _ext.cuda_available(gpu)
    return bool(ok), reason


def check_module(module) -> None:
    """TypeError unless ``module`` is an mxfp8train Module."""
    if not isinstance(module, Module):
        raise TypeError("module must be an mxfp8train Module, got %s" % type(module).__name__)


def check_device_options(device, gpu, chip, vectorize, simple_gemm) -> int:
    """The device keywords of run and compare; returns ``gpu`` as an int."""
    if device not in _DEVICES and device != "auto":
        raise ValueError("unknown device %r (expected 'cpu', 'cuda' or 'auto')" % (device,))
    gpu = check_int("gpu", gpu, 0, 2**31, optional=False)
    check_str("chip", chip)
    check_bool("vectorize", vectorize, optional=False)
    check_bool("simple_gemm", simple_gemm, optional=False)
    return gpu


def _to_buffer(index: int, array) -> tuple:
    array = np.asarray(array)
    kind = _KINDS.get(array.dtype)
    if kind is None:
        raise TypeError(
            "input %d: unsupported dtype %s (expected one of %s)"
            % (index, array.dtype, ", ".join(str(d) for d in DTYPES.values()))
        )
    data = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
    return (kind, list(array.shape), data)


def run(
    module: Module,
    entry: str,
    inputs: Sequence,
    device: str = "cpu",
    *,
    gpu: int = 0,
    chip: str = "",
    vectorize: bool = True,
    simple_gemm: bool = False,
) -> List[np.ndarray]:
    """Calls public function ``entry`` of ``module`` on ``inputs`` and
    returns its results, as ``mxfp8-run`` does.

    ``inputs``: one numpy array per argument, in order, with the argument's
    shape and element type: ``ml_dtypes.bfloat16`` for ``bf16``,
    ``ml_dtypes.float8_e4m3fn`` / ``float8_e5m2`` / ``float8_e8m0fnu`` for
    ``f8E4M3FN`` / ``f8E5M2`` / ``f8E8M0FNU``, ``np.float16``,
    ``np.float32``, ``np.float64``, ``np.bool_`` for ``i1``, ``np.int8``,
    ``np.int16``, ``np.int32``, ``np.int64``. Results come back as new
    arrays of the same kinds (bit-exact: bf16 and fp8 values are the bits
    the compiled code wrote).

    ``device``: ``"cpu"`` (JIT; ``vectorize`` tiles and vectorizes),
    ``"cuda"`` (GPU ``gpu``, NVVM ``chip`` such as ``"sm_100a"``, empty for
    the GPU's own; ``simple_gemm`` uses the simple GEMM kernels) or
    ``"auto"`` (CUDA when :func:`cuda_available`, else the CPU). The module
    is lowered from a copy and is not modified.

    Raises ``TypeError`` for an array of another dtype, ``ValueError`` for
    an unknown device, and :class:`MLIRError` when lowering fails (with the
    diagnostics), ``entry`` is not a public function, the inputs do not
    match its signature (``function 'f' takes 2 arguments, 1 given``, shape
    or element type mismatches), or no CUDA GPU is usable.
    """
    check_module(module)
    check_str("entry", entry)
    gpu = check_device_options(device, gpu, chip, vectorize, simple_gemm)
    if device == "auto":
        device = "cuda" if cuda_available(gpu)[0] else "cpu"
    if isinstance(inputs, (str, bytes)) or not hasattr(inputs, "__len__"):
        raise TypeError("inputs must be a sequence of arrays, got %s" % type(inputs).__name__)
    buffers = [_to_buffer(i, a) for i, a in enumerate(inputs)]
    ctx = module.context
    ctx._take_diagnostics()
    error, results = _ext.run_function(
        module._native, entry, buffers, _DEVICES[device], gpu, chip, vectorize, simple_gemm
    )
    if error:
        diags = ctx._take_diagnostics()
        raise MLIRError(error.strip(), [d for d in diags if d.severity == "error"])
    ctx._take_diagnostics()
    return [
        np.frombuffer(data, dtype=np.uint8).view(DTYPES[kind]).reshape(shape).copy()
        for kind, shape, data in results
    ]
