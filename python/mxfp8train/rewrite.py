# ===- rewrite.py - convert a module to MXFP8 with a torchao recipe --------=== #
#
# convert(): mxfp8trainConvertModule on a copy of the module, with the recipe
# given by torchao name or by the fields of torchao's MXFP8TrainingOpConfig,
# and the conversion report (every matmul: converted with its role, kept in
# high precision, or skipped and why).
#
# ===----------------------------------------------------------------------=== #
"""MXFP8 conversion of training graphs (torchao recipes) and its report."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, List, Optional, Tuple

import numpy as np

from . import _mxfp8train as _ext
from ._checks import check_bool as _check_bool
from ._checks import check_int as _check_int
from ._checks import check_str as _check_str
from .ir import MLIRError, Module

__all__ = ["ConversionReport", "MatmulEntry", "convert", "RECIPES"]

#: The torchao recipe names the rewrite (and compare()) knows: the MX ones
#: of ``MXFP8TrainingOpConfig`` and the Float8 ones of
#: ``Float8TrainingOpConfig`` (SPEC-float8 §4).
RECIPES = (
    "mxfp8_rceil",
    "mxfp8_rceil_wgrad_with_hp",
    "mxfp8_emulated_rceil",
    "float8_tensorwise",
    "float8_rowwise",
    "float8_rowwise_with_gw_hp",
    "fp8_rowwise",
)

_SCALE_MODES = {"floor": 0, "rceil": 1, "ceil": 2, "even": 3}
_KERNEL_PREFERENCES = {"auto": 0, "emulated": 1}


@dataclass(frozen=True)
class MatmulEntry:
    """What the rewrite did with one matmul.

    ``name``: the matmul's ``NameLoc`` name (``"mlp.w1.fwd"``) or ``""``;
    ``location``: its printed location; ``op_name``: ``"linalg.matmul"``,
    ``"linalg.batch_matmul"`` or ``"mxfp8train.grouped_mm"``;
    ``decision``: ``"converted"``, ``"kept_high_precision"`` (a wgrad under
    ``wgrad_with_hp``), ``"skipped"`` or ``"invalid"``; ``role``:
    ``"forward"``, ``"dgrad"``, ``"wgrad"`` (``""`` when skipped or
    invalid); ``reason``: the rewrite's remark when converted, otherwise why
    not; ``batch, m, n, k``: GEMM sizes of converted matmuls (``batch`` is
    the number of experts of a grouped GEMM, 0 unbatched), else 0.
    """

    name: str
    location: str
    op_name: str
    decision: str
    role: str
    reason: str
    batch: int
    m: int
    n: int
    k: int


@dataclass(frozen=True)
class ConversionReport:
    """The report of :func:`convert`: the recipe used (its
    ``#mxfp8train.recipe<...>`` text) and one :class:`MatmulEntry` per
    candidate matmul, in program order."""

    recipe: str
    entries: Tuple[MatmulEntry, ...]

    def _with(self, decision: str) -> List[MatmulEntry]:
        return [e for e in self.entries if e.decision == decision]

    @property
    def converted(self) -> List[MatmulEntry]:
        """The converted matmuls."""
        return self._with("converted")

    @property
    def kept_high_precision(self) -> List[MatmulEntry]:
        """The wgrads kept in bf16 under ``wgrad_with_hp``."""
        return self._with("kept_high_precision")

    @property
    def skipped(self) -> List[MatmulEntry]:
        """The matmuls left alone (filters, shapes, element types)."""
        return self._with("skipped")

    def entry(self, name: str) -> MatmulEntry:
        """The entry of the matmul named ``name``; ``KeyError`` if none."""
        for e in self.entries:
            if e.name == name:
                return e
        raise KeyError(name)

    def __str__(self) -> str:
        lines = ["recipe: %s" % self.recipe]
        for e in self.entries:
            what = e.decision + (" (%s)" % e.role if e.role else "")
            lines.append("  %-24s %-22s %-32s %s" % (e.name or e.location, e.op_name, what, e.reason))
        return "\n".join(lines)


def _enum_name(value: Any) -> str:
    """``"rceil"`` from ``"rceil"``, ``"RCEIL"`` or an enum member such as
    torchao's ``ScaleCalculationMode.RCEIL``."""
    if hasattr(value, "name") and not isinstance(value, str):
        value = value.name
    return str(value).lower()


def _dtype_name(value: Any, allowed: Tuple[str, ...], what: str) -> str:
    """The MLIR type of a dtype given as MLIR text (``"bf16"``), a numpy or
    ml_dtypes dtype, or a torch dtype (``torch.bfloat16``), one of
    ``allowed``."""
    if isinstance(value, type):
        # A scalar type: np.float32, ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn.
        try:
            value = np.dtype(value)
        except TypeError:
            pass
    text = str(getattr(value, "name", value) if not isinstance(value, str) else value)
    text = text.replace("torch.", "").lower()
    table = {
        "bf16": "bf16",
        "bfloat16": "bf16",
        "f32": "f32",
        "float32": "f32",
        "f8e4m3fn": "f8E4M3FN",
        "float8_e4m3fn": "f8E4M3FN",
        "f8e5m2": "f8E5M2",
        "float8_e5m2": "f8E5M2",
    }
    if text not in table or table[text] not in allowed:
        raise ValueError(
            "unsupported %s %r (expected %s)" % (what, value, " or ".join(allowed))
        )
    return table[text]


def convert(
    module: Module,
    recipe: str = "mxfp8_rceil",
    *,
    scale_calculation_mode: Any = None,
    wgrad_with_hp: Optional[bool] = None,
    pad_token_groups_for_grouped_mm: Optional[bool] = None,
    token_group_alignment: Optional[int] = None,
    kernel_preference: Any = None,
    out_dtype: Any = None,
    elem_dtype: Any = None,
    min_size: int = 0,
    exclude: Iterable[str] = (),
) -> Tuple[Module, ConversionReport]:
    """Converts the bf16 matmuls of ``module`` to MXFP8, as the pass
    ``mxfp8train-rewrite-matmuls`` does, and reports what it did.

    ``module`` is not modified: the conversion runs on a copy, returned with
    the :class:`ConversionReport`. Candidates are ``linalg.matmul`` /
    ``linalg.batch_matmul`` on bf16 or f32 operands (a zero-filled
    accumulator is dropped, a broadcast 1-D bias becomes the GEMM's bias,
    any other accumulator is added in f32 after the GEMM) and
    ``mxfp8train.grouped_mm`` (token groups given by ``offs``); their roles
    (forward, dgrad, wgrad) are inferred from the graph (docs/rewrite.md).

    Recipe: ``recipe`` is a torchao name (one of :data:`RECIPES`) or the
    body of a ``#mxfp8train.recipe<...>`` (``"scale_calculation_mode =
    floor"``). The keyword fields mirror torchao's
    ``MXFP8TrainingOpConfig`` and override the recipe's:
    ``scale_calculation_mode`` (``"floor"``, ``"rceil"``, ``"ceil"``,
    ``"even"`` or an enum member with that name), ``wgrad_with_hp``,
    ``pad_token_groups_for_grouped_mm``, ``token_group_alignment`` (32 or
    128), ``kernel_preference`` (``"auto"``, ``"emulated"``), ``out_dtype``
    (bf16 or f32: ``"bf16"``, ``ml_dtypes.bfloat16``, ``torch.float32``,
    ...) and ``elem_dtype`` (``f8E4M3FN`` or ``f8E5M2``).

    Filters: matmuls with M, N or K below ``min_size`` are skipped, and so
    are those whose location holds a ``NameLoc`` name containing one of the
    ``exclude`` strings.

    Raises ``TypeError`` for an argument of the wrong type (a flag that is
    not a bool, a size that is not an int, a recipe that is not a str),
    ``ValueError`` for an unknown field value or a size out of range, and
    :class:`MLIRError` (with the diagnostics) for an invalid recipe or an
    invalid matmul (e.g. a bad ``mxfp8train.role``; the error's ``report``
    attribute then holds the report of the others).
    """
    if not isinstance(module, Module):
        raise TypeError("module must be an mxfp8train Module, got %s" % type(module).__name__)
    if not isinstance(recipe, str):
        raise TypeError("recipe must be a str (a torchao name or a recipe body), got %r" % (recipe,))
    _check_str("recipe", recipe)
    wgrad_with_hp = _check_bool("wgrad_with_hp", wgrad_with_hp)
    pad_token_groups_for_grouped_mm = _check_bool(
        "pad_token_groups_for_grouped_mm", pad_token_groups_for_grouped_mm
    )
    token_group_alignment = _check_int("token_group_alignment", token_group_alignment, 1)
    if token_group_alignment not in (None, 32, 128):
        raise ValueError(
            "token_group_alignment must be 32 or 128, got %d" % token_group_alignment
        )
    min_size = _check_int("min_size", min_size, 0, optional=False)
    scale_mode = None
    if scale_calculation_mode is not None:
        name = _enum_name(scale_calculation_mode)
        if name not in _SCALE_MODES:
            raise ValueError(
                "unknown scale_calculation_mode %r (expected one of %s)"
                % (scale_calculation_mode, ", ".join(_SCALE_MODES))
            )
        scale_mode = _SCALE_MODES[name]
    preference = None
    if kernel_preference is not None:
        name = _enum_name(kernel_preference)
        if name not in _KERNEL_PREFERENCES:
            raise ValueError(
                "unknown kernel_preference %r (expected one of %s)"
                % (kernel_preference, ", ".join(_KERNEL_PREFERENCES))
            )
        preference = _KERNEL_PREFERENCES[name]
    if isinstance(exclude, str):
        exclude = [exclude]
    if isinstance(exclude, (bytes, bytearray)) or not hasattr(exclude, "__iter__"):
        raise TypeError("exclude must be a str or an iterable of str, got %r" % (exclude,))
    exclude = list(exclude)
    for pattern in exclude:
        if not isinstance(pattern, str):
            raise TypeError("exclude must hold strings, got %r" % (pattern,))
        _check_str("exclude", pattern)
        if not pattern:
            raise ValueError("exclude patterns must be non-empty (an empty one would match every name)")

    converted = module.clone()
    ctx = module.context
    ctx._take_diagnostics()
    ok, recipe_text, entries = _ext.convert_module(
        converted._native,
        recipe,
        scale_mode,
        wgrad_with_hp,
        None if out_dtype is None else _dtype_name(out_dtype, ("bf16", "f32"), "out_dtype"),
        pad_token_groups_for_grouped_mm,
        token_group_alignment,
        preference,
        None
        if elem_dtype is None
        else _dtype_name(elem_dtype, ("f8E4M3FN", "f8E5M2"), "elem_dtype"),
        min_size,
        exclude,
        False,
    )
    report = ConversionReport(
        recipe_text,
        tuple(
            MatmulEntry(name, loc, op, decision, role, reason, *sizes)
            for name, loc, op, decision, role, reason, sizes in entries
        ),
    )
    if not ok:
        summary = "invalid recipe '%s'" % recipe if not recipe_text else "conversion failed"
        error = ctx._error(summary)
        error.report = report
        raise error
    return converted, report
