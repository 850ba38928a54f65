"""Checks of option values shared by every metric's configuration: numbers (numpy scalars
accepted, bools refused, no overflow) and mappings (non-empty, string keys, finite numbers)."""
from __future__ import annotations

import decimal
import math
import numbers
from typing import Any, Mapping


def short_repr(value: Any) -> str:
    """``repr(value)`` cut to 60 characters (a 400-digit integer is not printed whole)."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def is_finite_number(value: Any) -> bool:
    """True for a real number (numpy scalars and Decimal included, not a bool) that is finite
    as a float.

    >>> is_finite_number(2), is_finite_number(10**400), is_finite_number(float("nan")), is_finite_number(True)
    (True, False, False, False)
    """
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, decimal.Decimal)):  # np.bool_ is no Real
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:  # an integer or Fraction beyond the float range
        return False


def number_value(name: str, value: Any, base: type, range_text: str = "") -> Any:
    """An ``int`` or ``float`` option's value as that type, or one ``ValueError`` naming the
    option: any real number (numpy scalars included), never a bool; an integer option takes a
    float only without a fraction.

    >>> import numpy as np
    >>> number_value("batch_size", np.int64(8), int), number_value("gamma", np.float32(0.5), float)
    (8, 0.5)
    >>> number_value("gamma", 10**400, float, "in [0, 100]")
    Traceback (most recent call last):
    ...
    ValueError: gamma must be in [0, 100], got a number beyond the float range
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number, got {short_repr(value)}")
    if isinstance(value, numbers.Integral):
        value = int(value)
        if base is int:
            return value
    try:
        number = float(value)
    except OverflowError:
        raise ValueError(f"{name} must be {range_text or 'a finite number'}, got a number beyond the float "
                         "range") from None
    if not math.isfinite(number):
        raise ValueError(f"{name} must be a finite number, got {number}")
    if base is int:
        if not number.is_integer():
            raise ValueError(f"{name} must be an integer, got {short_repr(value)}")
        return int(number)
    return number


def mapping_value(name: str, value: Mapping, numeric: bool = False) -> Mapping:
    """A mapping option's value: not empty, string keys, and with ``numeric`` (the option is
    declared ``Mapping[str, float]``) each value a finite real number; else one ``ValueError``
    naming the option and the key."""
    if not value:
        raise ValueError(f"{name}: the mapping has no entries; give at least one")
    for key, item in value.items():
        if not isinstance(key, str):
            raise ValueError(f"{name}: keys must be strings, got {short_repr(key)} ({type(key).__name__})")
        if numeric and not is_finite_number(item):
            raise ValueError(f"{name}: the value of {key[:60]!r} must be a finite number, got {short_repr(item)}")
    return value
