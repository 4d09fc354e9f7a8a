"""The browser's check of a signed race record (web/src/verify.js, the replay page's "Verify this
race" panel) against the reference, seahaven/verify.py.

Two halves. The vectors web/test/verify.json, which the node tests (web/test/verify.test.js) read:
canonical JSON, key fingerprints, draw indexes, deal codes, a deal list's candidates, and signed
records, intact and altered, each with the checks Python's ``verify`` gives it. They are made here,
deterministically (a fixed key, fixed seeds, the frozen win of Seahaven Towers #1), and a test
below fails when the committed file is not what this module writes now:
``.venv/bin/python -m tests.test_browser_verify`` rewrites it.

Then Debian's Chromium under Playwright: a race played by protocol clients on a server with records
(tests/recording.py), its replay page opened and verified; the same page served a record with one
move changed (``page.route``) says it is not verified and names the racer; and a race whose record
is not there yet says so, quietly.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from playwright.async_api import Browser, Page, Route

from protocol.messages import MoveRequest, Result, Undo
from seahaven import Board
from seahaven.codes import encode
from seahaven.moves import read_move
from seahaven.rules import PRESETS
from seahaven.verify import (
    FORMAT,
    canonical,
    commitment,
    draw_candidates,
    draw_index,
    fingerprint,
    list_digest,
    verify,
)
from seahaven.winnable import deal_list
from server.app import RaceServer
from server.records.signing import SigningKey
from tests.browser_pages import WAIT_MS, chromium, js, new_page, no_errors
from tests.httpclient import get
from tests.racing import room_with, start_race
from tests.recording import recording_server, signed_record
from tests.wins import SEAHAVEN_1_WIN

ROOT = Path(__file__).resolve().parents[1]
VECTORS = ROOT / "web" / "test" / "verify.json"

# -- the vectors ------------------------------------------------------------------------------------

KEY = SigningKey(Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"seahaven web verify vectors").digest()))
OTHER_KEY = SigningKey(Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"another server").digest()))
T0 = 1_800_000_000_000
STEP_MS = 700
SETTINGS: dict[str, Any] = {
    "preset": "seahaven",
    "deal": 1,
    "seats": 3,
    "public": True,
    "time_limit_ms": None,
    "undo": True,
    "countdown_ms": 3000,
    "deal_grade": None,
    "chosen": False,
    "hints": False,
    "daily": None,
    "rated": False,
}
"""The room's settings as a record holds them (written out: the vectors do not move when the
server's settings gain a field)."""
GRADE = "tricky"
"""The drawn record's grade: Seahaven Towers #1, whose frozen win the records play, is a tricky deal."""


def _listed(key: SigningKey, since: int, until: int | None = None) -> dict[str, Any]:
    return {"id": key.key_id, "alg": "Ed25519", "key": key.public, "since": since, "until": until}


KEYS = [_listed(OTHER_KEY, T0 - 90_000_000, T0 - 50_000_000), _listed(KEY, T0 - 50_000_000)]
"""What /api/v1/keys lists: a retired key, then the one that signs the vectors."""


def _timed(actions: list[str], first_ms: int = 1_000) -> list[list[Any]]:
    return [[first_ms + STEP_MS * i, action] for i, action in enumerate(actions)]


def _seeds() -> tuple[bytes, list[bytes]]:
    """A server seed and three racers' seeds that draw deal 1 among the tricky deals (the first
    found, counting up: the same every time)."""
    candidates = draw_candidates("seahaven", GRADE)
    racers = [hashlib.sha256(f"racer {n}".encode()).digest()[:16] for n in range(3)]
    for counter in range(100_000):
        seed = hashlib.sha256(f"server {counter}".encode()).digest()
        if candidates[draw_index(seed, racers, len(candidates))] == 1:
            return seed, racers
    raise AssertionError("no seed draws deal 1")


def _drawn() -> dict[str, Any]:
    seed, racers = _seeds()
    return {
        "kind": "drawn",
        "commitment": commitment(seed),
        "seed": seed.hex(),
        "seeds": [s.hex() for s in racers],
        "grade": GRADE,
        "list": list_digest("seahaven"),
    }


AUTO_UNDONE = 2
"""Which of Ann's own moves, played with auto-move, she takes back and plays again (0 first): the
third (3d), which the server follows with three cards home."""


def _with_auto_moves(first_ms: int = 1_000) -> tuple[list[list[Any]], list[int]]:
    """Ann's moves as the server records a race she plays with auto-move on, and the indices of
    the server's entries among them (``auto``): each of her own moves (the frozen win's, less the
    foundation moves, which the rule plays) at its time, then the auto-moves the rule gives after
    it at the same time; her own move ``AUTO_UNDONE`` taken back by an undo (one undo per
    auto-move, the server's, then one for her move) and played again."""
    board = Board.deal("seahaven", 1)
    moves: list[list[Any]] = []
    auto: list[int] = []
    step = 0

    def serve(at: int) -> int:
        played = board.autoplay()
        auto.extend(range(len(moves), len(moves) + len(played)))
        moves.extend([at, str(move)] for move in played)
        return len(played)

    serve(first_ms)  # the opening's safe cards (none on this deal), before her first move
    own = [text for text in SEAHAVEN_1_WIN if not text.endswith("#")]
    for n, text in enumerate(own):
        at = first_ms + STEP_MS * step
        board.push(read_move(text))
        moves.append([at, text])
        brought = serve(at)
        step += 1
        if n == AUTO_UNDONE:
            assert brought, "the move taken back brings auto-moves"
            at = first_ms + STEP_MS * step
            auto.extend(range(len(moves), len(moves) + brought))
            for _ in range(brought + 1):
                board.pop()
                moves.append([at, "undo"])
            step += 1
            at = first_ms + STEP_MS * step
            board.push(read_move(text))
            moves.append([at, text])
            serve(at)
            step += 1
    assert board.is_won()
    return moves, auto


def _record(draw: dict[str, Any], *, auto: bool = False) -> dict[str, Any]:
    """A race on Seahaven Towers #1: Ann wins it (an undo on the way), the bot Carl sends a card
    home and is still racing when she wins, Zoë (a name past ASCII) resigned after three moves.
    ``auto``: Ann plays with auto-move (_with_auto_moves) and every racer's ``auto`` is written, as
    the server writes it now (a record without it is one from before the marks)."""
    ann = _timed([SEAHAVEN_1_WIN[0], SEAHAVEN_1_WIN[1], "undo", *SEAHAVEN_1_WIN[1:]])
    served: list[int] = []
    if auto:
        ann, served = _with_auto_moves()
    carl = _timed(SEAHAVEN_1_WIN[:4], 1_350)
    zoe = _timed(SEAHAVEN_1_WIN[:3], 2_100)
    ended = ann[-1][0]
    settings = {**SETTINGS, "deal_grade": GRADE if draw["kind"] == "drawn" else None}
    return {
        "format": FORMAT,
        "race": "VECTR1-7-0a1b2c3d",
        "room": "VECTR1",
        "number": 7,
        "preset": "seahaven",
        "deal": 1,
        "deal_code": encode("seahaven", 1),
        "draw": draw,
        "settings": settings,
        "started_at": T0,
        "ended_at": T0 + ended,
        "end_reason": "won",
        "racers": [
            _racer("p_ann", 1, "finished", 52, ended, ann, auto=served if auto else None),
            _racer("bot:carl", 2, "racing", 1, carl[3][0], carl, bot=True, auto=[] if auto else None),
            _racer("zoë-🂡", 3, "resigned", 0, 0, zoe, auto=[] if auto else None),
        ],
        "log": {"length": 321, "tip": hashlib.sha256(b"tip").hexdigest()},
        "signed_at": T0 + ended + 40,
        "signer": {"alg": "Ed25519", "id": KEY.key_id, "key": KEY.public},
    }


def _racer(
    player: str,
    place: int,
    status: str,
    progress: int,
    time_ms: int,
    moves: list[list[Any]],
    *,
    bot: bool = False,
    auto: list[int] | None = None,
) -> dict[str, Any]:
    racer = {
        "player": player,
        "place": place,
        "status": status,
        "progress": progress,
        "time_ms": time_ms,
        "hints": 0,
        "bot": bot,
        "ghost": False,
        "moves": moves,
    }
    return racer if auto is None else {**racer, "auto": auto}


def _altered(document: dict[str, Any], change: Any, *, resign: bool) -> dict[str, Any]:
    """A copy of ``document`` with ``change`` made to its record; signed again when ``resign``
    (a server signing a lie: only the check that reads the change may catch it)."""
    record = copy.deepcopy(document["record"])
    change(record)
    return KEY.sign(record) if resign else {"record": record, "signature": document["signature"]}


def _flipped(signature: str) -> str:
    raw = bytearray(base64.b64decode(signature))
    raw[10] ^= 1
    return base64.b64encode(bytes(raw)).decode()


def _cases() -> list[dict[str, Any]]:
    """Signed records, intact and altered, each with the checks ``verify`` makes of it: name, ok
    (True passed, False failed, None nothing to check by) and detail. ``fails``: the checks the
    change must fail."""
    signed = KEY.sign(_record(_drawn()))
    ann, carl, zoe = 0, 1, 2

    def move(r: dict[str, Any]) -> None:
        r["racers"][ann]["moves"][5][1] = "5b"  # a move the rules refuse there

    def time(r: dict[str, Any]) -> None:
        r["racers"][ann]["moves"][8][0] = r["racers"][ann]["moves"][6][0] - 1  # earlier than the one before

    def finish(r: dict[str, Any]) -> None:
        r["racers"][ann]["time_ms"] -= 100

    def standing(r: dict[str, Any]) -> None:
        r["racers"][carl]["place"], r["racers"][zoe]["place"] = 3, 2
        r["racers"][carl], r["racers"][zoe] = r["racers"][zoe], r["racers"][carl]

    def deal(r: dict[str, Any]) -> None:
        r["deal"] = 2

    def deal_and_code(r: dict[str, Any]) -> None:
        r["deal"], r["deal_code"] = 2, encode("seahaven", 2)

    def seed(r: dict[str, Any]) -> None:
        r["draw"]["seed"] = hashlib.sha256(b"another seed").hexdigest()

    def racer_seed(r: dict[str, Any]) -> None:
        r["draw"]["seeds"][1] = "00" * 16

    def grade(r: dict[str, Any]) -> None:
        r["draw"]["grade"] = "gentle"

    def listed(r: dict[str, Any]) -> None:
        r["draw"]["list"] = hashlib.sha256(b"another list").hexdigest()

    def status(r: dict[str, Any]) -> None:
        r["racers"][zoe]["status"] = "stuck"

    def progress(r: dict[str, Any]) -> None:
        r["racers"][carl]["progress"] = 2

    def undo_first(r: dict[str, Any]) -> None:
        r["racers"][zoe]["moves"].insert(0, [2_000, "undo"])

    def late(r: dict[str, Any]) -> None:
        r["racers"][zoe]["moves"][-1][0] = r["ended_at"] - r["started_at"] + 1

    def name(r: dict[str, Any]) -> None:
        r["racers"][zoe]["player"] = "zoe-🂡"

    def signer_id(r: dict[str, Any]) -> None:
        r["signer"]["id"] = OTHER_KEY.key_id

    def form(r: dict[str, Any]) -> None:
        r["format"] = "seahaven-race/2"

    def float_time(r: dict[str, Any]) -> None:
        r["racers"][carl]["time_ms"] = 3_450.5

    def chosen(r: dict[str, Any]) -> None:
        r["draw"] = {"kind": "chosen"}

    def picked(r: dict[str, Any]) -> None:
        r["draw"] = {"kind": "picked"}

    def unknown(r: dict[str, Any]) -> None:
        r["draw"] = {"kind": "guessed"}

    # Ann with auto-move: what the record marks as the server's must be the rule's, and each undo
    # take back a move of its own hand.
    served = KEY.sign(_record(_drawn(), auto=True))
    marked = served["record"]["racers"][ann]["auto"]
    entries = served["record"]["racers"][ann]["moves"]
    undos = [i for i, (_, text) in enumerate(entries) if text == "undo"]
    own_undo = next(i for i in undos if i not in marked)  # hers, after the server's undos
    pair = next(
        i
        for i in marked
        if entries[i][1] != "undo" and i + 1 in marked and entries[i + 1][1] not in (entries[i][1], "undo")
    )

    def own_marked(r: dict[str, Any]) -> None:
        r["racers"][ann]["auto"] = sorted([0, *r["racers"][ann]["auto"]])  # her first move: no rule's

    def swapped(r: dict[str, Any]) -> None:
        moves = r["racers"][ann]["moves"]
        moves[pair][1], moves[pair + 1][1] = moves[pair + 1][1], moves[pair][1]

    def auto_undo_unmarked(r: dict[str, Any]) -> None:
        r["racers"][ann]["auto"].remove(undos[0])

    def own_undo_marked(r: dict[str, Any]) -> None:
        r["racers"][ann]["auto"] = sorted([own_undo, *r["racers"][ann]["auto"]])

    def auto_unmarked(r: dict[str, Any]) -> None:
        r["racers"][ann]["auto"].pop()  # her last card home: a move she may have made herself

    def no_marks(r: dict[str, Any]) -> None:
        del r["racers"][ann]["auto"]  # as a record from before the marks: all hers, undos too

    def marks_out_of_range(r: dict[str, Any]) -> None:
        r["racers"][ann]["auto"].append(len(r["racers"][ann]["moves"]))

    def marks_null(r: dict[str, Any]) -> None:
        r["racers"][ann]["auto"] = None

    def marks_twice(r: dict[str, Any]) -> None:
        r["racers"][ann]["auto"].append(r["racers"][ann]["auto"][0])

    def marks_not_numbers(r: dict[str, Any]) -> None:
        r["racers"][ann]["auto"][0] = True

    everyone = [f"racer {r['player']}" for r in signed["record"]["racers"]]  # a failed racer sorts first
    late_key = [_listed(KEY, signed["record"]["signed_at"] + 1)]
    wrong_sig = {**signed, "signature": _flipped(signed["signature"])}
    cases: list[tuple[str, dict[str, Any], list[dict[str, Any]] | None, list[str]]] = [
        ("intact", signed, KEYS, []),
        ("intact, no keys given", signed, None, []),
        ("the signature", wrong_sig, KEYS, ["signature"]),
        ("a key the server does not publish", signed, [_listed(OTHER_KEY, T0 - 90_000_000)], ["published key"]),
        ("signed before the key's time", signed, late_key, ["published key"]),
        ("the signer's id", _altered(signed, signer_id, resign=True), KEYS, ["signature"]),
        ("the format", _altered(signed, form, resign=True), KEYS, ["form"]),
        ("a float", _altered(signed, float_time, resign=False), KEYS, ["signature", "racer bot:carl", "standings"]),
        ("one move", _altered(signed, move, resign=False), KEYS, ["signature", "racer p_ann"]),
        ("one move, signed", _altered(signed, move, resign=True), KEYS, ["racer p_ann"]),
        ("one time, signed", _altered(signed, time, resign=True), KEYS, ["racer p_ann"]),
        ("a finishing time, signed", _altered(signed, finish, resign=True), KEYS, ["racer p_ann"]),
        ("a move after the end, signed", _altered(signed, late, resign=True), KEYS, ["racer zoë-🂡", "standings"]),
        ("one standing", _altered(signed, standing, resign=False), KEYS, ["signature", "standings"]),
        ("one standing, signed", _altered(signed, standing, resign=True), KEYS, ["standings"]),
        ("a status, signed", _altered(signed, status, resign=True), KEYS, ["racer zoë-🂡", "standings"]),
        ("a progress, signed", _altered(signed, progress, resign=True), KEYS, ["racer bot:carl", "standings"]),
        ("an undo of nothing, signed", _altered(signed, undo_first, resign=True), KEYS, ["racer zoë-🂡", "standings"]),
        ("a name", _altered(signed, name, resign=False), KEYS, ["signature"]),
        ("the deal", _altered(signed, deal, resign=False), KEYS, ["signature", "draw", *everyone]),
        ("the deal and its code, signed", _altered(signed, deal_and_code, resign=True), KEYS, ["draw", *everyone]),
        ("the seed", _altered(signed, seed, resign=False), KEYS, ["signature", "draw"]),
        ("the seed, signed", _altered(signed, seed, resign=True), KEYS, ["draw"]),
        ("a racer's seed, signed", _altered(signed, racer_seed, resign=True), KEYS, ["draw"]),
        ("the grade, signed", _altered(signed, grade, resign=True), KEYS, ["draw"]),
        ("the list, signed", _altered(signed, listed, resign=True), KEYS, ["draw"]),
        ("a chosen deal", _altered(signed, chosen, resign=True), KEYS, []),
        ("a picked deal", _altered(signed, picked, resign=True), KEYS, []),
        ("an unknown draw", _altered(signed, unknown, resign=True), KEYS, ["draw"]),
        ("auto-moves", served, KEYS, []),
        ("auto-moves, no keys given", served, None, []),
        (
            "auto-moves, an own move marked",
            _altered(served, own_marked, resign=False),
            KEYS,
            ["signature", "racer p_ann"],
        ),
        ("auto-moves, an own move marked, signed", _altered(served, own_marked, resign=True), KEYS, ["racer p_ann"]),
        ("auto-moves, two swapped, signed", _altered(served, swapped, resign=True), KEYS, ["racer p_ann"]),
        (
            "auto-moves, an auto-move's undo unmarked, signed",
            _altered(served, auto_undo_unmarked, resign=True),
            KEYS,
            ["racer p_ann"],
        ),
        (
            "auto-moves, an own move's undo marked, signed",
            _altered(served, own_undo_marked, resign=True),
            KEYS,
            ["racer p_ann"],
        ),
        ("auto-moves, one unmarked, signed", _altered(served, auto_unmarked, resign=True), KEYS, []),
        ("auto-moves, no marks, signed", _altered(served, no_marks, resign=True), KEYS, []),
        (
            "auto-moves, a mark past the moves, signed",
            _altered(served, marks_out_of_range, resign=True),
            KEYS,
            ["racer p_ann"],
        ),
        ("auto-moves, marks null, signed", _altered(served, marks_null, resign=True), KEYS, ["racer p_ann"]),
        ("auto-moves, a mark twice, signed", _altered(served, marks_twice, resign=True), KEYS, ["racer p_ann"]),
        (
            "auto-moves, a mark not a number, signed",
            _altered(served, marks_not_numbers, resign=True),
            KEYS,
            ["racer p_ann"],
        ),
    ]
    out = []
    for title, document, keys, fails in cases:
        checks = verify(document, keys)
        failed = [c.name for c in checks if c.ok is False]
        assert failed == fails, (title, checks)
        out.append(
            {
                "title": title,
                "document": document,
                "keys": keys,
                "fails": fails,
                "checks": [[c.name, c.ok, c.detail] for c in checks],
            }
        )
    return out


def _daily() -> dict[str, Any]:
    """A daily race's record: the browser leaves its draw to ``seahaven verify`` (the daily deal is
    the first of the day's candidates the solver wins), so Python's verdict on it is not a vector."""
    record = _record({"kind": "daily", "day": "2027-01-15"})
    record["settings"]["daily"] = "2027-01-15"
    return KEY.sign(record)


def _canonical_values() -> list[Any]:
    return [
        None,
        True,
        0,
        -7,
        2**53 - 1,
        "",
        "plain",
        'quote " backslash \\ slash / tab \t',
        "controls \x00\x01\x08\x0b\x0c\x1f\n\r and DEL \x7f",
        "zoë, Ærø, 日本語, emoji 🂡🎉, e\u0301 (decomposed)",
        "separators \u2028 \u2029, BOM \ufeff, nbsp \u00a0",
        "<script>&'</script>",
        [],
        {},
        [1, [2, [3, []]], {"a": None}],
        {"b": 1, "a": 2, "B": 3, "_": 4, "a_b": 5, "aa": 6, "a0": 7, "": 8, "~": 9, " ": 10},
        {"racers": [{"player": "zoë-🂡", "moves": [[1000, "3c"], [1700, "undo"]]}], "log": None, "deal": 1},
    ]


def vectors() -> dict[str, Any]:
    """What web/test/verify.json holds."""
    keys = [SigningKey(Ed25519PrivateKey.from_private_bytes(bytes([n]) * 32)) for n in range(1, 4)]
    seeds = [b"", b"\x01", bytes(range(32)), bytes(range(64)), bytes(range(100))]
    racer_seeds: list[list[bytes]] = [[], [b""], [bytes(16)], [bytes(range(16)), b"\xff" * 16, bytes(300)]]
    counts = [1, 2, 3, 497, 1500, 2**31 + 11, 10**12 + 39]
    draws = [
        {
            "seed": seed.hex(),
            "seeds": [s.hex() for s in others],
            "count": count,
            "index": draw_index(seed, others, count),
        }
        for n, seed in enumerate(seeds)
        for m, others in enumerate(racer_seeds)
        for count in counts[(n + m) % 3 :: 2]
    ]
    numbers = [1, 2, 31, 32, 1000, 32_000, 32_001, 1 << 32, 2**40 - 1]
    return {
        "canonical": [{"value": v, "text": canonical(v).decode()} for v in _canonical_values()],
        "fingerprints": [{"key": k.public, "id": fingerprint(base64.b64decode(k.public))} for k in (*keys, KEY)],
        "draws": draws,
        "codes": [[preset, n, encode(preset, n)] for preset in PRESETS for n in numbers],
        "lists": {"seahaven": deal_list("seahaven").to_text()},
        "candidates": {
            grade or "any": list(draw_candidates("seahaven", grade)) for grade in (None, "gentle", "tricky", "fiendish")
        },
        "keys": KEYS,
        "cases": _cases(),
        "daily": _daily(),
    }


def write() -> None:
    """The vectors, a line per entry of each list (a diff then says which changed)."""

    def compact(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))

    def entry(name: str, value: Any) -> str:
        if isinstance(value, list) and value:
            return f"{compact(name)}: [\n" + ",\n".join(compact(v) for v in value) + "\n]"
        return f"{compact(name)}: {compact(value)}"

    text = "{\n" + ",\n".join(entry(name, value) for name, value in vectors().items()) + "\n}\n"
    VECTORS.write_text(text, encoding="utf-8")


def test_the_browsers_vectors_are_what_the_reference_writes() -> None:
    assert json.loads(VECTORS.read_text(encoding="utf-8")) == vectors(), (
        "web/test/verify.json is stale: run .venv/bin/python -m tests.test_browser_verify"
    )


# -- the page, in Chromium --------------------------------------------------------------------------

AXE = ROOT / "web" / "node_modules" / "axe-core" / "axe.min.js"
AXE_RUN = """async () => {
  const only = { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21aa"] } };
  const found = await axe.run(document.querySelector(".verify"), only);
  return found.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id);
}"""
VERDICTS = "['verified', 'not-verified', 'missing', 'busy', 'error']"
PHONE = {"width": 390, "height": 844}


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[RaceServer]:
    async with recording_server(tmp_path) as race:
        yield race


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with chromium() as launched:
        yield launched


async def raced(server: RaceServer) -> tuple[str, dict[str, str]]:
    """Ann and Bob race deal 1 (chosen: nothing drawn); Bob plays two moves, Ann wins with an undo on
    the way. The race's id and the racers' player ids by name."""
    clients, _ = await room_with(server, "Ann", "Bob")
    ann, bob = clients
    await start_race(clients)
    for move in SEAHAVEN_1_WIN[:2]:
        await bob.call(MoveRequest(move=move))
    for n, move in enumerate(SEAHAVEN_1_WIN):
        await ann.call(MoveRequest(move=move))
        if n == 3:
            await ann.call(Undo())
            await ann.call(MoveRequest(move=move))
    result = await ann.expect(Result)
    assert result.race_id is not None and result.standings[0].player == ann.player
    players = {"Ann": ann.player, "Bob": bob.player}
    for client in clients:
        await client.close()
    return result.race_id, players


async def open_race(page: Page, url: str) -> None:
    await page.goto(url)
    await page.wait_for_function("() => window.seahavenRecords?.ready === true", timeout=WAIT_MS)


async def verified(page: Page) -> tuple[str, str, list[dict[str, str]]]:
    """Click "Verify this race" and wait for the verdict: its kind, its words and the checks listed
    (each's name, state and text)."""
    await page.click("#verify")
    await page.wait_for_function(
        f"() => {VERDICTS}.includes(document.querySelector('#verify-verdict').dataset.verdict)", timeout=WAIT_MS
    )
    kind = await page.get_attribute("#verify-verdict", "data-verdict")
    words = await page.inner_text("#verify-verdict")
    checks = await page.eval_on_selector_all(
        "#verify-checks li",
        "(items) => items.map((li) => ({ name: li.dataset.check, state: li.dataset.state, text: li.innerText }))",
    )
    return str(kind), words, checks


def racer_moved(document: dict[str, Any], racer: int, index: int) -> dict[str, Any]:
    """A copy of the signed ``document`` with the racer's move ``index`` changed to one the rules
    refuse there (cell to cell: never a move), its signature kept."""
    tampered = copy.deepcopy(document)
    tampered["record"]["racers"][racer]["moves"][index][1] = "ab"
    return tampered


async def test_a_race_verifies_in_the_browser_and_a_record_with_a_move_changed_does_not(
    server: RaceServer, browser: Browser
) -> None:
    race_id, players = await raced(server)
    document = await signed_record(server, race_id)
    base = f"http://127.0.0.1:{server.port}"
    keys = (await get(server.port, "/api/v1/keys")).json()["keys"]
    assert all(c.ok is not False for c in verify(document, keys)), "the reference passes it"

    page = await new_page(browser)
    await open_race(page, f"{base}/races/{race_id}")
    assert await page.inner_text("#verify-verdict") == ""
    # The command line that checks the same race elsewhere, and the record to download.
    assert await page.inner_text("#verify-command") == f"seahaven verify {base}/races/{race_id} --keys {base}"
    assert await page.get_attribute("#record-link", "href") == f"/api/v1/races/{race_id}/record"

    kind, words, checks = await verified(page)
    racers = [f"racer {players['Ann']}", f"racer {players['Bob']}"]
    assert [c["name"] for c in checks] == ["form", "signature", "published key", "draw", *racers, "standings"]
    states = {c["name"]: c["state"] for c in checks}
    assert {states[name] for name in ("form", "signature", "published key", *racers, "standings")} == {"passed"}
    assert states["draw"] == "unchecked", "a chosen deal: nothing was drawn"
    # In words, not colour alone: each check says its outcome and why.
    by_name = {c["name"]: c["text"] for c in checks}
    assert (
        "Signature" in by_name["signature"]
        and "passed" in by_name["signature"]
        and "Ed25519 by SHA256:" in by_name["signature"]
    )
    assert "Racer Ann" in by_name[racers[0]] and "finished in" in by_name[racers[0]]
    assert "not checked here" in by_name["draw"] and "chosen by the room's creator" in by_name["draw"]
    assert kind == "verified" and words.startswith("Verified:"), words
    assert await page.get_attribute("#verify-verdict", "role") == "status"
    assert await js(page, "window.seahavenRecords.verification.passed") is True
    no_errors(page)

    # The same page served a copy of the record with one of Ann's moves changed.
    tampered = racer_moved(document, 0, 6)
    assert [c.name for c in verify(tampered, keys) if c.ok is False][:2] == ["signature", racers[0]]

    async def serve_tampered(route: Route) -> None:
        await route.fulfill(json=tampered)

    await page.route(f"**/api/v1/races/{race_id}/record", serve_tampered)
    await open_race(page, f"{base}/races/{race_id}")
    kind, words, checks = await verified(page)
    assert kind == "not-verified" and words.startswith("Not verified:"), words
    failed = [c for c in checks if c["state"] == "failed"]
    assert [c["name"] for c in failed][:2] == ["signature", racers[0]]
    ann = failed[1]["text"]
    assert "Racer Ann" in ann and "failed" in ann and "move 7 (ab) is not legal" in ann, ann
    no_errors(page)


async def test_the_panel_fits_a_phone_and_passes_axe(server: RaceServer, browser: Browser) -> None:
    race_id, _ = await raced(server)
    await signed_record(server, race_id)
    context = await browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, bypass_csp=True)  # type: ignore[arg-type]
    page = await context.new_page()
    await open_race(page, f"http://127.0.0.1:{server.port}/races/{race_id}")
    kind, _, _ = await verified(page)
    assert kind == "verified"
    await page.locator(".verify").scroll_into_view_if_needed()
    overflow = await page.evaluate(
        """() => [...document.querySelectorAll('.verify, .verify *')]
          .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 0.5)
          .map((el) => el.id || el.className || el.tagName)"""
    )
    assert overflow == [], f"past the phone's right edge: {overflow}"
    await page.add_script_tag(path=str(AXE))
    assert await page.evaluate(AXE_RUN) == []


async def test_a_record_not_there_says_so_quietly(server: RaceServer, browser: Browser) -> None:
    """A race not archived yet (its page served from the live store) has no record for a moment; a
    race archived before signing began has none ever: each says so, as a verdict, not an alert."""
    race_id, _ = await raced(server)
    await signed_record(server, race_id)
    race = (await get(server.port, f"/api/v1/races/{race_id}")).json()
    page = await new_page(browser)

    async def not_signed(route: Route) -> None:
        message = f"no signed record of race {race_id} (not archived yet, or archived before signing)"
        await route.fulfill(status=404, json={"error": {"code": "not-found", "message": message}})

    async def live(route: Route) -> None:
        await route.fulfill(json={**race, "archived": False})

    await page.route(f"**/api/v1/races/{race_id}/record", not_signed)
    await page.route(f"**/api/v1/races/{race_id}", live)
    await open_race(page, f"http://127.0.0.1:{server.port}/races/{race_id}")
    kind, words, checks = await verified(page)
    assert kind == "missing" and "not on record yet" in words and "Try again" in words, words
    assert checks == []
    assert await page.locator(".verify [role=alert]").count() == 0
    assert await page.is_enabled("#verify"), "it may be asked again"

    await page.unroute(f"**/api/v1/races/{race_id}", live)
    await open_race(page, f"http://127.0.0.1:{server.port}/races/{race_id}")
    kind, words, checks = await verified(page)
    assert kind == "missing" and "filed before the server signed its races" in words, words
    assert checks == []
    no_errors(page)


if __name__ == "__main__":
    write()
