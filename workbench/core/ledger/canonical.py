"""Canonical JSON and the content hashes that give candidates and invariants their identity."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from workbench.core.ledger.errors import LedgerError


def canonical_json(value: object, *, what: str) -> str:
    """Serialise `value` the same way every time (sorted keys, no whitespace, no NaN).

    Strict on purpose: a value that only `default=str` could serialise would hash by its repr,
    which is not stable, so it is refused instead.
    """
    try:
        return json.dumps(
            value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
        )
    except (TypeError, ValueError) as error:
        raise LedgerError(
            f"The {what} is not plain JSON ({error}). Pass dicts, lists, strings, finite numbers, "
            "booleans and None only; convert pydantic models with model_dump(mode='json') and "
            "refer to files by their store artifact id or sha256."
        ) from error


def sha256_of_json(value: object, *, what: str) -> str:
    return hashlib.sha256(canonical_json(value, what=what).encode("utf-8")).hexdigest()


def candidate_id(subject: str, kind: str, content: dict[str, Any]) -> str:
    """The identity of a candidate: its evaluation-relevant content, within its kind and subject.

    The subject is part of the hash so that two design tasks that happen to reach the same content
    keep separate lineages and separate evidence.
    """
    return sha256_of_json(
        {"subject": subject, "kind": kind, "content": content}, what="candidate content"
    )
