# ===- __init__.py - the mxfp8train Python package -------------------------=== #
#
# The public API: IR objects (ir.py), training-graph builders (builders.py),
# the MXFP8 conversion with its report (rewrite.py) and compile-and-run on
# numpy arrays (execution.py), all over the C API of libMXFP8Train-C.so
# through the private extension _mxfp8train.
#
# TODO(compare): compare() (compare.py) binds the C API's
# mxfp8trainCompareFunction, which comes with branch s7-lib; until that is
# merged it raises NotImplementedError.
#
# ===----------------------------------------------------------------------=== #
"""mxfp8train: build training graphs, convert them to MXFP8 with torchao's
recipes, and run them on the CPU or a CUDA GPU.

>>> import mxfp8train as mx
>>> m = mx.builders.swiglu_mlp(tokens=32, dim=256, hidden=512)
>>> converted, report = mx.convert(m, "mxfp8_rceil")
>>> [e.role for e in report.converted][:3]
['forward', 'forward', 'forward']
"""

from . import builders
from .compare import CompareReport, CompareRow, compare
from .execution import DTYPES, cuda_available, run
from .ir import Context, Diagnostic, MLIRError, Module, Operation, default_context
from .rewrite import RECIPES, ConversionReport, MatmulEntry, convert

__all__ = [
    "builders",
    "compare",
    "CompareReport",
    "CompareRow",
    "Context",
    "ConversionReport",
    "convert",
    "cuda_available",
    "default_context",
    "Diagnostic",
    "DTYPES",
    "MatmulEntry",
    "MLIRError",
    "Module",
    "Operation",
    "RECIPES",
    "run",
]

__version__ = "0.1.0"
