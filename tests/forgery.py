"""A forger's copy of a signed race record: the record (altered or not) signed again by a key of
the forger's, so that a test sees which check other than the signature catches an alteration."""

from __future__ import annotations

import base64
import copy
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from seahaven.verify import fingerprint, sign


def forge(document: dict[str, Any], key: Ed25519PrivateKey) -> dict[str, Any]:
    """``document``'s record signed again by ``key`` (its signer too)."""
    record = copy.deepcopy(document["record"])
    raw = key.public_key().public_bytes_raw()
    record["signer"] = {"alg": "Ed25519", "id": fingerprint(raw), "key": base64.b64encode(raw).decode()}
    return sign(record, key)
