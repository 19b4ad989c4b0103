# ===- _checks.py - argument checks shared by the package's functions -----=== #
#
# Bad Python values raise TypeError (wrong type) or ValueError (a value out
# of range) naming the argument, before anything reaches the extension,
# whose own messages (nanobind's "incompatible function arguments") name
# neither the argument nor the rule.
#
# ===----------------------------------------------------------------------=== #
"""Argument checks (private)."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np


def check_bool(name: str, value: Any, optional: bool = True) -> Optional[bool]:
    """``value`` (None when ``optional``, or a Python or numpy bool) as a
    bool; a string such as ``"false"`` is a TypeError, not a true value."""
    if value is None and optional:
        return None
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError("%s must be a bool, got %r" % (name, value))


def check_int(name: str, value: Any, minimum: int, limit: int = 2**63,
              optional: bool = True) -> Optional[int]:
    """``value`` (None when ``optional``, or an int or numpy integer that is
    not a bool) as an int in [minimum, limit)."""
    if value is None and optional:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError("%s must be an int, got %r" % (name, value))
    if not minimum <= int(value) < limit:
        raise ValueError("%s must be in [%d, %s), got %d"
                         % (name, minimum, "2**%d" % (limit.bit_length() - 1)
                            if limit & (limit - 1) == 0 else limit, value))
    return int(value)


def check_str(name: str, value: Any) -> str:
    """``value`` as a str that UTF-8 can encode (no lone surrogates)."""
    if not isinstance(value, str):
        raise TypeError("%s must be a str, got %r" % (name, value))
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ValueError("%s is not valid UTF-8 text: %s" % (name, error)) from None
    return value
