"""What the terminal client spares Textual's styles: the footer's keys (client/widgets/keys_footer.py)
drawn in the footer's style, compact or wide, and born in it (a new key is not restyled once more
to learn the style); every screen's stylesheet read as the app starts, not reparsed with all the
others the first time the screen is shown (client/screens/__init__.py)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path
from typing import Any, ClassVar

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widgets import Button
from textual.widgets._footer import FooterKey

import client.screens
from client.apps.app import RaceApp
from client.screens.help import HelpScreen
from client.widgets.keys_footer import KeysFooter
from tests.client_driver import data_home
from tests.fit import drawn

__all__ = ["data_home"]


class Leaf(Button):
    """A button with a key of its own: the footer shows it while the button has the focus."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("f5", "screen.key('f5')", "Turn")]


class Keys(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f2", "key('f2')", "Statistics"),
        Binding("f3", "key('f3')", "Records"),
        Binding("f4", "key('f4')", "Help"),
    ]

    def __init__(self, compact: bool) -> None:
        super().__init__()
        self.compact = compact
        self.help_enabled = True

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # None: shown, greyed
        return True if self.help_enabled or parameters != ("f4",) else None

    def action_key(self, key: str) -> None:
        self.app.bell()

    def compose(self) -> ComposeResult:
        yield Button("one", id="one")
        yield Button("two", id="two")
        yield Leaf("leaf", id="leaf")
        yield KeysFooter(compact=self.compact)


class Restyles(App[None]):
    """An app that shows ``Keys`` and counts the nodes it restyles (no command palette, as the
    client's apps)."""

    ENABLE_COMMAND_PALETTE = False

    def __init__(self, compact: bool) -> None:
        super().__init__()
        self.keys = Keys(compact)
        self.restyled: list[DOMNode] = []

    def on_mount(self) -> None:
        self.push_screen(self.keys)

    def update_styles(self, node: DOMNode, animate: bool = True) -> None:
        self.restyled.append(node)
        super().update_styles(node, animate)


def footer_keys(app: App[Any]) -> list[FooterKey]:
    return list(app.screen.query(FooterKey))


@pytest.mark.parametrize("compact", [True, False], ids=["compact", "wide"])
async def test_the_footers_keys_are_born_in_its_style(compact: bool) -> None:
    app = Restyles(compact)
    async with app.run_test(size=(80, 10)) as pilot:
        await pilot.pause()
        keys = footer_keys(app)
        assert [key.description for key in keys] == ["Statistics", "Records", "Help"]
        assert all(key.has_class("-compact") == compact and key.compact == compact for key in keys)
        # A focus change that shows another key composes the footer again: new keys, in its
        # style, none restyled once mounted.
        app.restyled.clear()
        app.screen.query_one("#leaf", Button).focus()
        await pilot.pause()
        await pilot.pause()
        again = footer_keys(app)
        assert [key.description for key in again] == ["Turn", "Statistics", "Records", "Help"]
        assert not set(map(id, again)) & set(map(id, keys)), "the footer composed new keys"
        assert all(key.has_class("-compact") == compact for key in again)
        assert [node for node in app.restyled if isinstance(node, FooterKey)] == []
        assert "f5 Turn" in " ".join(drawn(key) for key in again)


async def test_the_footer_is_composed_again_only_when_its_keys_change() -> None:
    app = Restyles(compact=True)
    async with app.run_test(size=(80, 10)) as pilot:
        await pilot.pause()
        keys = footer_keys(app)
        # The focus moves from button to button: the same keys, not composed again.
        for button in ("#two", "#one", "#two"):
            app.screen.query_one(button, Button).focus()
            await pilot.pause()
            await pilot.pause()
            assert footer_keys(app) == keys
        # A key disabled: the footer drawn again, the key greyed.
        app.keys.help_enabled = False
        app.keys.refresh_bindings()
        await pilot.pause()
        await pilot.pause()
        disabled = [key.description for key in footer_keys(app) if key.has_class("-disabled")]
        assert disabled == ["Help"]


async def test_a_footer_told_another_style_restyles_its_keys() -> None:
    app = Restyles(compact=True)
    async with app.run_test(size=(80, 10)) as pilot:
        await pilot.pause()
        app.screen.query_one(KeysFooter).compact = False
        await pilot.pause()
        keys = footer_keys(app)
        assert keys and not any(key.has_class("-compact") for key in keys)


def screens_stylesheets() -> set[Path]:
    """Every stylesheet a screen class of the client names in its ``CSS_PATH``."""
    named: set[Path] = set()
    for module in pkgutil.iter_modules(client.screens.__path__):
        for _, kind in inspect.getmembers(importlib.import_module(f"client.screens.{module.name}"), inspect.isclass):
            if issubclass(kind, Screen) and kind.__module__.startswith("client.") and kind.CSS_PATH:
                paths = kind.CSS_PATH if isinstance(kind.CSS_PATH, list) else [kind.CSS_PATH]
                named.update(Path(path) for path in paths)
    return named


async def test_the_race_app_has_every_screens_stylesheet_from_its_start(monkeypatch: pytest.MonkeyPatch) -> None:
    named = screens_stylesheets()
    assert len(named) >= 9  # the lobby's, the game's, the help's, ...
    app = RaceApp("ws://127.0.0.1:9", "Ann", autoconnect=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert {path for path in named if not app.stylesheet.has_source(str(path), "")} == set()
        reparsed: list[object] = []
        reparse = type(app.stylesheet).reparse

        def counted(sheet: Stylesheet) -> None:
            reparsed.append(sheet)
            reparse(sheet)

        monkeypatch.setattr(Stylesheet, "reparse", counted)
        await app.push_screen(HelpScreen())
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert reparsed == []
