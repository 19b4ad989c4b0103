# ===- compare.py - the converted function against the original ------------=== #
#
# compare(): mxfp8-run --compare through the C API's mxfp8trainCompareFunction
# (SQNR per result and per matmul, against the bars of SPEC §8). The
# comparison itself is C++; this file only maps arguments and the report.
#
# ===----------------------------------------------------------------------=== #
"""Compare a function with its MXFP8 conversion (SQNR per result/matmul)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple

from . import _mxfp8train as _ext
from ._checks import check_int, check_str
from .execution import _DEVICES, check_device_options, check_module, cuda_available
from .ir import MLIRError, Module

__all__ = ["CompareReport", "CompareRow", "compare"]


@dataclass(frozen=True)
class CompareRow:
    """One result or matmul: its ``name``, the ``sqnr`` in dB of the
    converted run against the original (``inf`` when equal, ``nan`` for a
    matmul that was not converted), the ``bar`` in dB that applies (``nan``
    when none is checked) and whether it ``passed``."""

    name: str
    sqnr: float
    bar: float
    passed: bool


@dataclass(frozen=True)
class CompareReport:
    """The report of :func:`compare`: ``passed`` when no checked row is
    below its bar; ``results`` (one row per function result) and
    ``matmuls`` (one row per matmul, converted alone)."""

    passed: bool
    results: Tuple[CompareRow, ...]
    matmuls: Tuple[CompareRow, ...]


def compare(
    module: Module,
    entry: str = "",
    recipe: str = "mxfp8_rceil",
    device: str = "cpu",
    *,
    seed: int = 0,
    gpu: int = 0,
    chip: str = "",
    vectorize: bool = True,
    simple_gemm: bool = False,
) -> CompareReport:
    """Runs public function ``entry`` of ``module`` (``""``: the only public
    function) as written and after its conversion by ``recipe`` (a torchao
    name or a recipe body) on the same inputs, generated from ``seed`` as
    ``mxfp8-run --seed`` generates them, and reports the SQNR of every
    result and of every matmul converted alone, as ``mxfp8-run --compare``.
    ``module`` is not modified. ``device`` and the keywords are those of
    :func:`mxfp8train.run`.

    A missed bar is not an error (``report.passed`` is False). Raises
    :class:`MLIRError` when lowering, conversion or a run fails.
    """
    check_module(module)
    check_str("entry", entry)
    check_str("recipe", recipe)
    seed = check_int("seed", seed, 0, 2**64, optional=False)
    gpu = check_device_options(device, gpu, chip, vectorize, simple_gemm)
    if device == "auto":
        device = "cuda" if cuda_available(gpu)[0] else "cpu"
    ctx = module.context
    ctx._take_diagnostics()
    error, passed, results, matmuls = _ext.compare_function(
        module._native, entry, recipe, _DEVICES[device], gpu, chip, vectorize, simple_gemm, seed
    )
    diags = ctx._take_diagnostics()
    if error:
        raise MLIRError(error.strip(), [d for d in diags if d.severity == "error"])
    return CompareReport(
        bool(passed),
        tuple(CompareRow(*r) for r in results),
        tuple(CompareRow(*r) for r in matmuls),
    )
