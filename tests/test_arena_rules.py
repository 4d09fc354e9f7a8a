"""An arena's rules without I/O: points by place, the streak bonus, the standings' order, pairing."""

from __future__ import annotations

import msgpack

from server.play.arena_rules import ArenaMeta, ArenaPlayer, pairings, podium, race_points, ranked, scored


def entry(player: str, points: int = 0, joined: int = 0) -> ArenaPlayer:
    return ArenaPlayer(player, player.title(), "n1", joined, points=points)


def test_points_by_place_and_the_last_gets_none() -> None:
    assert [race_points(p, 4, 0) for p in (1, 2, 3, 4)] == [4, 2, 1, 0]
    assert [race_points(p, 2, 0) for p in (1, 2)] == [2, 0]


def test_two_wins_in_a_row_double_the_next_races_points_until_a_loss() -> None:
    ann = entry("ann")
    for _ in range(2):
        ann = scored(ann, 1, 3)
    assert (ann.points, ann.streak) == (6, 2)
    ann = scored(ann, 1, 3)  # on fire: doubled
    assert (ann.points, ann.streak, ann.wins) == (12, 3, 3)
    ann = scored(ann, 2, 3)  # doubled too, and the streak is over
    assert (ann.points, ann.streak) == (14, 0)
    ann = scored(ann, 2, 3)
    assert ann.points == 15 and ann.races == 5


def test_free_players_race_their_neighbours_in_the_standings_two_to_four_a_race() -> None:
    free = [entry(name, points) for name, points in zip("abcdefg", (9, 1, 8, 2, 7, 3, 6), strict=True)]
    groups = pairings(free)
    assert [[e.player for e in g] for g in groups] == [["a", "c", "e", "g"], ["f", "d", "b"]]
    assert pairings(free[:1]) == []
    assert [len(g) for g in pairings([entry(str(i)) for i in range(5)])] == [3, 2]
    assert [len(g) for g in pairings([entry(str(i)) for i in range(9)])] == [3, 3, 3]


def test_ties_go_to_more_wins_then_fewer_races_then_who_joined_first() -> None:
    a = ArenaPlayer("a", "A", "n", 5, points=4, wins=1, races=2)
    b = ArenaPlayer("b", "B", "n", 1, points=4, wins=1, races=2)
    c = ArenaPlayer("c", "C", "n", 9, points=4, wins=2, races=3)
    assert [e.player for e in ranked([a, b, c])] == ["c", "b", "a"]


def test_the_podium_is_the_first_three_of_those_who_raced() -> None:
    raced = [scored(entry(name), place, 4) for name, place in (("ann", 1), ("bob", 2), ("cat", 3), ("dan", 4))]
    assert [s.player for s in podium([*raced, entry("eve", joined=-1)])] == ["ann", "bob", "cat"]
    # Two raced, two never did (ranked above the loser, 0 points each, on fewer races): two on it.
    two = [scored(entry("ann"), 1, 2), scored(entry("bob", joined=5), 2, 2), entry("cat"), entry("dan")]
    assert [s.player for s in podium(two)] == ["ann", "bob"]
    assert podium([entry("ann")]) == ()


def test_stored_forms_read_back() -> None:
    meta = ArenaMeta("ABCDEF", "seahaven", None, 10, 20, "operator")
    assert ArenaMeta.load(meta.dump()) == meta
    assert len(msgpack.unpackb(meta.dump())) == 6  # a player's arena: as nodes before series wrote it
    hourly = ArenaMeta("ABCDEF", "seahaven", "tricky", 10, 20, "operator", "Hourly", 3_600_000, "file:Hourly")
    assert ArenaMeta.load(hourly.dump()) == hourly
    assert [meta.phase(t) for t in (5, 10, 20)] == ["waiting", "running", "finished"]
    e = scored(entry("ann"), 1, 2)
    assert ArenaPlayer.load(e.dump()) == e
