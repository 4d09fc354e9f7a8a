"""Numbers and the race clock in the form of the locale in use (Babel's CLDR data: no system locale)."""

from __future__ import annotations

from babel.numbers import format_decimal, format_percent, get_decimal_symbol

from . import current


def number(value: float) -> str:
    """``1234`` -> 1,234 (en), 1 234 (fr), 1.234 (it, nl)."""
    return format_decimal(value, locale=current().locale)


def percent(value: float) -> str:
    """``0.5`` -> 50% (en), 50 % (fr)."""
    return format_percent(value, locale=current().locale)


def decimal_mark() -> str:
    return get_decimal_symbol(current().locale)
