"""The one error the ledger raises for anything a caller can get wrong."""

from __future__ import annotations


class LedgerError(ValueError):
    """A ledger request was refused; the message says what was wrong and what to do instead."""
