"""The records' tables (SQLAlchemy Core): portable types only, so one schema serves SQLite and PostgreSQL.

Times are integers, server milliseconds since the Unix epoch (what the rooms' events carry), never
SQL timestamps: the same value on both databases and in the JSON the API serves. A race's columns
copy what the leaderboards filter on out of its settings (preset, deal, grade, chosen, daily...);
``settings`` keeps the whole ``Settings`` as the room had it. The migrations in
``server/records/migrations/versions`` build exactly these tables (a test compares them).
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    Double,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    Table,
    Text,
)

__all__ = [
    "analysis_queue",
    "arena_players",
    "arenas",
    "challenges",
    "friendships",
    "guest_claims",
    "metadata",
    "player_keys",
    "players",
    "presence_settings",
    "race_analyses",
    "race_racers",
    "race_signatures",
    "races",
    "rating_history",
    "ratings",
    "signing_keys",
]

metadata = MetaData(
    # Named constraints, so a later migration can name what it alters on either database.
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

races = Table(
    "races",
    metadata,
    Column("race_id", Text, primary_key=True),
    Column("room", Text, nullable=False),
    Column("number", Integer, nullable=False),
    Column("preset", Text, nullable=False),
    Column("deal", BigInteger, nullable=False),
    Column("deal_code", Text, nullable=False),
    Column("deal_grade", Text),
    Column("chosen", Boolean, nullable=False),
    Column("daily", Text),
    Column("hints_allowed", Boolean, nullable=False),
    Column("undo_allowed", Boolean, nullable=False),
    Column("time_limit_ms", BigInteger),
    Column("settings", JSON, nullable=False),
    Column("started_at", BigInteger, nullable=False),
    Column("ended_at", BigInteger, nullable=False),
    Column("end_reason", Text, nullable=False),
    Column("racer_count", Integer, nullable=False),
    Column("archived_at", BigInteger, nullable=False),
    Index(None, "preset", "ended_at"),  # the week and all-time boards
    Index(None, "daily", "preset"),  # the daily board
)

race_racers = Table(
    "race_racers",
    metadata,
    Column("race_id", Text, ForeignKey("races.race_id", ondelete="CASCADE"), primary_key=True),
    Column("player", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("place", Integer, nullable=False),
    Column("status", Text, nullable=False),
    Column("progress", Integer, nullable=False),
    Column("time_ms", BigInteger),
    Column("hints", Integer, nullable=False),
    Column("undos", Integer, nullable=False),
    Column("bot", Boolean, nullable=False),
    Column("ghost", Boolean, nullable=False),
    # The engine replayed the moves on the race's deal and they win it (``history.proven``).
    Column("proven", Boolean, nullable=False),
    # [[ms from the start, move in the notation or "undo"], ...] in the order the server applied them.
    Column("moves", JSON, nullable=False),
    # The race's end, copied here so a player's races page in index order without a join.
    Column("ended_at", BigInteger, nullable=False),
    Index(None, "player", "ended_at", "race_id"),
    Index(None, "status", "proven"),
)

players = Table(
    "players",
    metadata,
    Column("player", Text, primary_key=True),
    Column("handle", Text, unique=True),
    # The handle's folded form (one name rule: NFC, case folding, look-alikes): the first to claim it wins.
    Column("handle_key", Text, unique=True),
    Column("display_name", Text, nullable=False),
    # sha256 of the player's secret key, hex.
    Column("key_hash", Text, nullable=False),
    Column("password_hash", Text),
    Column("created_at", BigInteger, nullable=False),
    Column("deleted_at", BigInteger),
)

challenges = Table(
    "challenges",
    metadata,
    Column("challenge", Text, primary_key=True),
    Column("race_id", Text, nullable=False),
    # Whose run is the ghost.
    Column("player", Text, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("created_by", Text, nullable=False),
    # The ghost's run must be on record: the racer row itself, not only the race.
    ForeignKeyConstraint(["race_id", "player"], ["race_racers.race_id", "race_racers.player"], ondelete="CASCADE"),
    Index(None, "created_by"),
)

# -- players that last (migration 0002_accounts) --

player_keys = Table(
    "player_keys",
    metadata,
    # sha256 of a secret key, hex: each device's key but the first (``players.key_hash``).
    Column("key_hash", Text, primary_key=True),
    Column("player", Text, ForeignKey("players.player", ondelete="CASCADE"), nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("label", Text),
    Index(None, "player"),
)

# -- ratings (migration 0003_ratings; docs/ratings.md) --

ratings = Table(
    "ratings",
    metadata,
    # A registered player's rating on one preset: the model's belief (mu, sigma), written by the
    # archive in the transaction of each rated race (its row locked meanwhile).
    Column("player", Text, ForeignKey("players.player", ondelete="CASCADE"), primary_key=True),
    Column("preset", Text, primary_key=True),
    Column("mu", Double, nullable=False),
    Column("sigma", Double, nullable=False),
    Column("races", Integer, nullable=False),
    Column("updated_at", BigInteger, nullable=False),
    Index(None, "preset", "mu"),  # the rating board
)

rating_history = Table(
    "rating_history",
    metadata,
    # What one rated race did to one racer's rating: one row per (race, racer), written with the
    # race (so a race archived twice rates once: the second write writes nothing at all).
    Column("race_id", Text, primary_key=True),
    Column("player", Text, primary_key=True),
    Column("preset", Text, nullable=False),
    Column("mu_before", Double, nullable=False),
    Column("sigma_before", Double, nullable=False),
    Column("mu_after", Double, nullable=False),
    Column("sigma_after", Double, nullable=False),
    Column("rating_before", Integer, nullable=False),
    Column("rating_after", Integer, nullable=False),
    # Rated races on the preset so far, this one counted.
    Column("races", Integer, nullable=False),
    # The race's end, copied here so a player's history pages in index order without a join.
    Column("ended_at", BigInteger, nullable=False),
    ForeignKeyConstraint(["race_id", "player"], ["race_racers.race_id", "race_racers.player"], ondelete="CASCADE"),
    Index(None, "player", "preset", "ended_at", "race_id"),
)

# -- finished arenas (migration 0004_arenas; docs/arenas.md) --

arenas = Table(
    "arenas",
    metadata,
    # The arena's code (its link /a/CODE): a finished arena is written once, keyed by it.
    Column("code", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("preset", Text, nullable=False),
    Column("deal_grade", Text),
    # Who made it: a player id, or "operator" (scheduled by ``seahaven-server arena``).
    Column("created_by", Text, nullable=False),
    Column("starts_at", BigInteger, nullable=False),
    Column("ends_at", BigInteger, nullable=False),
    Column("player_count", Integer, nullable=False),
    Column("archived_at", BigInteger, nullable=False),
    Index(None, "ends_at", "code"),  # the newest finished arenas
)

arena_players = Table(
    "arena_players",
    metadata,
    # One player's final standing in a finished arena, written in the arena's transaction.
    Column("code", Text, ForeignKey("arenas.code", ondelete="CASCADE"), primary_key=True),
    Column("player", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("place", Integer, nullable=False),
    Column("points", Integer, nullable=False),
    Column("wins", Integer, nullable=False),
    Column("races", Integer, nullable=False),
    # The arena's end, copied here so a player's arenas page in index order without a join.
    Column("ends_at", BigInteger, nullable=False),
    Index(None, "player", "ends_at", "code"),
)


# -- a guest's races kept by the player it became (migration 0005_guest_claims) --

guest_claims = Table(
    "guest_claims",
    metadata,
    # The guest's (anonymous session's) player id: claimed once, by the first player it became.
    Column("guest", Text, primary_key=True),
    Column("player", Text, ForeignKey("players.player", ondelete="CASCADE"), nullable=False),
    Column("claimed_at", BigInteger, nullable=False),
    Index(None, "player"),
)

signing_keys = Table(
    "signing_keys",
    metadata,
    # Every key that signed a race here (docs/fairness.md): served at /api/v1/keys, so a record's
    # key can be checked against the server's list after the key was rotated out.
    Column("key_id", Text, primary_key=True),  # its fingerprint, seahaven.verify.fingerprint
    Column("public_key", Text, nullable=False),  # the 32 raw bytes in base64
    Column("since", BigInteger, nullable=False),  # its first signature (ms)
    Column("until", BigInteger),  # retired: it signs no more after this (ms); None while in use
)

race_signatures = Table(
    "race_signatures",
    metadata,
    # A race's signed record (seahaven.verify), written in the race's own transaction: one per race.
    Column("race_id", Text, ForeignKey("races.race_id", ondelete="CASCADE"), primary_key=True),
    Column("key_id", Text, ForeignKey("signing_keys.key_id"), nullable=False),
    Column("document", Text, nullable=False),  # the signed document's JSON, served as it is
)

analysis_queue = Table(
    "analysis_queue",
    metadata,
    # A race still to analyse (server/records/analyses.py): queued in the race's own transaction,
    # gone in the one that stores its analysis, so each archived race is analysed exactly once.
    Column("race_id", Text, ForeignKey("races.race_id", ondelete="CASCADE"), primary_key=True),
    Column("queued_at", BigInteger, nullable=False),
    # An analyst took it until then (ms): another leaves it alone meanwhile; None: nobody has.
    Column("taken_until", BigInteger),
    Column("tries", Integer, nullable=False),
    Index(None, "queued_at"),
)

race_analyses = Table(
    "race_analyses",
    metadata,
    # Where a race was won and lost (seahaven/analysis.py): one per race, written once.
    Column("race_id", Text, ForeignKey("races.race_id", ondelete="CASCADE"), primary_key=True),
    Column("analysed_at", BigInteger, nullable=False),
    Column("document", Text, nullable=False),  # the analysis's JSON, served as it is
)

friendships = Table(
    "friendships",
    metadata,
    # One row per direction (server/records/friends.py): a friendship is two ``friends`` rows; a
    # request is the asker's ``requested`` row; a block is the blocker's ``blocked`` row.
    Column("player", Text, ForeignKey("players.player", ondelete="CASCADE"), primary_key=True),
    Column("other", Text, ForeignKey("players.player", ondelete="CASCADE"), primary_key=True),
    Column("state", Text, nullable=False),
    Column("since", BigInteger, nullable=False),
    Index(None, "other"),
)

presence_settings = Table(
    "presence_settings",
    metadata,
    # Who sees what the player is doing: ``nobody`` (absent: ``friends``, the default).
    Column("player", Text, ForeignKey("players.player", ondelete="CASCADE"), primary_key=True),
    Column("shown_to", Text, nullable=False),
)
