"""Rules as data: one frozen ``Rules`` value per variant, and the named presets."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final


class Build(StrEnum):
    """How tableau columns are built down."""

    SUIT = "suit"
    ALTERNATE = "alternate"


class EmptyColumn(StrEnum):
    """What an empty column accepts."""

    ANY = "any"
    KING = "king"  # the top relative rank: a King, or in Penguin the rank below the beak


class Capacity(StrEnum):
    """How many cards a group move may carry.

    SEQUENTIAL: the largest run that could be moved card by card through the free
    cells and the empty columns that may hold the pieces.
    APP: (free cells + 1) x 2^(empty columns), the destination not counted, whatever
    empty columns accept (the Seahaven app's formula).
    UNLIMITED: any run.
    """

    SEQUENTIAL = "sequential"
    APP = "app"
    UNLIMITED = "unlimited"


class Place(StrEnum):
    """Where a dealt card lands."""

    COLUMN = "column"
    CELL = "cell"


Slot = tuple[Place, int]


@dataclass(frozen=True, slots=True)
class Rules:
    """Everything that differs between the variants this library plays."""

    name: str
    columns: int
    cells: int
    layout: tuple[Slot, ...]
    """Where each card goes, in deal order (after Penguin's beak cards are pulled out)."""
    build: Build = Build.SUIT
    empty_column: EmptyColumn = EmptyColumn.KING
    capacity: Capacity = Capacity.SEQUENTIAL
    foundation_takeback: bool = False
    undo_limit: int | None = None
    """Most undos a player may make in a row; None for no limit, 0 for none."""
    beak: bool = False
    """Penguin: the first card dealt sets the foundation base rank, its three mates start home."""
    ms_deal_limit: int = 32001
    """Deal numbers below this use Microsoft's shuffle; see docs/deals.md.

    32001 by default: PySolFC deals its games 1 to 32000 (inclusive) with Microsoft's
    generator, so Seahaven #N is PySolFC's game #N for every N up to 32000.
    """
    tag: str = ""
    """Two characters naming the preset inside a deal code."""
    title: str = ""


def round_robin(columns: int, count: int) -> tuple[Slot, ...]:
    """``count`` cards dealt left to right, one per column, row after row."""
    return tuple((Place.COLUMN, i % columns) for i in range(count))


def cells(*indices: int) -> tuple[Slot, ...]:
    return tuple((Place.CELL, i) for i in indices)


_SEAHAVEN_LAYOUT = round_robin(10, 50) + cells(0, 1)
_FREECELL_LAYOUT = round_robin(8, 52)


def _seahaven(name: str, tag: str, title: str, **changes: object) -> Rules:
    fields: dict[str, object] = {
        "name": name,
        "columns": 10,
        "cells": 4,
        "layout": _SEAHAVEN_LAYOUT,
        "tag": tag,
        "title": title,
    }
    fields.update(changes)
    return Rules(**fields)  # type: ignore[arg-type]


PRESETS: Final[dict[str, Rules]] = {
    r.name: r
    for r in (
        _seahaven("seahaven", "ST", "Seahaven Towers"),
        _seahaven(
            "seahaven-relaxed",
            "SR",
            "Seahaven Towers, relaxed (any card into an empty column)",
            empty_column=EmptyColumn.ANY,
        ),
        _seahaven(
            "seahaven-unlimited",
            "SN",
            "Seahaven Towers, runs of any length",
            capacity=Capacity.UNLIMITED,
        ),
        _seahaven("seahaven-3cells", "S3", "Seahaven Towers, 3 cells", cells=3),
        _seahaven(
            "seahaven-easy",
            "E4",
            "Seahaven app, Easy (4 cells)",
            capacity=Capacity.APP,
            foundation_takeback=True,
            undo_limit=100,
        ),
        _seahaven(
            "seahaven-medium",
            "M2",
            "Seahaven app, Medium (2 cells)",
            cells=2,
            capacity=Capacity.APP,
            foundation_takeback=True,
            undo_limit=100,
        ),
        _seahaven(
            "seahaven-hard",
            "H1",
            "Seahaven app, Hard (1 cell)",
            cells=1,
            layout=round_robin(10, 50) + cells(0) + ((Place.COLUMN, 1),),
            capacity=Capacity.APP,
            foundation_takeback=True,
            undo_limit=100,
        ),
        Rules(
            name="freecell",
            columns=8,
            cells=4,
            layout=_FREECELL_LAYOUT,
            build=Build.ALTERNATE,
            empty_column=EmptyColumn.ANY,
            undo_limit=60,
            ms_deal_limit=2**31,
            tag="FC",
            title="FreeCell",
        ),
        Rules(
            name="bakers-game",
            columns=8,
            cells=4,
            layout=_FREECELL_LAYOUT,
            empty_column=EmptyColumn.ANY,
            tag="BG",
            title="Baker's Game",
        ),
        Rules(
            name="eight-off",
            columns=8,
            cells=8,
            layout=round_robin(8, 48) + cells(0, 2, 4, 6),
            tag="E8",
            title="Eight Off",
        ),
        Rules(
            name="penguin",
            columns=7,
            cells=7,
            layout=round_robin(7, 49),
            beak=True,
            tag="PG",
            title="Penguin",
        ),
    )
}


def preset(name: str) -> Rules:
    """The preset of this name; ValueError listing the names when unknown."""
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown preset {name!r}; presets: {', '.join(PRESETS)}") from None
