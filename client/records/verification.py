"""A race on record checked here, as ``seahaven verify`` checks it (docs/fairness.md): its signed
record read from the server, the signature, the key against the server's published keys, the draw,
every move replayed by the engine and the standings recomputed. The review shows the verdict."""

from __future__ import annotations

import asyncio

from i18n import _
from seahaven.verify import verify

from .records_api import Records, RecordsError

WAITS = (0.5, 1.0, 1.0, 2.0, 2.0, 3.0)
"""Seconds between asks while a race just over is not archived yet (404): its record comes soon."""


async def verdict(records: Records, race_id: str) -> str:
    """What the race's signed record proves, in a few words for the review's line."""
    for wait in (*WAITS, None):
        try:
            document = await records.signed_race(race_id)
            break
        except RecordsError as error:
            if error.status != 404 or wait is None:
                return _("not signed: {why}").format(why=error.message) if error.status != 404 else _("not signed")
            await asyncio.sleep(wait)
    try:
        keys = (await records.keys()).get("keys")
    except RecordsError:
        keys = None  # checked without the published keys: the signature still is
    checks = await asyncio.to_thread(verify, document, keys if isinstance(keys, list) else None)
    failed = [check for check in checks if check.ok is False]
    if failed:
        return _("NOT verified: {check}: {why}").format(check=failed[0].name, why=failed[0].detail)
    return _("signed and verified")
