"""The public API's HTTP side on a live server (server/http/api.py, routes.py): routing,
parameter checks, caching, CORS, errors and the per-address rate limit.

The documents come from tests/helpers.py ``DictRecords``, a stand-in for our own
``RecordsReader`` interface: these tests say what the API does with whatever the reader answers.
What the real records answer is tested against them (server/records/).
"""

from __future__ import annotations

from typing import Any

import pytest

from server.app import RaceServer
from server.http.ratelimit import API_BURST, AddressLimits
from tests.helpers import DictRecords, MakeServer, fake
from tests.httpclient import Answer, get, request

RACE = "ABCDEF-1-abcdefgh"
"""Archived in DictRecords; ``LIVE`` is not (yet)."""
LIVE = "ABCDEF-2-bcdefghi"
ANN = "pANN0000000"


@pytest.fixture
def records() -> DictRecords:
    return DictRecords()


@pytest.fixture
async def server(make_memory_server: MakeServer, records: DictRecords) -> RaceServer:
    return await make_memory_server(records=records)


async def api(server: RaceServer, target: str, headers: dict[str, str] | None = None) -> Answer:
    answer = await get(server.port, target, headers)
    assert answer.headers["access-control-allow-origin"] == "*", target  # every API answer, errors too
    return answer


async def test_a_race_document_with_its_cache_headers(server: RaceServer, records: DictRecords) -> None:
    answer = await api(server, f"/api/v1/races/{RACE}")
    assert answer.status == 200 and answer.json() == records.races[RACE]
    assert answer.headers["cache-control"] == "public, max-age=3600"  # archived: it changes no more
    assert answer.body.decode() == answer.body.decode().replace(", ", ",")  # compact JSON
    live = await api(server, f"/api/v1/races/{LIVE}")
    assert live.status == 200 and live.headers["cache-control"] == "public, max-age=10"
    assert live.headers["etag"] != answer.headers["etag"]


async def test_an_unchanged_document_is_304(server: RaceServer, records: DictRecords) -> None:
    first = await api(server, f"/api/v1/races/{RACE}")
    tag = first.headers["etag"]
    for held in (tag, f"W/{tag}", f'"other", {tag}', "*"):
        again = await api(server, f"/api/v1/races/{RACE}", {"If-None-Match": held})
        assert again.status == 304 and again.body == b"", held
        assert again.headers["etag"] == tag and again.headers["cache-control"] == first.headers["cache-control"]
    assert (await api(server, f"/api/v1/races/{RACE}", {"If-None-Match": '"stale"'})).status == 200
    records.races[RACE] = {**records.races[RACE], "racers": []}  # a deleted account changes a race
    changed = await api(server, f"/api/v1/races/{RACE}", {"If-None-Match": tag})
    assert changed.status == 200 and changed.headers["etag"] != tag


async def test_head_on_the_api_is_the_get_without_its_body(server: RaceServer) -> None:
    body = await api(server, f"/api/v1/races/{RACE}")
    head = await request(server.port, "HEAD", f"/api/v1/races/{RACE}")
    assert head.status == 200 and head.body == b""
    assert head.headers["content-length"] == str(len(body.body)) and head.headers["etag"] == body.headers["etag"]


@pytest.mark.parametrize(
    ("target", "what"),
    [
        ("/api/v1/races/ABCDEF-9-abcdefgh", "no race"),
        ("/api/v1/players/pNOBODY0000", "no player"),
        ("/api/v1/players/pNOBODY0000/races", "no player"),
        ("/api/v1/players/pNOBODY0000/rivals", "no player"),
        ("/api/v1/leaderboards/klondike", "no preset"),
        ("/api/v1/challenges/nope", "no challenge"),
    ],
)
async def test_what_is_not_there_is_404_json_cached_briefly(server: RaceServer, target: str, what: str) -> None:
    answer = await api(server, target)
    assert answer.status == 404 and answer.error_code() == "not-found"
    assert answer.json()["error"]["message"].startswith(what)
    assert answer.headers["cache-control"] == "public, max-age=10"


@pytest.mark.parametrize(
    "target",
    [
        "/api/v1/races/not-a-race",
        "/api/v1/races/abcdef-1-abcdefgh",  # codes are upper case
        f"/api/v1/races/{RACE}?x=1",  # no parameters here
        "/api/v1/challenges/a%20b",
        f"/api/v1/players/{ANN}/races?limit=0",
        f"/api/v1/players/{ANN}/races?limit=101",
        f"/api/v1/players/{ANN}/races?limit=ten",
        f"/api/v1/players/{ANN}/races?limit=%EF%BC%95",  # a full-width digit five
        f"/api/v1/players/{ANN}/races?limit=5&limit=6",
        f"/api/v1/players/{ANN}/races?cursor=has%20space",
        f"/api/v1/players/{ANN}/races?cursor=j7",  # the right form, but never given out
        f"/api/v1/players/{ANN}/races?limt=5",
        f"/api/v1/players/{ANN}/rivals?limit=0",
        f"/api/v1/players/{ANN}/rivals?limit=51",
        f"/api/v1/players/{ANN}/rivals?limit=x",
        f"/api/v1/players/{ANN}/rivals?cursor=i1",  # one list: no pages
        "/api/v1/players/a%00b",
        "/api/v1/players/%FF",
        "/api/v1/players/" + "x" * 65,
        "/api/v1/leaderboards/seahaven?period=month",
        "/api/v1/leaderboards/seahaven?grade=easy",
        "/api/v1/leaderboards/seahaven?period=day&day=2026-02-30",
        "/api/v1/leaderboards/seahaven?period=day&day=26-02-03",
        "/api/v1/leaderboards/seahaven?day=2026-02-03",  # period all: a day means nothing
        "/api/v1/leaderboards/seahaven?offset=-1",
        "/api/v1/leaderboards/seahaven?offset=10001",
        "/api/v1/leaderboards/seahaven?a=1&b=2&c=3&d=4&e=5&f=6&g=7&h=8&i=9&j=10&k=11",
    ],
)
async def test_bad_parameters_are_400_with_a_message(server: RaceServer, target: str) -> None:
    answer = await api(server, target)
    assert answer.status == 400 and answer.error_code() == "bad-request", answer.body
    assert answer.json()["error"]["message"]
    assert answer.headers["cache-control"] == "no-store"


async def test_a_players_page_and_their_races_a_page_at_a_time(server: RaceServer, records: DictRecords) -> None:
    page = await api(server, f"/api/v1/players/{ANN}")
    assert page.status == 200 and page.json() == records.players[ANN]
    assert page.headers["cache-control"] == "public, max-age=10"
    seen: list[dict[str, Any]] = []
    target = f"/api/v1/players/{ANN}/races?limit=4"
    while True:
        answer = await api(server, target)
        assert answer.status == 200
        document = answer.json()
        seen += document["races"]
        if document["next"] is None:
            break
        target = f"/api/v1/players/{ANN}/races?limit=4&cursor={document['next']}"
    assert seen == records.player_pages[ANN]
    assert ("player_races", (ANN, 4, "i4")) in records.asked  # the cursor reached the reader as given
    default = (await api(server, f"/api/v1/players/{ANN}/races")).json()
    assert len(default["races"]) == 6 and default["next"] is None  # 20 at most by default


async def test_a_players_rivals_pass_their_limit(server: RaceServer, records: DictRecords) -> None:
    answer = await api(server, f"/api/v1/players/{ANN}/rivals")
    assert answer.status == 200 and answer.json() == {"player": ANN, "rivals": records.rivals[ANN]}
    assert answer.headers["cache-control"] == "public, max-age=10"
    assert records.asked[-2:] == [("player", (ANN,)), ("player_rivals", (ANN, 20))]  # 404 first, as the others
    for limit in ("1", "50"):
        assert (await api(server, f"/api/v1/players/{ANN}/rivals?limit={limit}")).status == 200
        assert records.asked[-1] == ("player_rivals", (ANN, int(limit)))
    refused = await api(server, f"/api/v1/players/{ANN}/rivals?limit=51")
    assert refused.json()["error"]["message"] == "limit must be a whole number from 1 to 50, not '51'"


async def test_a_handle_in_any_script_reaches_the_reader_decoded(server: RaceServer, records: DictRecords) -> None:
    answer = await api(server, "/api/v1/players/%C3%A9lodie")
    assert answer.status == 404
    assert ("player", ("élodie",)) in records.asked


async def test_leaderboards_pass_their_parameters_and_page_by_offset(server: RaceServer, records: DictRecords) -> None:
    answer = await api(server, "/api/v1/leaderboards/seahaven")
    document = answer.json()
    assert answer.status == 200 and answer.headers["cache-control"] == "public, max-age=30"
    assert (document["period"], document["grade"], document["day"]) == ("all", None, None)
    assert [e["rank"] for e in document["entries"]] == list(range(1, 21)) and document["next_offset"] == 20
    rest = (await api(server, "/api/v1/leaderboards/seahaven?offset=20&limit=100")).json()
    assert [e["rank"] for e in rest["entries"]] == list(range(21, 26)) and rest["next_offset"] is None
    await api(server, "/api/v1/leaderboards/seahaven-3cells?period=day&day=2026-02-03&grade=fiendish&limit=5")
    assert records.asked[-1:] == [("leaderboard", ("seahaven-3cells", "day", "fiendish", "2026-02-03", 5, 0))]
    await api(server, "/api/v1/leaderboards/seahaven?period=week")
    assert records.asked[-1:] == [("leaderboard", ("seahaven", "week", None, None, 20, 0))]


async def test_a_challenge(server: RaceServer, records: DictRecords) -> None:
    answer = await api(server, "/api/v1/challenges/ch1")
    assert answer.status == 200 and answer.json() == records.challenges["ch1"]


async def test_a_players_rating_history_is_paged_by_the_readers_cursor(
    server: RaceServer, records: DictRecords
) -> None:
    ann = next(iter(records.players))
    first = await api(server, f"/api/v1/players/{ann}/ratings?limit=1")
    assert first.status == 200 and first.headers["cache-control"] == "public, max-age=10"
    page = first.json()
    assert page["history"] == records.rating_changes[ann][:1] and page["next"] == "i1"
    rest = (await api(server, f"/api/v1/players/{ann}/ratings?limit=1&cursor=i1&preset=seahaven")).json()
    assert rest["history"] == records.rating_changes[ann][1:] and rest["next"] is None
    assert records.asked[-1:] == [("player_ratings", (ann, "seahaven", 1, "i1"))]
    assert (await api(server, "/api/v1/players/pNOBODY0000/ratings")).status == 404
    refused = await api(server, f"/api/v1/players/{ann}/ratings?preset=chess")
    assert refused.status == 400 and "preset must be one of" in refused.json()["error"]["message"]
    assert (await api(server, f"/api/v1/players/{ann}/ratings?cursor=zz")).status == 400  # not the reader's


async def test_the_rating_board_pages_by_offset(server: RaceServer, records: DictRecords) -> None:
    answer = await api(server, "/api/v1/ratings/seahaven")
    assert answer.status == 200 and answer.headers["cache-control"] == "public, max-age=30"
    board = answer.json()
    assert [e["rank"] for e in board["entries"]] == list(range(1, 21)) and board["next_offset"] == 20
    rest = (await api(server, "/api/v1/ratings/seahaven-3cells?offset=20&limit=100")).json()
    assert [e["rank"] for e in rest["entries"]] == list(range(21, 26)) and rest["next_offset"] is None
    assert records.asked[-1:] == [("rating_board", ("seahaven-3cells", 100, 20))]
    assert (await api(server, "/api/v1/ratings/chess")).status == 404
    assert (await api(server, "/api/v1/ratings/seahaven?period=week")).status == 400  # no such parameter


async def test_the_openapi_document_is_served_with_the_api(server: RaceServer) -> None:
    answer = await api(server, "/api/v1/openapi.json")
    document = answer.json()
    assert answer.status == 200 and document["openapi"].startswith("3.1")
    assert answer.headers["cache-control"] == "public, max-age=300" and answer.headers["etag"]
    assert set(document["paths"]) == {
        "/api/v1/openapi.json",
        "/api/v1/asyncapi.json",
        "/api/v1/races/{race_id}",
        "/api/v1/races/{race_id}/record",
        "/api/v1/races/{race_id}/analysis",
        "/api/v1/keys",
        "/api/v1/deal-lists",
        "/api/v1/deal-lists/{preset}",
        "/api/v1/players/{player}",
        "/api/v1/players/{player}/races",
        "/api/v1/players/{player}/rivals",
        "/api/v1/players/{player}/ratings",
        "/api/v1/players/{player}/arenas",
        "/api/v1/arenas",
        "/api/v1/arenas/{code}",
        "/api/v1/leaderboards/{preset}",
        "/api/v1/ratings/{preset}",
        "/api/v1/challenges/{challenge}",
    }


async def test_arenas_live_from_the_store_and_finished_from_the_records(
    server: RaceServer, records: DictRecords
) -> None:
    listed = await api(server, "/api/v1/arenas")
    assert listed.status == 200 and listed.headers["cache-control"] == "public, max-age=10"
    assert listed.json() == {"live": [], "upcoming": [], "finished": [records.recent_arenas_view()[0]]}
    finished = await api(server, "/api/v1/arenas/ARENA1")
    assert finished.status == 200 and finished.json() == records.arenas["ARENA1"]
    assert finished.headers["cache-control"] == "public, max-age=3600"  # on record: final
    # A live arena: in the store, with its standings as they stand (the records are not asked).
    meta = await server.arenas.open("seahaven", None, fake(server).now() + 60_000, 30, ANN)
    asked = len(records.asked)
    upcoming = (await api(server, "/api/v1/arenas")).json()["upcoming"]
    assert [(a["code"], a["phase"], a["archived"], a["created_by"]) for a in upcoming] == [
        (meta.code, "waiting", False, ANN)
    ]
    live = await api(server, f"/api/v1/arenas/{meta.code}")
    assert (
        live.status == 200 and live.json()["standings"] == [] and live.headers["cache-control"] == "public, max-age=10"
    )
    assert [m for m, _ in records.asked[asked:]] == ["recent_arenas"]
    unknown = await api(server, "/api/v1/arenas/ZZZZZZ")
    assert unknown.status == 404 and unknown.error_code() == "not-found"
    for bad in ("zzzzzz", "ZZZZZ", "ZZZZZI"):  # upper case, six characters of the codes' alphabet
        assert (await api(server, f"/api/v1/arenas/{bad}")).status == 400, bad
    records.failure = ConnectionRefusedError("database down")
    assert (await api(server, "/api/v1/arenas/ARENA1")).status == 503
    assert (await api(server, f"/api/v1/arenas/{meta.code}")).status == 200  # live: the store's


async def test_a_players_arenas_page_on(server: RaceServer, records: DictRecords) -> None:
    first = (await api(server, f"/api/v1/players/{ANN}/arenas?limit=2")).json()
    assert [a["code"] for a in first["arenas"]] == ["ARENA1", "ARENA1"] and first["next"] == "i2"
    rest = (await api(server, f"/api/v1/players/{ANN}/arenas?cursor=i2")).json()
    assert len(rest["arenas"]) == 1 and rest["next"] is None
    assert (await api(server, "/api/v1/players/nobody/arenas")).status == 404
    assert (await api(server, f"/api/v1/players/{ANN}/arenas?cursor=zz")).status == 400


async def test_without_records_the_arenas_are_the_stores(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()  # no records
    meta = await server.arenas.open("seahaven", None, fake(server).now(), 30, ANN)
    listed = (await api(server, "/api/v1/arenas")).json()
    assert [a["code"] for a in listed["live"]] == [meta.code] and listed["finished"] == []
    assert (await api(server, f"/api/v1/arenas/{meta.code}")).json()["phase"] == "running"
    assert (await api(server, "/api/v1/arenas/ZZZZZZ")).status == 404
    assert (await api(server, f"/api/v1/players/{ANN}/arenas")).status == 503


async def test_records_off_is_503_and_the_description_still_served(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()  # no records
    answer = await api(server, f"/api/v1/races/{RACE}")
    assert answer.status == 503 and answer.error_code() == "unavailable"
    assert "records are off" in answer.json()["error"]["message"] and "retry-after" not in answer.headers
    assert (await api(server, "/api/v1/openapi.json")).status == 200


async def test_records_out_of_reach_are_503_with_retry_after(server: RaceServer, records: DictRecords) -> None:
    records.failure = ConnectionRefusedError("database down")
    answer = await api(server, f"/api/v1/races/{RACE}")
    assert answer.status == 503 and answer.error_code() == "unavailable"
    assert answer.headers["retry-after"] == "5" and answer.headers["cache-control"] == "no-store"
    records.failure = None
    records.hang = True
    server.http.api.read_timeout = 0.2
    stalled = await api(server, "/api/v1/leaderboards/seahaven")
    assert stalled.status == 503 and "in time" in stalled.json()["error"]["message"]


async def test_a_reader_bug_is_one_500_and_the_server_serves_on(
    server: RaceServer, records: DictRecords, caplog: pytest.LogCaptureFixture
) -> None:
    records.races[RACE] = {"not": float("nan")}  # not JSON: the encoder refuses it
    answer = await api(server, f"/api/v1/races/{RACE}")
    assert answer.status == 500 and answer.error_code() == "internal"
    assert any("event=http.error" in r.getMessage() for r in caplog.records)
    assert (await api(server, f"/api/v1/races/{LIVE}")).status == 200


async def test_the_rate_limit_is_per_address_on_the_servers_clock(server: RaceServer) -> None:
    """40 at once, then 429 with Retry-After until the (fake) clock has refilled a token; the
    page and /healthz are never limited."""
    for _ in range(API_BURST):
        assert (await api(server, "/api/v1/challenges/ch1")).status == 200
    limited = await api(server, "/api/v1/challenges/ch1")
    assert limited.status == 429 and limited.error_code() == "rate-limited"
    assert limited.headers["retry-after"] == "1" and limited.headers["cache-control"] == "no-store"
    assert (await api(server, "/api/v1/nothing")).status == 429  # every /api/v1 request counts
    assert (await get(server.port, "/healthz")).status == 200
    assert (await get(server.port, "/")).status == 200
    fake(server).advance(125)  # 20 a second: two and a half tokens
    assert [(await api(server, "/api/v1/challenges/ch1")).status for _ in range(3)] == [200, 200, 429]


@pytest.mark.parametrize("trusted", [True, False])
async def test_behind_a_trusted_proxy_each_forwarded_client_has_its_own_limit(
    make_memory_server: MakeServer, records: DictRecords, trusted: bool
) -> None:
    server = await make_memory_server(records=records, trusted_proxies=("127.0.0.0/8",) if trusted else ())
    server.http.limits = AddressLimits(rate=1, burst=2)

    async def status(client: str) -> int:
        forwarded = {"X-Forwarded-For": f"203.0.113.7, {client}"}  # the last entry is the proxy's
        return (await api(server, "/api/v1/challenges/ch1", forwarded)).status

    assert [await status("198.51.100.1") for _ in range(3)] == [200, 200, 429]
    # Trusted: another client behind the same balancer is not limited by the first; untrusted:
    # the header is ignored, and everyone is 127.0.0.1.
    assert await status("198.51.100.2") == (200 if trusted else 429)
