"""Signed race records (issue 37, items 3 and 4): races played by protocol clients through a real
server, archived into a SQLite file, served at /api/v1/races/{id}/record and checked by
``seahaven verify`` (in process, over real HTTP); altered copies fail with the reason."""

from __future__ import annotations

import asyncio
import copy
import hashlib
import io
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol.messages import (
    CreateRoom,
    JoinRoom,
    Moved,
    MoveRequest,
    Ok,
    Ready,
    Resign,
    Result,
    RoomState,
    Started,
    Undo,
)
from seahaven import Board
from seahaven.cli import main as seahaven
from seahaven.rules import PRESETS
from seahaven.verify import canonical, draw_candidates, list_digest, passed, verify
from server.app import RaceServer
from server.records.signing import SigningKey
from tests.forgery import forge
from tests.helpers import url_of
from tests.httpclient import get
from tests.racing import Line, solution, start_race
from tests.recording import recording_server, signed_record
from tests.wsclient import WsClient

RACES = 50


async def play(server: RaceServer, index: int) -> str:
    """Race ``index`` of a varied set: who wins, who resigns, undos, a chosen or a picked deal."""
    rng = random.Random(index)
    ann, bob = clients = [await WsClient.open(url_of(server), name) for name in (f"Ann{index}", f"Bob{index}")]
    # Every other room lets the server pick the deal (deal 1 here too): its draw says "picked".
    state = await ann.call(CreateRoom(deal_number=None if index % 2 else 1))
    assert isinstance(state, RoomState)
    assert isinstance(await bob.call(JoinRoom(room=state.room)), RoomState)
    auto = index % 10 == 0  # Ann lets the server play her auto-moves, and wins
    if auto:
        assert isinstance(await ann.call(Ready(auto=True)), Ok) and isinstance(await bob.call(Ready()), Ok)
        await ann.expect(Started)
    else:
        await start_race(clients)
    board = Board.deal("seahaven", 1)
    for _ in range(rng.randrange(0, 6)):  # Bob wanders: legal moves, now and then an undo
        if board.move_stack and rng.random() < 0.3:
            await bob.call(Undo())
            board.pop()
        elif not board.legal_moves():
            break  # stuck: the room says so
        else:
            move = rng.choice(board.legal_moves())
            await bob.call(MoveRequest(move=str(move)))
            board.push(move)
    if auto:
        line = Line(Board.deal("seahaven", 1))
        while not line.board.is_won():
            move = line.next()
            assert isinstance(await ann.call(MoveRequest(move=str(move), auto=True)), Moved)
            line.board.push(move)
            line.board.autoplay()
    elif index % 5 == 0:  # Ann plays the whole solution and wins
        for move in solution():
            await ann.call(MoveRequest(move=str(move)))
    else:
        for move in solution()[: rng.randrange(0, 12)]:
            await ann.call(MoveRequest(move=str(move)))
        await (ann if index % 3 else bob).call(Resign())
        await (bob if index % 3 else ann).call(Resign())
    result = await ann.expect(Result)
    for client in clients:
        await client.close()
    assert result.race_id is not None
    return result.race_id


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = seahaven(list(argv), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def racer_with_moves(record: dict[str, Any]) -> dict[str, Any]:
    return next(r for r in record["racers"] if r["moves"])


ALTERATIONS: list[tuple[str, str, Callable[[dict[str, Any]], object]]] = [
    ("a move", "racer", lambda r: racer_with_moves(r)["moves"][0].__setitem__(1, "#9")),
    ("a move's time", "racer", lambda r: racer_with_moves(r)["moves"][-1].__setitem__(0, r["ended_at"] + 1)),
    ("a finish time", "racer", lambda r: r["racers"][0].__setitem__("time_ms", (r["racers"][0]["time_ms"] or 0) + 7)),
    ("a progress", "racer", lambda r: r["racers"][1].__setitem__("progress", r["racers"][1]["progress"] + 1)),
    (
        "a status",
        "racer",
        lambda r: r["racers"][0].__setitem__(
            "status", "finished" if r["racers"][0]["status"] != "finished" else "resigned"
        ),
    ),
    ("the places", "standings", lambda r: [x.__setitem__("place", 3 - x["place"]) for x in r["racers"]]),
    ("the deal", "draw", lambda r: r.__setitem__("deal", r["deal"] + 1)),
    # A racer's move passed off as the server's (deal 1 opens with no auto-move to play).
    ("an auto-move mark", "racer", lambda r: racer_with_moves(r).__setitem__("auto", [0])),
]


async def test_fifty_races_verify_and_their_altered_copies_fail(tmp_path: Path) -> None:
    forger = Ed25519PrivateKey.generate()
    async with recording_server(tmp_path) as server:
        races = [await play(server, i) for i in range(RACES)]
        documents = [await signed_record(server, race_id) for race_id in races]
        with_auto = [d for d in documents if any(r["auto"] for r in d["record"]["racers"])]
        assert len(with_auto) == RACES // 10, "one race in ten won with auto-moves, marked in its record"
        keys_url = f"http://127.0.0.1:{server.port}"
        # The replay page's address will do. The 50 reads above may have used up the API's rate
        # limit: the CLI then waits out the 429's Retry-After, as a polite client does.
        page = f"http://127.0.0.1:{server.port}/races/{races[0]}"
        status, out, err = await asyncio.to_thread(cli, "verify", page, "--keys", keys_url)
        assert status == 0, out + err
        assert "published key" in out and f"race {races[0]}: verified" in out
    for index, document in enumerate(documents):
        path = tmp_path / f"race{index}.json"
        path.write_text(json.dumps(document))
        status, out, err = cli("verify", str(path))
        assert status == 0, out + err
        assert out.splitlines()[-1] == f"race {races[index]}: verified"

        name, check, alter = ALTERATIONS[index % len(ALTERATIONS)]
        altered = copy.deepcopy(document)
        alter(altered["record"])
        # As it stands: the server's signature no longer fits.
        checks = {c.name: c for c in verify(altered)}
        assert checks["signature"].ok is False, name
        # Signed again by a forger: the signature fits the forger's key, the alteration is caught.
        forged = verify(forge(altered, forger))
        failed = [c for c in forged if c.ok is False]
        assert failed and failed[0].name.startswith(check), (name, failed)
        assert not passed(forged)


async def test_a_record_names_its_key_the_server_publishes_it_and_a_forger_s_is_refused(tmp_path: Path) -> None:
    async with recording_server(tmp_path) as server:
        race_id = await play(server, 0)
        document = await signed_record(server, race_id)
        keys = (await get(server.port, "/api/v1/keys")).json()["keys"]
    assert [k["id"] for k in keys] == [document["record"]["signer"]["id"]]
    assert keys[0]["until"] is None and keys[0]["since"] <= document["record"]["signed_at"]
    checks = {c.name: c.ok for c in verify(document, keys)}
    assert checks["signature"] and checks["published key"]
    forged = verify(forge(document, Ed25519PrivateKey.generate()), keys)
    assert {c.name: c.ok for c in forged}["published key"] is False
    # The record is signed over its canonical form: the stored text reparsed signs the same bytes.
    assert canonical(json.loads(json.dumps(document["record"]))) == canonical(document["record"])


async def test_the_record_is_the_race_the_api_serves(tmp_path: Path) -> None:
    async with recording_server(tmp_path) as server:
        race_id = await play(server, 10)  # Ann wins a deal her room chose, with auto-moves
        document = await signed_record(server, race_id)
        race = (await get(server.port, f"/api/v1/races/{race_id}")).json()
    record = document["record"]
    assert record["race"] == race_id and record["deal_code"] == race["deal_code"]
    assert [r["player"] for r in record["racers"]] == [r["player"] for r in race["racers"]]
    assert [r["moves"] for r in record["racers"]] == [r["moves"] for r in race["racers"]]
    assert record["racers"][0]["status"] == "finished"
    assert record["racers"][0]["time_ms"] == record["racers"][0]["moves"][-1][0]
    winner = record["racers"][0]
    # Each own move is an event of the log (the auto-moves ride in their move's event).
    assert record["log"]["length"] > len(winner["moves"]) - len(winner["auto"]) and len(record["log"]["tip"]) > 8
    assert record["draw"] == {"kind": "chosen"}


async def test_bad_requests_for_records_and_keys(tmp_path: Path) -> None:
    async with recording_server(tmp_path) as server:
        assert (await get(server.port, "/api/v1/races/nope/record")).status == 400
        assert (await get(server.port, "/api/v1/races/ABCD-1-abcdefgh/record")).status == 404
        assert (await get(server.port, "/api/v1/keys?x=1")).status == 400
        assert (await get(server.port, "/api/v1/keys")).json() == {"keys": []}  # nothing signed yet


def test_verify_says_what_is_wrong_with_a_file_that_is_no_record(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    status, _, err = cli("verify", str(bad))
    assert status == 2 and "is not JSON" in err
    bad.write_text(json.dumps({"record": {"format": "other"}, "signature": ""}))
    status, out, _ = cli("verify", str(bad))
    assert status == 1 and "FAIL form: format 'other'" in out
    status, _, err = cli("verify", str(tmp_path / "missing.json"))
    assert status == 2 and "missing.json" in err


def test_a_key_file_is_made_once_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "data" / "signing-key.pem"
    first = SigningKey.load_or_create(path)
    again = SigningKey.load_or_create(path)
    assert first.key_id == again.key_id and (path.stat().st_mode & 0o777) == 0o600
    path.write_text("not a key")
    with pytest.raises(ValueError):
        SigningKey.read(path)


def test_the_engine_reaches_past_the_standard_library_only_to_check_a_signature() -> None:
    """seahaven/ imports the standard library; verify.py alone also cryptography (Ed25519), and
    only inside the check, so the engine and every other command load without it."""
    root = Path(__file__).resolve().parents[1] / "seahaven"
    reaching = sorted(p.name for p in root.glob("*.py") if "cryptography" in p.read_text())
    assert reaching == ["verify.py"]
    top_level = [line for line in (root / "verify.py").read_text().splitlines() if line.startswith(("import", "from"))]
    assert not any("cryptography" in line for line in top_level)


def test_the_canonical_form_is_rfc_8785_for_what_a_record_holds() -> None:
    # Keys sorted, no blanks, non-ASCII kept as UTF-8, control characters escaped as JSON.stringify does.
    value = {"b": [1, True, None], "a": 'Zoë\n\u0001"\\'}
    assert canonical(value) == '{"a":"Zoë\\n\\u0001\\"\\\\","b":[1,true,null]}'.encode()
    with pytest.raises(ValueError, match="no floats"):
        canonical({"time": 1.5})
    with pytest.raises(ValueError, match="ASCII"):
        canonical({"é": 1})


async def test_the_published_deal_lists_are_served_with_the_digest_a_draw_names(tmp_path: Path) -> None:
    async with recording_server(tmp_path) as server:
        lists = (await get(server.port, "/api/v1/deal-lists")).json()["lists"]
        one = (await get(server.port, "/api/v1/deal-lists/seahaven-hard")).json()
        missing = await get(server.port, "/api/v1/deal-lists/chess")
    assert {entry["preset"] for entry in lists} == set(PRESETS)
    assert one["sha256"] == list_digest("seahaven-hard") == hashlib.sha256(one["text"].encode()).hexdigest()
    assert one["deals"] == sum(one["grades"].values()) == len(draw_candidates("seahaven-hard", None))
    assert one["grades"]["fiendish"] == len(draw_candidates("seahaven-hard", "fiendish"))
    assert missing.status == 404


def test_the_lists_digests_in_the_docs_are_the_shipped_lists() -> None:
    text = (Path(__file__).resolve().parents[1] / "docs" / "fairness.md").read_text()
    for preset in PRESETS:
        assert f"| `{preset}` | {len(draw_candidates(preset, None))} (" in text, preset
        assert f"`{list_digest(preset)}`" in text, preset
