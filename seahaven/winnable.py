"""The shipped lists of winnable deals, one per preset, each deal with its difficulty grade.

    >>> from seahaven.winnable import deal_list, grade_of
    >>> book = deal_list("seahaven")
    >>> number, grade = book.deals[0]
    >>> grade in ("gentle", "tricky", "fiendish")
    True
    >>> grade_of("seahaven", 1) == "gentle"
    True

The lists live in ``seahaven/winnable/PRESET.txt`` and are written by ``scripts/deal_lists.py``.
A deal's grade comes from the number of positions the solver examined before it found the win
(docs/solvability.md says why): at most ``bounds[0]`` is gentle, at most ``bounds[1]`` tricky, more
is fiendish. The bounds are the terciles of the listed deals and are stored in each file, so a
deal solved later (a server refilling its pool) is graded on the same scale.

Grades are deliberately not called easy/medium/hard: those are the app presets (cell counts).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Final, Literal

from .rules import preset as get_preset

Grade = Literal["gentle", "tricky", "fiendish"]
GRADES: Final[tuple[Grade, ...]] = ("gentle", "tricky", "fiendish")
_BY_LETTER: Final[dict[str, Grade]] = {g[0]: g for g in GRADES}


@dataclass(frozen=True)
class DealList:
    """A preset's winnable deals with their grades, and the grade bounds (positions examined)."""

    preset: str
    bounds: tuple[int, int]
    deals: tuple[tuple[int, Grade], ...]
    max_states: int
    comments: tuple[str, ...] = ()

    def grade(self, states: int) -> Grade:
        """The grade of a deal whose win took the solver ``states`` positions."""
        if states <= self.bounds[0]:
            return "gentle"
        return "tricky" if states <= self.bounds[1] else "fiendish"

    def by_grade(self, grade: Grade) -> tuple[int, ...]:
        """The listed deal numbers of one grade."""
        return tuple(n for n, g in self.deals if g == grade)

    def to_text(self) -> str:
        lines = [f"# {c}" for c in self.comments]
        lines.append(f"preset {self.preset}")
        lines.append(f"max_states {self.max_states}")
        lines.append(f"bounds {self.bounds[0]} {self.bounds[1]}")
        lines.extend(f"{n} {g[0]}" for n, g in self.deals)
        return "\n".join(lines) + "\n"

    @classmethod
    def from_text(cls, text: str) -> DealList:
        """Read the file format of ``to_text``; ValueError on a malformed line."""
        comments: list[str] = []
        fields: dict[str, list[str]] = {}
        deals: list[tuple[int, Grade]] = []
        for i, line in enumerate(text.splitlines(), 1):
            if line.startswith("#"):
                comments.append(line[1:].strip())
                continue
            parts = line.split()
            if len(parts) >= 2 and parts[0] in ("preset", "max_states", "bounds"):
                fields[parts[0]] = parts[1:]
            elif len(parts) == 2 and parts[0].isdigit() and parts[1] in _BY_LETTER:
                deals.append((int(parts[0]), _BY_LETTER[parts[1]]))
            else:
                raise ValueError(f"deal list line {i}: cannot read {line!r}")
        try:
            low, high = (int(b) for b in fields["bounds"])
            return cls(fields["preset"][0], (low, high), tuple(deals), int(fields["max_states"][0]), tuple(comments))
        except (KeyError, ValueError) as exc:
            raise ValueError(f"deal list header is incomplete or malformed: {exc}") from None


def list_path(preset: str) -> str:
    """The file name of a preset's list inside the package's ``winnable`` folder."""
    return f"{preset}.txt"


@cache
def deal_list(preset: str) -> DealList:
    """The shipped list of ``preset``; ValueError if the preset has none."""
    name = get_preset(preset).name
    source = resources.files("seahaven").joinpath("winnable", list_path(name))
    if not source.is_file():
        raise ValueError(f"no winnable-deal list is shipped for {name}")
    return DealList.from_text(source.read_text(encoding="utf-8"))


def grade_of(preset: str, states: int) -> Grade:
    """The grade, on ``preset``'s shipped scale, of a win that took ``states`` positions."""
    return deal_list(preset).grade(states)
