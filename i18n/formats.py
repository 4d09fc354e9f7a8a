"""Numbers, durations and dates in the form of the locale in use (Babel's CLDR data: no system locale)."""

from __future__ import annotations

import datetime as dt

from babel.dates import format_date as babel_date
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


def stopwatch(ms: int, *, tenths: bool = True) -> str:
    """A race time as a stopwatch shows it: ``1:05.3`` (en), ``1:05,3`` (fr, it, nl)."""
    ms = max(0, ms)
    minutes, rest = divmod(ms, 60_000)
    seconds = rest // 1000
    if not tenths:
        return f"{minutes}:{seconds:02d}"
    return f"{minutes}:{seconds:02d}{decimal_mark()}{rest % 1000 // 100}"


def date(day: dt.date) -> str:
    """A calendar day in the locale's medium form: Dec 2, 2026 (en), 2 déc. 2026 (fr)."""
    return babel_date(day, format="medium", locale=current().locale)
