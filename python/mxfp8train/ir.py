# ===- ir.py - contexts, modules, operations and MLIR errors ---------------=== #
#
# The IR side of the package over the private extension: Context, Module
# (parse, print, verify, clone, walk, pass pipelines), read-only Operation
# snapshots, and MLIRError, the exception that carries MLIR's diagnostics
# with their locations.
#
# ===----------------------------------------------------------------------=== #
"""Contexts, modules and operations; MLIR diagnostics as exceptions."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Tuple

from . import _mxfp8train as _ext
from ._checks import check_str

__all__ = [
    "Context",
    "Diagnostic",
    "MLIRError",
    "Module",
    "Operation",
    "default_context",
]


@dataclass(frozen=True)
class Diagnostic:
    """One diagnostic MLIR emitted.

    ``severity`` is ``"error"``, ``"warning"``, ``"note"`` or ``"remark"``;
    ``location`` the printed location (``loc("mlp.w1.fwd")``,
    ``loc("<name>":3:7)``); ``notes`` the attached notes.
    """

    severity: str
    location: str
    message: str
    notes: Tuple["Diagnostic", ...] = ()

    @staticmethod
    def _from_tuple(t) -> "Diagnostic":
        severity, location, message, notes = t
        return Diagnostic(
            severity, location, message, tuple(Diagnostic._from_tuple(n) for n in notes)
        )

    def __str__(self) -> str:
        text = "%s: %s: %s" % (self.location, self.severity, self.message)
        for note in self.notes:
            text += "\n  " + str(note).replace("\n", "\n  ")
        return text


class MLIRError(Exception):
    """An MLIR operation failed.

    ``str(error)`` is the summary followed by every diagnostic as
    ``<location>: <severity>: <message>``; ``error.diagnostics`` holds them
    as :class:`Diagnostic` objects.
    """

    def __init__(self, summary: str, diagnostics: List[Diagnostic] = ()):
        self.summary = summary
        self.diagnostics = list(diagnostics)
        lines = [summary] + [str(d) for d in self.diagnostics]
        super().__init__("\n".join(lines))


class Context:
    """An MLIR context with the mxfp8train dialect, every upstream dialect
    and every pass (ours and upstream's) registered.

    Diagnostics are collected, not printed: a failing call raises
    :class:`MLIRError` with them. A context is not thread-safe; use one per
    thread.
    """

    def __init__(self):
        self._native = _ext.Context()

    def _take_diagnostics(self) -> List[Diagnostic]:
        return [Diagnostic._from_tuple(t) for t in self._native.take_diagnostics()]

    def _error(self, summary: str) -> MLIRError:
        return MLIRError(summary, self._take_diagnostics())


_default = threading.local()


def default_context() -> Context:
    """The context used when none is given (one per thread)."""
    ctx = getattr(_default, "context", None)
    if ctx is None:
        ctx = Context()
        _default.context = ctx
    return ctx


@dataclass(frozen=True)
class Operation:
    """A read-only snapshot of one operation, taken by :meth:`Module.walk`.

    ``name`` (``"linalg.matmul"``), ``location`` (printed), ``loc_name``
    (the first ``NameLoc`` name, e.g. ``"mlp.w1.fwd"``, or ``""``),
    ``attributes`` (name -> Python value: bool, int, float, str, list,
    dict; types and other attributes as their text), ``operand_types`` and
    ``result_types`` (type text such as ``"tensor<32x256xbf16>"``).
    Snapshots do not change when the module does.
    """

    name: str
    location: str
    loc_name: str
    attributes: Dict[str, Any] = field(default_factory=dict)
    operand_types: Tuple[str, ...] = ()
    result_types: Tuple[str, ...] = ()


class Module:
    """A ``builtin.module``.

    Create one with :meth:`Module.parse` or the builders of
    :mod:`mxfp8train.builders`. ``str(module)`` is its text.
    """

    def __init__(self, native, context: Context):
        self._native = native
        self.context = context

    @staticmethod
    def parse(text: str, context: Optional[Context] = None) -> "Module":
        """Parses MLIR text (a module, or ops that become its body).

        Raises :class:`MLIRError` with the parser's diagnostics (located at
        ``loc("-":line:col)`` in ``text``) when the text is invalid.
        """
        if context is None:
            context = default_context()
        elif not isinstance(context, Context):
            raise TypeError("context must be an mxfp8train Context or None, got %r" % (context,))
        check_str("text", text)
        context._take_diagnostics()
        native = _ext.Module.parse(context._native, text)
        if native is None:
            raise context._error("failed to parse the module")
        return Module(native, context)

    def __str__(self) -> str:
        return self._native.print()

    def print(self, generic: bool = False, debug_info: bool = False) -> str:
        """The module's text; ``generic`` prints the generic op form,
        ``debug_info`` the locations."""
        return self._native.print(generic, debug_info)

    def verify(self) -> None:
        """Raises :class:`MLIRError` with the verifier's diagnostics when the
        module does not verify."""
        self.context._take_diagnostics()
        if not self._native.verify():
            raise self.context._error("the module does not verify")

    def clone(self) -> "Module":
        """A deep copy in the same context."""
        return Module(self._native.clone(), self.context)

    def walk(self) -> Iterator[Operation]:
        """Every nested operation (not the module itself), in pre-order, as
        :class:`Operation` snapshots."""
        for name, loc, loc_name, attrs, operands, results in self._native.walk():
            yield Operation(name, loc, loc_name, attrs, tuple(operands), tuple(results))

    def operations(self, name: Optional[str] = None) -> List[Operation]:
        """:meth:`walk` as a list, only ops called ``name`` when given."""
        return [op for op in self.walk() if name is None or op.name == name]

    def run_pipeline(self, pipeline: str) -> "Module":
        """Runs a pass pipeline on the module in place and returns it.

        ``pipeline`` is ``mlir-opt`` pass pipeline text, either anchored
        (``"builtin.module(canonicalize,cse)"``) or a bare pass list
        (``"canonicalize,cse"``, anchored on the module). Every upstream pass
        and every mxfp8train pass and pipeline
        (``mxfp8train-rewrite-matmuls``, ``mxfp8train-lower-to-cpu``, ...)
        may be named. Raises :class:`MLIRError` when the text is invalid or
        a pass fails (with the pass's diagnostics); the module may then be
        partly transformed.
        """
        if not isinstance(pipeline, str):
            raise TypeError("pipeline must be a str, got %r" % (pipeline,))
        text = pipeline.strip()
        if not text.startswith("builtin.module("):
            text = "builtin.module(%s)" % text
        self.context._take_diagnostics()
        error = self._native.run_pipeline(text)
        if error == "failed":
            raise self.context._error("pass pipeline '%s' failed" % pipeline)
        if error:
            diags = self.context._take_diagnostics()
            raise MLIRError("invalid pass pipeline '%s': %s" % (pipeline, error.strip()), diags)
        return self
