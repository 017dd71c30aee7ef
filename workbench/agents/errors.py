"""The agent runtime's own error: a model spec or backend configuration that cannot be used."""

from __future__ import annotations


class BackendError(ValueError):
    """The model spec or its configuration cannot be used; the message says how to fix it."""
