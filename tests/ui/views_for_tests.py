"""A view factory that fails, for the 'a broken view gives a notice, not a crash' test."""

from __future__ import annotations


def failing_view(context: object) -> object:
    raise RuntimeError("the view's backend is missing")
