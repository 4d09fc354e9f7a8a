"""Field specs: strict validation of decoded msgpack values against declared types.

A message is a frozen dataclass whose fields carry a ``Spec`` in their metadata
(declare them with ``field_of``). ``Message.from_body`` refuses unknown keys, missing
keys, wrong types, out-of-range numbers and over-long strings with ``bad-field`` and
the field's path, so the server never acts on a value it has not checked.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Self

from .errors import ErrorCode, ProtocolError

_NO_DEFAULT: Any = dataclasses.MISSING


def _shown(value: object) -> str:
    """A short rendering of a client's value for an error message (never the whole of it)."""
    if isinstance(value, dict | list | tuple):
        return f"{'a map' if isinstance(value, dict) else 'an array'} of {len(value)}"
    shown = repr(value[:40] if isinstance(value, str | bytes) else value)
    return shown if len(shown) <= 40 else shown[:37] + "..."


def _bad(where: str, expected: str, value: object) -> ProtocolError:
    shown = _shown(value)
    return ProtocolError(ErrorCode.BAD_FIELD, f"{where}: expected {expected}, got {shown}")


class Spec:
    """Checks one value; returns it (possibly converted) or raises ProtocolError."""

    def check(self, value: object, where: str, strict: bool = True) -> object:
        """``strict``: refuse unknown keys in nested messages (False: ignore them)."""
        raise NotImplementedError

    def dump(self, value: object) -> object:
        return value


class Str(Spec):
    def __init__(self, lo: int = 0, hi: int = 64, choices: Sequence[str] | None = None) -> None:
        self.lo, self.hi, self.choices = lo, hi, tuple(choices) if choices is not None else None

    def check(self, value: object, where: str, strict: bool = True) -> object:
        if not isinstance(value, str):
            raise _bad(where, "a string", value)
        if not self.lo <= len(value) <= self.hi:
            raise _bad(where, f"a string of {self.lo} to {self.hi} characters", value)
        if self.choices is not None and value not in self.choices:
            raise _bad(where, f"one of {', '.join(self.choices)}", value)
        return value


class Int(Spec):
    def __init__(self, lo: int, hi: int) -> None:
        self.lo, self.hi = lo, hi

    def check(self, value: object, where: str, strict: bool = True) -> object:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _bad(where, "an integer", value)
        if not self.lo <= value <= self.hi:
            raise _bad(where, f"an integer from {self.lo} to {self.hi}", value)
        return value


class Bool(Spec):
    def check(self, value: object, where: str, strict: bool = True) -> object:
        if not isinstance(value, bool):
            raise _bad(where, "true or false", value)
        return value


class Opt(Spec):
    """The inner spec, or nil."""

    def __init__(self, inner: Spec) -> None:
        self.inner = inner

    def check(self, value: object, where: str, strict: bool = True) -> object:
        return None if value is None else self.inner.check(value, where, strict)

    def dump(self, value: object) -> object:
        return None if value is None else self.inner.dump(value)


class ListOf(Spec):
    def __init__(self, inner: Spec, hi: int = 64) -> None:
        self.inner, self.hi = inner, hi

    def check(self, value: object, where: str, strict: bool = True) -> object:
        if not isinstance(value, list | tuple):
            raise _bad(where, "an array", value)
        if len(value) > self.hi:
            raise _bad(where, f"at most {self.hi} items", f"{len(value)} items")
        return tuple(self.inner.check(v, f"{where}[{i}]", strict) for i, v in enumerate(value))

    def dump(self, value: object) -> object:
        assert isinstance(value, tuple | list)
        return [self.inner.dump(v) for v in value]


class Obj(Spec):
    """A nested message."""

    def __init__(self, cls: type[Message]) -> None:
        self.cls = cls

    def check(self, value: object, where: str, strict: bool = True) -> object:
        return self.cls.from_body(value, where, strict=strict)

    def dump(self, value: object) -> object:
        assert isinstance(value, Message)
        return value.to_body()


def field_of(spec: Spec, default: Any = _NO_DEFAULT, *, omit_default: bool = False) -> Any:
    """Declare a message field with its spec (and default, which makes it optional).

    ``omit_default``: the field is left out of the frame while it holds its default, so a field
    added later does not change the bytes of the frames that do not use it."""
    return dataclasses.field(default=default, metadata={"spec": spec, "omit": omit_default})


class _Field:
    """One message field as the codec needs it, read once per class from its dataclass field."""

    __slots__ = ("default", "dump", "name", "omit", "path", "required", "spec")

    def __init__(self, f: dataclasses.Field[Any]) -> None:
        self.name: str = f.name
        self.path = f"body.{f.name}"
        """Where the field is in a top-level body, for error messages."""
        self.spec: Spec = f.metadata["spec"]
        self.required = f.default is dataclasses.MISSING
        self.default: Any = f.default
        self.omit: bool = bool(f.metadata.get("omit"))
        """Left out of the frame while it holds its default (``field_of(omit_default=True)``)."""
        # Values of plain specs go on the wire as they are: no dump call per encode.
        self.dump = None if _plain(self.spec) else self.spec.dump


def _plain(spec: Spec) -> bool:
    """Whether ``spec.dump`` returns its value unchanged (no nested message or list to convert)."""
    if isinstance(spec, Opt):
        return _plain(spec.inner)
    return type(spec).dump is Spec.dump


class _Shape:
    """A message class's fields as the codec needs them, read once per class on its first encode
    or decode (``dataclasses.fields`` per message showed on the move path's profile)."""

    __slots__ = ("cut", "fields", "fixes", "head", "head_fixes", "names", "order", "tail", "values")

    def __init__(self, cls: type[Message]) -> None:
        self.fields = tuple(_Field(f) for f in dataclasses.fields(cls))
        self.names = frozenset(f.name for f in self.fields)
        self.order = tuple(f.name for f in self.fields)
        self.values = _values_of(self.order)
        self.fixes = tuple(f for f in self.fields if f.omit or f.dump is not None)
        """The fields whose value does not go on the wire as it is (left out at their default, or
        dumped): the only ones ``to_body`` looks at one by one."""
        trailing = 0  # fields added later come last, left out at their default: mostly they are
        while trailing < len(self.fields) and self.fields[-1 - trailing].omit:
            trailing += 1
        self.cut = len(self.fields) - trailing
        self.tail = tuple(f.default for f in self.fields[self.cut :])
        """The defaults of the trailing fields left out at their default: when the message's
        values from ``cut`` on are these (one tuple comparison; always, with none), the body is
        the fields before them."""
        self.head = self.order[: self.cut]
        self.head_fixes = self.fixes[: len(self.fixes) - trailing]


def _values_of(names: tuple[str, ...]) -> Callable[[object], tuple[object, ...]]:
    """Reads the named attributes of a message into a tuple, in one C call (``attrgetter``)."""
    if not names:
        return lambda _message: ()
    getter = operator.attrgetter(*names)
    if len(names) == 1:  # attrgetter of one name gives the value, not a tuple of it
        return lambda message: (getter(message),)
    return getter


_SHAPES: dict[type[Message], _Shape] = {}


def _shape(cls: type[Message]) -> _Shape:
    found = _SHAPES.get(cls)
    if found is None:
        found = _SHAPES[cls] = _Shape(cls)
    return found


@dataclasses.dataclass(frozen=True, slots=True)
class Message:
    """Base of every message body. ``TYPE`` is the wire ``type`` of top-level messages."""

    TYPE: ClassVar[str] = ""

    def to_body(self) -> dict[str, object]:
        shape = _SHAPES.get(type(self)) or _shape(type(self))
        values = shape.values(self)
        if values[shape.cut :] == shape.tail:
            body = dict(zip(shape.head, values, strict=False))  # it stops with the head
            fixes = shape.head_fixes
        else:
            body = dict(zip(shape.order, values, strict=True))
            fixes = shape.fixes
        for f in fixes:  # in place: the keys keep the fields' order
            if f.omit and body[f.name] == f.default:
                del body[f.name]
            elif f.dump is not None:
                body[f.name] = f.dump(body[f.name])
        return body

    @classmethod
    def from_body(cls, body: object, where: str = "body", *, strict: bool = True) -> Self:
        """Validate a decoded body; ``strict`` refuses unknown keys, else they are ignored."""
        if not isinstance(body, dict):
            raise _bad(where, "a map", body)
        shape = _SHAPES.get(cls) or _shape(cls)
        if strict and not body.keys() <= shape.names:  # a set comparison in C: no loop in the common case
            for key in body:
                if key not in shape.names:
                    raise ProtocolError(ErrorCode.BAD_FIELD, f"{where}: unknown field {_shown(key)}")
        values: dict[str, object] = {}
        for f in shape.fields:
            name = f.name
            if name in body:
                path = f.path if where == "body" else f"{where}.{name}"
                values[name] = f.spec.check(body[name], path, strict)
            elif f.required:
                raise ProtocolError(ErrorCode.BAD_FIELD, f"{where}: missing field {name!r}")
        message = cls(**values)
        clash = message.conflict()
        if clash is not None:
            raise ProtocolError(ErrorCode.BAD_FIELD, clash)
        return message

    def conflict(self) -> str | None:
        """Why fields that are each valid do not go together (None: they do). Checked after every
        field, by ``from_body`` only: a client may still build such a message, to send it."""
        return None
