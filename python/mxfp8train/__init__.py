# ===- __init__.py - the mxfp8train Python package -------------------------=== #
#
# The public API: IR objects (ir.py), training-graph builders (builders.py),
# the MXFP8 conversion with its report (rewrite.py) and compile-and-run on
# numpy arrays (execution.py), all over the C API of libMXFP8Train-C.so
# through the private extension _mxfp8train.
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

try:
    from . import _mxfp8train  # noqa: F401
except ImportError as _error:
    # The extension links to the libMXFP8Train-C.so of the build (or install)
    # it was installed from (docs/python.md): name that, not only the loader.
    raise ImportError(
        "mxfp8train cannot load its extension (%s). The package uses the "
        "libMXFP8Train-C.so of the build or install it was installed from; "
        "after moving or deleting that build, reinstall the package: "
        "python3 -m pip install --no-build-isolation ./python "
        "(docs/python.md, Install)" % (_error,)
    ) from _error

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
