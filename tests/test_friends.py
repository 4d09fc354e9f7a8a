"""Friends, presence and invitations (docs/protocol.md, section 24) on a server with records, as
registered players' clients use them: requests by handle and by id, accepted, declined, removed,
blocked; presence pushed as a friend moves from the lobby to a room and a race and goes offline;
invitations to a room and to "a race now", accepted, declined, expired; and the bad input the
issue lists, each refused with its code and nothing sent."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from protocol.errors import ErrorCode
from protocol.messages import (
    AddFriend,
    AnswerInvite,
    BlockPlayer,
    ClaimHandle,
    CreateRoom,
    Error,
    Friend,
    FriendRef,
    Friends,
    FriendsRequest,
    Identity,
    Invitation,
    Invite,
    InviteClosed,
    Invited,
    JoinRoom,
    Leave,
    Ok,
    Presence,
    RaceAgain,
    Ready,
    Register,
    RemoveFriend,
    Resign,
    Result,
    RoomState,
    SetName,
    SetPresence,
    Started,
    UnblockPlayer,
)
from server.app import RaceServer
from server.play import friends as friends_module
from tests.recording import recording_server
from tests.wsclient import WsClient, registered


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[RaceServer]:
    async with recording_server(tmp_path, players=True) as race:
        yield race


def url(server: RaceServer) -> str:
    return f"ws://127.0.0.1:{server.port}/"


async def player(server: RaceServer, name: str, handle: str | None = None) -> WsClient:
    client = await registered(url(server), name)
    if handle is not None:
        assert isinstance(await client.call(ClaimHandle(handle=handle)), Identity)
    return client


async def friends(a: WsClient, b: WsClient) -> None:
    """``a`` asks ``b`` by id, ``b`` accepts: friends."""
    assert isinstance(await a.call(AddFriend(player=b.player)), Friends)
    await b.expect(Friends, where=lambda f: a.player in [r.player for r in f.incoming])
    accepted = await b.call(AddFriend(player=a.player))
    assert isinstance(accepted, Friends) and a.player in [f.player for f in accepted.friends]
    await a.expect(Friends, where=lambda f: b.player in [x.player for x in f.friends])


async def test_a_request_by_handle_is_accepted_and_each_sees_the_other(server: RaceServer) -> None:
    ann, bob = await player(server, "Ann", "ann"), await player(server, "Bob", "bobby")
    asked = await ann.call(AddFriend(handle="BOBBY"))  # handles compare folded
    assert isinstance(asked, Friends)
    assert [(r.player, r.name, r.handle) for r in asked.outgoing] == [(bob.player, "Bob", "bobby")]
    assert asked.friends == () and asked.shown_to == "friends"
    told = await bob.expect(Friends)
    assert [(r.player, r.handle) for r in told.incoming] == [(ann.player, "ann")]
    accepted = await bob.call(AddFriend(player=ann.player))
    assert isinstance(accepted, Friends) and accepted.incoming == ()
    (friend,) = accepted.friends
    assert (friend.player, friend.name, friend.handle) == (ann.player, "Ann", "ann")
    mine = await ann.expect(Friends, where=lambda f: bool(f.friends))
    assert [f.player for f in mine.friends] == [bob.player] and mine.outgoing == ()
    listed = await ann.call(FriendsRequest())
    assert isinstance(listed, Friends) and [f.player for f in listed.friends] == [bob.player]
    for client in (ann, bob):
        await client.close()


async def test_presence_follows_a_friend_from_the_lobby_to_a_race_and_offline(server: RaceServer) -> None:
    ann, bob = await player(server, "Ann"), await player(server, "Bob")
    await friends(ann, bob)
    listed = await ann.call(FriendsRequest())
    assert isinstance(listed, Friends)
    await ann.expect(Presence, where=lambda p: p.player == bob.player and p.state == "lobby")
    state = await bob.call(CreateRoom(deal_number=1))
    assert isinstance(state, RoomState)
    waiting = await ann.expect(Presence, where=lambda p: p.player == bob.player and p.state == "waiting")
    assert waiting.room == state.room  # how soon: benchmarks/invitations.py
    cid = await player(server, "Cid")
    assert isinstance(await cid.call(JoinRoom(room=state.room)), RoomState)
    for racer in (bob, cid):
        assert isinstance(await racer.call(Ready()), Ok)
    await bob.expect(Started)
    await ann.expect(Presence, where=lambda p: p.player == bob.player and p.state == "racing" and p.room == state.room)
    listed = await ann.call(FriendsRequest())
    assert isinstance(listed, Friends)
    assert [(f.state, f.room) for f in listed.friends] == [("racing", state.room)]
    await bob.close()
    await ann.expect(Presence, where=lambda p: p.player == bob.player and p.state == "offline")
    await ann.close()
    await cid.close()


async def test_an_invitation_to_my_room_seats_the_friend_and_tells_the_inviter(server: RaceServer) -> None:
    ann, bob = await player(server, "Ann"), await player(server, "Bob")
    await friends(ann, bob)
    state = await ann.call(CreateRoom(deal_number=1, seats=3))
    assert isinstance(state, RoomState)
    sent = await ann.call(Invite(player=bob.player))
    assert isinstance(sent, Invitation) and (sent.player, sent.room) == (bob.player, state.room)
    invited = await bob.expect(Invited)
    assert (invited.invite, invited.player, invited.name, invited.room) == (sent.invite, ann.player, "Ann", state.room)
    assert invited.preset == "seahaven" and invited.expires_at == sent.expires_at
    seated = await bob.call(AnswerInvite(invite=invited.invite, accept=True))
    assert isinstance(seated, RoomState) and seated.room == state.room and seated.you == bob.player
    closed = await ann.expect(InviteClosed)
    assert (closed.invite, closed.player, closed.answer) == (sent.invite, bob.player, "accepted")
    again = await bob.error(AnswerInvite(invite=invited.invite, accept=True))  # answered once only
    assert again.code == ErrorCode.INVITE_NOT_FOUND
    for client in (ann, bob):
        await client.close()


async def test_a_race_now_makes_the_room_and_a_declined_invitation_says_so(server: RaceServer) -> None:
    ann, bob = await player(server, "Ann"), await player(server, "Bob")
    await friends(ann, bob)
    made = await ann.call(Invite(player=bob.player))  # in no room: the server makes one
    assert isinstance(made, RoomState) and made.you == ann.player and made.seats == 2 and not made.public
    sent = await ann.expect(Invitation)
    assert sent.room == made.room
    invited = await bob.expect(Invited)
    assert isinstance(await bob.call(AnswerInvite(invite=invited.invite, accept=False)), Ok)
    for client in (ann, bob):  # both hear it (the invited player's other tabs close their toast)
        closed = await client.expect(InviteClosed)
        assert (closed.invite, closed.answer) == (sent.invite, "declined")
    for client in (ann, bob):
        await client.close()


async def test_an_unanswered_invitation_expires_for_both(server: RaceServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(friends_module, "INVITE_SECONDS", 1)
    ann, bob = await player(server, "Ann"), await player(server, "Bob")
    await friends(ann, bob)
    sent = await ann.call(Invite(player=bob.player))
    assert isinstance(sent, RoomState)
    invited = await bob.expect(Invited)
    for client in (ann, bob):
        closed = await client.expect(InviteClosed, wait=5)
        assert (closed.invite, closed.answer) == (invited.invite, "expired")
    late = await bob.error(AnswerInvite(invite=invited.invite, accept=True))
    assert late.code == ErrorCode.INVITE_NOT_FOUND
    for client in (ann, bob):
        await client.close()


async def test_hidden_presence_shows_offline_and_a_block_ends_everything(server: RaceServer) -> None:
    ann, bob = await player(server, "Ann"), await player(server, "Bob")
    await friends(ann, bob)
    await ann.expect(Presence, where=lambda p: p.player == bob.player and p.state == "lobby")
    hidden = await bob.call(SetPresence(shown_to="nobody"))
    assert isinstance(hidden, Friends) and hidden.shown_to == "nobody"
    await ann.expect(Presence, where=lambda p: p.player == bob.player and p.state == "offline")
    listed = await ann.call(FriendsRequest())
    assert isinstance(listed, Friends) and [f.state for f in listed.friends] == ["offline"]
    assert isinstance(await bob.call(CreateRoom(deal_number=1)), RoomState)
    await asyncio.sleep(1.2)  # two looks: nothing said of a hidden player
    assert not [e for e in await ann.drain() if isinstance(e, Presence)]

    blocked = await bob.call(BlockPlayer(player=ann.player))
    assert (
        isinstance(blocked, Friends) and blocked.friends == () and [b.player for b in blocked.blocked] == [ann.player]
    )
    told = await ann.expect(Friends, where=lambda f: f.friends == ())
    assert told.blocked == ()  # a block is the blocker's to see
    refused = await ann.error(AddFriend(player=bob.player))
    assert refused.code == ErrorCode.BLOCKED
    refused = await ann.error(Invite(player=bob.player))
    assert refused.code == ErrorCode.BLOCKED
    assert not [e for e in await bob.drain() if isinstance(e, (Invited, Friends))]  # nothing reached Bob
    own = await bob.error(AddFriend(player=ann.player))
    assert own.code == ErrorCode.BLOCKED and "unblock" in own.message
    assert isinstance(await bob.call(UnblockPlayer(player=ann.player)), Friends)
    assert isinstance(await ann.call(AddFriend(player=bob.player)), Friends)  # asking works again
    for client in (ann, bob):
        await client.close()


async def test_a_friendship_made_while_the_presence_is_written_hears_it_at_the_next_look(
    server: RaceServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bob's new state is being written to the store when Ann and he become friends: the look
    that writes it read his circle before (without Ann), and Ann hears his state at the next look,
    not when it is renewed 30 s later (as she did, beside two busy loops)."""
    ann, bob = await player(server, "Ann"), await player(server, "Bob")
    writing, go_on = asyncio.Event(), asyncio.Event()
    put_presence = server.store.put_presence

    async def slow_for_bob(player: str, value: bytes, ttl: float) -> None:
        if player == bob.player and not go_on.is_set():
            writing.set()
            await go_on.wait()
        await put_presence(player, value, ttl)

    monkeypatch.setattr(server.store, "put_presence", slow_for_bob)
    room = await bob.call(CreateRoom(deal_number=1))
    assert isinstance(room, RoomState)
    await asyncio.wait_for(writing.wait(), 10)  # a look is writing "waiting in code"
    await friends(ann, bob)
    go_on.set()
    heard = await ann.expect(Presence, where=lambda p: p.player == bob.player)
    assert (heard.state, heard.room) == ("waiting", room.room)
    for client in (ann, bob):
        await client.close()


async def test_remove_declines_a_request_and_ends_a_friendship(server: RaceServer) -> None:
    ann, bob = await player(server, "Ann"), await player(server, "Bob")
    assert isinstance(await ann.call(AddFriend(player=bob.player)), Friends)
    declined = await bob.call(RemoveFriend(player=ann.player))
    assert isinstance(declined, Friends) and declined.incoming == ()
    assert (await ann.expect(Friends, where=lambda f: f.outgoing == ())).friends == ()
    await friends(ann, bob)
    ended = await ann.call(RemoveFriend(player=bob.player))
    assert isinstance(ended, Friends) and ended.friends == ()
    await bob.expect(Friends, where=lambda f: f.friends == ())
    stranger = await ann.error(Invite(player=bob.player))
    assert stranger.code == ErrorCode.NOT_FRIENDS
    for client in (ann, bob):
        await client.close()


async def test_bad_input_is_refused_with_its_code_and_sends_nothing(server: RaceServer) -> None:
    ann, bob, cid = await player(server, "Ann"), await player(server, "Bob"), await player(server, "Cid")
    for message, code in (
        (AddFriend(handle="nobody-has-this"), ErrorCode.PLAYER_NOT_FOUND),
        (AddFriend(player="p-unknown"), ErrorCode.PLAYER_NOT_FOUND),
        (AddFriend(player=ann.player), ErrorCode.BAD_FIELD),  # oneself
        (AddFriend(), ErrorCode.BAD_FIELD),
        (AddFriend(handle="x", player=bob.player), ErrorCode.BAD_FIELD),
        (BlockPlayer(player="p-unknown"), ErrorCode.PLAYER_NOT_FOUND),
        (Invite(player=cid.player), ErrorCode.NOT_FRIENDS),
        (AnswerInvite(invite="ABCDEFGHJKMN", accept=True), ErrorCode.INVITE_NOT_FOUND),
    ):
        refused = await ann.error(message)
        assert refused.code == code, (message, refused)
    await friends(ann, bob)
    await friends(ann, cid)
    state = await ann.call(CreateRoom(deal_number=1))  # two seats
    assert isinstance(state, RoomState)
    sent = await ann.call(Invite(player=bob.player))
    assert isinstance(sent, Invitation)
    for_bob = await bob.expect(Invited)
    stolen = await cid.error(AnswerInvite(invite=for_bob.invite, accept=True))  # not Cid's to answer
    assert stolen.code == ErrorCode.INVITE_NOT_FOUND
    assert isinstance(await bob.call(AnswerInvite(invite=for_bob.invite, accept=True)), RoomState)  # still Bob's
    full = await ann.error(Invite(player=cid.player))
    assert full.code == ErrorCode.ROOM_FULL
    for racer in (ann, bob):
        assert isinstance(await racer.call(Ready()), Ok)
    await ann.expect(Started)
    started = await ann.error(Invite(player=cid.player))
    assert started.code == ErrorCode.RACE_IN_PROGRESS
    assert not [e for e in await cid.drain() if isinstance(e, Invited)]
    for client in (ann, bob, cid):
        await client.close()


async def test_a_flood_of_invitations_is_limited(server: RaceServer) -> None:
    ann, bob = await player(server, "Ann"), await player(server, "Bob")
    await friends(ann, bob)
    assert isinstance(await ann.call(CreateRoom(deal_number=1, seats=8)), RoomState)
    for _ in range(friends_module.INVITES_PER_MINUTE):
        assert isinstance(await ann.call(Invite(player=bob.player)), Invitation)
    flood = await ann.error(Invite(player=bob.player))
    assert flood.code == ErrorCode.RATE_LIMITED
    got = [e for e in await bob.drain(0.3) if isinstance(e, Invited)]
    assert len(got) == friends_module.INVITES_PER_MINUTE
    await ann.call(Leave())
    for client in (ann, bob):
        await client.close()


async def test_an_anonymous_player_and_a_server_without_records_are_told_why(server: RaceServer) -> None:
    guest = await WsClient.open(url(server), "Guest")
    refused = await guest.error(FriendsRequest())
    assert refused.code == ErrorCode.NOT_IDENTIFIED
    await guest.close()


async def test_without_records_friends_are_unavailable(tmp_path: Path) -> None:
    async with recording_server(tmp_path, players=False) as bare:
        guest = await WsClient.open(url(bare), "Guest")
        refused = await guest.error(FriendsRequest())
        assert refused.code == ErrorCode.RECORDS_UNAVAILABLE
        await guest.close()


async def test_leaving_or_hiding_right_after_a_change_still_says_offline(server: RaceServer) -> None:
    """A friends change makes the next look tell each side's presence again; a player who hides or
    goes away before that look was once never said offline (their friends saw them in the lobby
    until the stored presence ran out)."""
    ann, bob, cid = await player(server, "Ann"), await player(server, "Bob"), await player(server, "Cid")
    await friends(ann, bob)
    await friends(cid, bob)
    for friend in (ann, cid):
        await friend.expect(Presence, where=lambda p: p.player == bob.player and p.state == "lobby")
    assert isinstance(await bob.call(RemoveFriend(player=cid.player)), Friends)  # a change...
    assert isinstance(await bob.call(SetPresence(shown_to="nobody")), Friends)  # ...and at once, hidden
    await ann.expect(Presence, where=lambda p: p.player == bob.player and p.state == "offline")
    listed = await ann.call(FriendsRequest())
    assert isinstance(listed, Friends) and [f.state for f in listed.friends] == ["offline"]

    assert isinstance(await ann.call(AddFriend(player=cid.player)), Friends)  # Ann's circle changes
    await ann.close()  # ...and she is gone before the next look
    await bob.expect(Presence, where=lambda p: p.player == ann.player and p.state == "offline")
    for client in (bob, cid):
        await client.close()


async def test_a_race_now_is_refused_while_racing_in_another_tab(server: RaceServer) -> None:
    """A player racing on one connection cannot get a second seat by inviting from another's lobby."""
    first = await WsClient.open(url(server), "Ann")
    identity = await first.call(Register())
    assert isinstance(identity, Identity) and identity.key is not None
    await first.close()
    ann = await WsClient.open(url(server), "Ann", key=identity.key)
    bob, cid = await player(server, "Bob"), await player(server, "Cid")
    await friends(ann, bob)
    state = await ann.call(CreateRoom(deal_number=1))
    assert isinstance(state, RoomState)
    assert isinstance(await cid.call(JoinRoom(room=state.room)), RoomState)
    for racer in (ann, cid):
        assert isinstance(await racer.call(Ready()), Ok)
    await ann.expect(Started)
    other_tab = await WsClient.open(url(server), "Ann", key=identity.key)
    refused = await other_tab.error(Invite(player=bob.player))
    assert refused.code == ErrorCode.ALREADY_IN_ROOM and state.room in refused.message
    assert not [e for e in await bob.drain() if isinstance(e, Invited)]
    for client in (ann, bob, cid, other_tab):
        await client.close()


async def raced(server: RaceServer, names: list[str], spectator: bool = False, **settings: object) -> list[WsClient]:
    """Registered players, not friends, who raced one race together (each resigned), on its
    results, and (``spectator``) one more who watched it, last in the list."""
    clients = [await player(server, name) for name in names]
    state = await clients[0].call(CreateRoom(deal_number=1, seats=len(names), **settings))  # type: ignore[arg-type]
    assert isinstance(state, RoomState)
    for client in clients[1:]:
        assert isinstance(await client.call(JoinRoom(room=state.room)), RoomState)
    watchers = [await player(server, "Dee")] if spectator else []
    for watcher in watchers:
        assert isinstance(await watcher.call(JoinRoom(room=state.room, spectate=True)), RoomState)
    for client in clients:
        assert isinstance(await client.call(Ready()), Ok)
    for client in clients:
        await client.expect(Started)
    for client in clients:
        await client.call(Resign())
    for client in clients:
        await client.expect(Result)
    return [*clients, *watchers]


async def test_race_again_invites_the_group_to_a_new_room_with_a_new_deal(server: RaceServer) -> None:
    ann, bob, cid, dee = await raced(server, ["Ann", "Bob", "Cid"], spectator=True, hints=True, time_limit=600)
    made = await ann.call(RaceAgain())  # they are not friends: having raced makes them a group
    assert isinstance(made, RoomState) and made.you == ann.player
    assert (made.seats, made.public, made.phase, made.hints, made.time_limit) == (3, False, "waiting", True, 600)
    assert [r.player for r in made.racers] == [ann.player]
    assert made.deal is None  # the server's deal, not the chosen one of the last race
    sent = [await ann.expect(Invitation), await ann.expect(Invitation)]
    assert sorted(s.player for s in sent) == sorted([bob.player, cid.player])
    assert {s.room for s in sent} == {made.room}
    invitations = []
    for racer in (bob, cid):
        invited = await racer.expect(Invited)
        assert (invited.player, invited.name, invited.room, invited.again) == (ann.player, "Ann", made.room, True)
        invitations.append(invited)
    assert not any(isinstance(m, Invited) for m in await dee.settle())  # a spectator did not race
    assert not isinstance(await bob.call(Leave()), Error)  # off the results, as the clients do
    seated = await bob.call(AnswerInvite(invite=invitations[0].invite, accept=True))
    assert isinstance(seated, RoomState) and seated.room == made.room and seated.deal is None
    closed = await ann.expect(InviteClosed)
    assert (closed.player, closed.answer) == (bob.player, "accepted")
    for client in (ann, bob, cid, dee):
        await client.close()


async def test_race_again_is_refused_before_the_end_to_spectators_and_past_blocks(server: RaceServer) -> None:
    ann, bob, cid = await player(server, "Ann"), await player(server, "Bob"), await player(server, "Cid")
    state = await ann.call(CreateRoom(deal_number=1))
    assert isinstance(state, RoomState)
    assert isinstance(await bob.call(JoinRoom(room=state.room)), RoomState)
    assert (await ann.error(RaceAgain())).code == ErrorCode.NOT_FINISHED  # nobody has raced yet
    assert (await cid.error(RaceAgain())).code == ErrorCode.NOT_IN_ROOM
    for client in (ann, bob, cid):
        await client.close()
    ann, bob, dee = await raced(server, ["Ann", "Bob"], spectator=True)
    assert (await dee.error(RaceAgain())).code == ErrorCode.NOT_A_RACER
    assert isinstance(await bob.call(BlockPlayer(player=ann.player)), Friends)
    assert (await ann.error(RaceAgain())).code == ErrorCode.BLOCKED
    assert not any(isinstance(m, Invited) for m in await bob.settle())
    assert not isinstance(await ann.call(Leave()), Error)  # still in the last race's room
    for client in (ann, bob, dee):
        await client.close()


async def test_race_again_after_racing_the_computer_has_nobody_to_invite(server: RaceServer) -> None:
    ann = await player(server, "Ann")
    state = await ann.call(CreateRoom(deal_number=1, bot="brisk"))
    assert isinstance(state, RoomState)
    assert isinstance(await ann.call(Ready()), Ok)
    await ann.expect(Started)
    await ann.call(Resign())
    await ann.expect(Result)
    assert (await ann.error(RaceAgain())).code == ErrorCode.NOBODY_TO_INVITE
    await ann.close()


async def test_a_friend_who_claims_a_handle_or_a_name_is_shown_by_it_at_once(server: RaceServer) -> None:
    ann, bob = await player(server, "Ann"), await player(server, "Bob")
    await friends(ann, bob)
    cid = await player(server, "Cid")
    assert isinstance(await cid.call(AddFriend(player=bob.player)), Friends)  # a request, waiting
    assert isinstance(await bob.call(ClaimHandle(handle="bobby")), Identity)

    def shown(listing: Friends) -> list[tuple[str, str | None]]:
        refs: list[Friend | FriendRef] = [*listing.friends, *listing.outgoing]
        return [(r.name, r.handle) for r in refs if r.player == bob.player]

    for client in (ann, cid):
        told = await client.expect(Friends, where=lambda f: shown(f) == [("Bob", "bobby")])
        assert shown(told) == [("Bob", "bobby")]
    assert isinstance(await bob.call(SetName(name="Robert")), Ok)
    told = await ann.expect(Friends, where=lambda f: [r.name for r in f.friends] == ["Robert"])
    assert [r.handle for r in told.friends] == ["bobby"]
    for client in (ann, bob, cid):
        await client.close()
