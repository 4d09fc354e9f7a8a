"""The store's ``BanList`` contract, on memory, one Redis and a Redis Cluster: the moderators' entries
by key, replaced by the next put, gone once lifted; and the node's copy of them (``BanBook``): what a
hello is refused for, and ended entries dropped."""

from __future__ import annotations

from protocol.errors import ErrorCode
from server.moderation.bans import Ban, BanBook, ban_value
from server.store.stores import Store
from tests.fakeclock import FakeClock


async def test_entries_are_kept_replaced_and_lifted(store: Store) -> None:
    assert await store.bans() == {}
    await store.put_ban("name:bob", b"one")
    await store.put_ban("address:10.0.0.1", b"two")
    await store.put_ban("name:bob", b"three")
    assert await store.bans() == {"name:bob": b"three", "address:10.0.0.1": b"two"}
    assert await store.lift_ban("name:bob") is True
    assert await store.lift_ban("name:bob") is False
    assert await store.bans() == {"address:10.0.0.1": b"two"}


async def test_the_book_refuses_what_the_list_says_until_it_ends(store: Store) -> None:
    clock = FakeClock(1_000_000)
    book = BanBook(store, clock)
    for entry in (
        Ban("name", ban_value("name", "B0B"), 1_060_000, "abuse"),
        Ban("network", ban_value("network", "10.1.2.3/16"), None, "a flood"),
        Ban("reserved", ban_value("reserved", "Moderator"), None, ""),
        Ban("room", ban_value("room", "abcd12"), 1_060_000, ""),
    ):
        await store.put_ban(entry.key, entry.dump())
    await book.refresh()
    assert set(book.entries) == {"name:bob", "network:10.1.0.0/16", "reserved:moderator", "room:ABCD12"}
    refused = book.refusal("bob", "127.0.0.1")
    assert refused is not None and refused.code == ErrorCode.BANNED and "abuse" in refused.message
    refused = book.refusal("Ann", "10.1.200.7")
    assert refused is not None and refused.code == ErrorCode.BANNED and "a flood" in refused.message
    assert book.refusal("Ann", "10.2.0.1") is None and book.refusal("Ann", "::1") is None
    refused = book.refusal("MODERATOR", "127.0.0.1")
    assert refused is not None and refused.code == ErrorCode.NAME_RESERVED
    assert book.refusal("Moderator", "127.0.0.1", handle="moderator") is None  # the registered holder
    assert book.closed("ABCD12") is not None

    clock.advance(60_000)  # the name ban and the closed room end; the store forgets them at the next read
    assert book.refusal("bob", "127.0.0.1") is None and book.closed("ABCD12") is None
    await book.refresh()
    assert set(await store.bans()) == {"network:10.1.0.0/16", "reserved:moderator"}
