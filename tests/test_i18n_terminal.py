"""The terminal client in the players' languages (issue 26): the language from the environment
and --lang, the lobby and a race in French against a real server, plurals, numbers and times in
the locale's form, the server's error codes and the engine's reasons said again, the rules help."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widget import Widget
from textual.widgets import Button, DataTable, Static
from textual.widgets._footer import FooterKey

import i18n
from client.__main__ import parse
from client.apps.app import RaceApp
from client.net.errors import ERROR_TEXTS, error_text
from client.screens.help import HelpScreen
from client.screens.lobby import LobbyScreen
from client.text.words import cards, moves, reason
from client.widgets.rivals import format_ms
from i18n import formats
from i18n.languages import negotiate
from i18n.rules_help import TOPICS, preset_title, rules_help
from protocol.enums import Phase
from protocol.errors import ErrorCode
from protocol.messages import JoinRoom, Ready, RoomState
from seahaven import CELL, COLUMN, FOUNDATION, PRESETS, Board, Move
from server.app import RaceServer
from tests.client_driver import SIZE, create_deal_1, data_home, server, top, until
from tests.helpers import url_of
from tests.wsclient import WsClient

__all__ = ["data_home", "server"]  # the autouse fixture: the data directory is a temporary one

LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


@pytest.fixture(autouse=True)
def english_after() -> Iterator[None]:
    """The language is one per process (as gettext's): every test leaves English behind."""
    yield
    i18n.use("en")


def french_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in LOCALE_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")  # not installed here (only C.UTF-8): read as text


# -- LANG=fr_FR.UTF-8 seahaven-client: the lobby in French ------------------------------------------


async def test_lang_fr_shows_the_lobby_and_a_room_in_french(
    server: RaceServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    french_environment(monkeypatch)
    args = parse([url_of(server), "--name", "alice"])  # what seahaven-client does first
    assert i18n.current().language == "fr" and i18n.current().tag == "fr_FR"
    app = RaceApp(args.server, args.name, autoconnect=False, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        lobby = app.lobby
        assert isinstance(top(app), LobbyScreen)
        assert "affrontez un ami" in str(lobby.query_one("#banner", Static).content)
        assert str(lobby.query_one("#connect", Button).label) == "Connexion"
        assert str(lobby.query_one("#create", Button).label) == "Créer la salle"
        assert lobby.status_text.startswith("Pas connecté")
        footer = {b.binding.action: b.binding.description for b in lobby.active_bindings.values()}
        assert footer["list"] == "Liste" and footer["focus_code"] == "Code" and footer["account"] == "Cpte"
        assert app.title == "Seahaven Towers : affrontez un ami"
        await pilot.click("#connect")
        await until(pilot, lambda: app.connected and "Connecté à" in lobby.status_text, "connected, in French")
        assert "en tant que alice" in lobby.status_text
        table = lobby.query_one("#rooms", DataTable)
        assert [str(c.label) for c in table.columns.values()] == ["code", "joueurs", "specta.", "étape", "règles"]
        # A room of our own: its cover, the racers panel and the status line.
        room = await create_deal_1(app, pilot)
        cover = " ".join(room.screen.view.cover)
        assert f"Salle {room.code}" in cover and "Appuyez sur r quand vous êtes prêt" in cover
        assert "sans limite de temps" in cover and "annulation permise" in cover
        assert room.screen.rivals is not None and room.screen.rivals.title.startswith("Joueurs 1/2")
        assert "Seahaven Towers" in room.screen.title_text and f"Salle {room.code}" in room.screen.title_text
        # The help overlay: the rules in French, from the rules catalog.
        await pilot.press("question_mark")
        await pilot.pause()
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        text = help_screen.text
        assert "Règles : Seahaven Towers" in text and "Seulement un Roi" in text
        assert text.index("coup malin") < text.index("Règles : Seahaven Towers"), "the keys first, then the rules"
        assert "smart move" not in text and "Only a King" not in text, "no English left"
        await pilot.press("escape")


async def test_a_race_in_french_counts_moves_and_says_refusals_in_french(
    server: RaceServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    french_environment(monkeypatch)
    args = parse([url_of(server), "--name", "alice"])
    app = RaceApp(args.server, args.name, autoconnect=False, automove=False)
    rival = await WsClient.open(url_of(server), "bob")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.click("#connect")
        await until(pilot, lambda: app.connected, "connected")
        room = await create_deal_1(app, pilot)
        assert isinstance(await rival.call(JoinRoom(room=room.code)), RoomState)
        await until(pilot, lambda: len(room.model.racers) == 2, "bob in the room")
        await pilot.press("r")
        await until(pilot, lambda: room.model.my_status() == "ready", "ready")
        assert "Vous êtes prêt ✓" in " ".join(room.screen.view.cover)
        await rival.call(Ready())
        await until(pilot, lambda: room.model.phase == Phase.RACING and not room.screen.locked, "the race")
        assert "Partez !" in room.screen.message_text
        # A refused pick, said by the client in French: a column that does not take the card.
        board = room.screen.board
        source, target = refused_column_pair(board)
        room.screen.action_pick(str(source + 1)[-1])
        room.screen.action_pick(str(target + 1)[-1])
        assert "ne peut pas aller sur" in room.screen.message_text, room.screen.message_text
        # A legal move: the move count in French with the right plural.
        legal = next(m for m in board.legal_moves() if m.src_area == COLUMN and m.dst_area == CELL)
        room.screen.action_pick(str(legal.src + 1)[-1])
        room.screen.action_pick("abcdefgh"[legal.dst])
        await until(pilot, lambda: room.screen.actions == 1, "one move")
        await until(pilot, lambda: not room.screen.game.pending, "confirmed")
        status = str(room.screen.info.content)
        assert "1 coup" in status and "0/52 montées" in status, status
    await rival.close()


def refused_column_pair(board: Board) -> tuple[int, int]:
    """Two non-empty columns (among the first ten) whose move the rules refuse with a build reason."""
    for s in range(min(10, len(board.columns))):
        for d in range(min(10, len(board.columns))):
            if s != d and board.columns[s] and board.columns[d]:
                verdict = board.is_legal(Move(COLUMN, s, COLUMN, d, 1))
                if verdict.reason and "cannot go on" in verdict.reason:
                    return s, d
    raise AssertionError("deal 1 has no refused column pair")


# -- which language ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("explicit", "environ", "language", "tag"),
    [
        (None, {"LANG": "fr_FR.UTF-8"}, "fr", "fr_FR"),
        (None, {"LANG": "it_IT.UTF-8"}, "it", "it_IT"),
        (None, {"LANG": "nl_BE.UTF-8@euro"}, "nl", "nl_BE"),
        (None, {"LANG": "fr_FR.UTF-8", "LC_MESSAGES": "nl_NL.UTF-8"}, "nl", "nl_NL"),
        (None, {"LANG": "fr_FR.UTF-8", "LC_MESSAGES": "nl_NL", "LC_ALL": "it_CH.UTF-8"}, "it", "it_CH"),
        (None, {"LANG": "fr_FR.UTF-8", "LANGUAGE": "de:nl:fr"}, "nl", "nl"),
        (None, {"LANG": "de_DE.UTF-8"}, "en", "en"),
        (None, {"LANG": "C.UTF-8"}, "en", "en"),
        (None, {"LANG": "POSIX", "LANGUAGE": "it"}, "it", "it"),
        (None, {}, "en", "en"),
        ("nl", {"LANG": "fr_FR.UTF-8", "LANGUAGE": "it"}, "nl", "nl"),
        ("fr-CA", {}, "fr", "fr_CA"),
        ("de", {"LANG": "it_IT.UTF-8"}, "it", "it_IT"),
        (None, {"LANG": "fr_ZZ.UTF-8"}, "fr", "fr_FR"),  # a territory CLDR lacks: its likely one
    ],
)
def test_the_language_comes_from_lang_then_the_environment_as_gettext_reads_it(
    explicit: str | None, environ: dict[str, str], language: str, tag: str
) -> None:
    choice = negotiate(explicit, environ)
    assert (choice.language, choice.tag) == (language, tag)


def test_a_bad_lang_option_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parse(["--lang", "12"])
    assert exit_info.value.code == 2
    assert "'12' is not a language: try one of en, fr, it, nl" in capsys.readouterr().err


def test_lang_option_beats_the_environment_and_speaks_in_the_help(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    with pytest.raises(SystemExit):
        parse(["--lang", "it", "--help"])
    out = capsys.readouterr().out
    assert "Sfida un amico a Seahaven Towers dal terminale" in out and "allenamento in solitario offline" in out


# -- plurals, numbers, times --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "zero", "one", "two"),
    [
        ("en", "0 moves", "1 move", "2 moves"),
        ("fr", "0 coup", "1 coup", "2 coups"),  # French counts 0 as singular
        ("it", "0 mosse", "1 mossa", "2 mosse"),
        ("nl", "0 zetten", "1 zet", "2 zetten"),
    ],
)
def test_plural_forms_follow_each_languages_rules(language: str, zero: str, one: str, two: str) -> None:
    i18n.use(language)
    assert (moves(0), moves(1), moves(2)) == (zero, one, two)
    assert cards(1_000_000).endswith(("cards", "cartes", "carte", "kaarten"))


@pytest.mark.parametrize(
    ("language", "time", "number"),
    [
        ("en", "1:05.3", "1,234,567"),
        ("fr", "1:05,3", "1\u202f234\u202f567"),
        ("it", "1:05,3", "1.234.567"),
        ("nl", "1:05,3", "1.234.567"),
    ],
)
def test_times_and_numbers_take_the_locales_form(language: str, time: str, number: str) -> None:
    i18n.use(language)
    assert format_ms(65_300) == time
    assert formats.number(1_234_567) == number
    assert format_ms(3_725_000) == "1:02:05"  # past an hour: no tenths, no decimal mark


# -- the server's codes and the engine's reasons ---------------------------------------------------


def test_every_error_code_has_the_clients_words() -> None:
    assert set(ERROR_TEXTS) == {code.value for code in ErrorCode}


def test_error_codes_are_said_in_the_language_in_use_and_an_unknown_one_keeps_the_servers_text() -> None:
    message = "room ABC123 is full (2 of 2 seats)"
    assert error_text(ErrorCode.ROOM_FULL, message) == message  # English: the server's own words
    i18n.use("nl")
    assert error_text(ErrorCode.ROOM_FULL, message) == "De kamer is vol"
    assert error_text("some-new-code", "a newer server's words") == (
        "Geweigerd (some-new-code): a newer server's words"
    )
    i18n.use("it")
    refused = error_text(ErrorCode.ILLEGAL_MOVE, "7H cannot go on 8S: columns build down by suit")
    assert refused == "7H non può andare su 8S: le colonne si costruiscono in ordine decrescente per seme"


def engine_reasons() -> set[str]:
    """Every reason the engine gives for the moves of one deal of each preset, and for malformed ones."""
    found: set[str] = set()
    for name in PRESETS:
        board = Board.deal(name, 1)
        columns, cells = len(board.columns), board.rules.cells
        for sa, sn in ((COLUMN, columns + 1), (CELL, cells + 1), (FOUNDATION, 5)):
            for s in range(-1, sn):
                for da, dn in ((COLUMN, columns + 1), (CELL, cells + 1), (FOUNDATION, 2)):
                    for d in range(dn):
                        for count in (0, 1, 3, 9):
                            verdict = board.is_legal(Move(sa, s, da, d, count))
                            if verdict.reason:
                                found.add(verdict.reason)
    return found


def test_every_engine_reason_met_on_the_first_deals_is_said_again_in_french() -> None:
    reasons = engine_reasons()
    assert len(reasons) > 20
    i18n.use("fr")
    untranslated = sorted(r for r in reasons if reason(r) == r)
    assert not untranslated


# -- the rules help --------------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["fr", "it", "nl"])
def test_every_preset_has_its_rules_help_written_in_each_language(language: str) -> None:
    i18n.use("en")
    english = {name: rules_help(name) for name in PRESETS}
    i18n.use(language)
    for name, rules in PRESETS.items():
        rows = rules_help(name)
        assert len(rows) == len(TOPICS) == len(english[name])
        for (heading, text), (en_heading, en_text) in zip(rows, english[name], strict=True):
            assert heading != en_heading and text != en_text, (name, heading)
        assert preset_title(rules.title)


# -- the words fit where the English ones do ---------------------------------------------------------


async def lobby_at_80x24(language: str) -> tuple[list[tuple[str, int]], dict[str, tuple[str, int, int]]]:
    """The lobby's footer keys (key, right edge) and buttons (label, right edge, its row's right edge)."""
    i18n.use(language)
    app = RaceApp("ws://127.0.0.1:9", "ann", autoconnect=False, automove=False, resume=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        keys = [(key.key, key.region.right) for key in app.lobby.query(FooterKey)]
        buttons = {
            str(b.id): (str(b.label), b.region.right, b.parent.region.right if isinstance(b.parent, Widget) else 0)
            for b in app.lobby.query(Button)
        }
    return keys, buttons


@pytest.mark.parametrize("language", ["fr", "it", "nl"])
async def test_at_80x24_the_lobby_footer_and_buttons_fit_as_the_english_ones_do(language: str) -> None:
    english_keys, english = await lobby_at_80x24("en")
    keys, buttons = await lobby_at_80x24(language)
    assert [k for k, _right in keys] == [k for k, _right in english_keys], "the same keys are shown"
    assert all(right <= 80 for _key, right in keys), keys
    for name, (label, right, row) in buttons.items():
        # At 80 columns the English join row already runs past its box (Ghost, Arena): no further.
        assert right <= max(row, english[name][1]), (name, label, right, row, english[name])


def test_the_installed_command_reads_lang_from_the_environment() -> None:
    """``LANG=fr_FR.UTF-8 seahaven-client``: the console script, in a process of its own."""
    command = Path(sys.executable).with_name("seahaven-client")
    assert command.exists(), command
    environ = {k: v for k, v in os.environ.items() if k not in LOCALE_VARIABLES} | {"LANG": "fr_FR.UTF-8"}
    french = subprocess.run([str(command), "--help"], env=environ, capture_output=True, text=True, timeout=60)
    assert french.returncode == 0, french.stderr
    assert "Affrontez un ami à Seahaven Towers depuis un terminal" in french.stdout
    environ["LANG"] = "C.UTF-8"
    english = subprocess.run([str(command), "--help"], env=environ, capture_output=True, text=True, timeout=60)
    assert "Race a friend at Seahaven Towers from a terminal" in english.stdout
