"""Argument checks shared by the ledger's writes; each failure names the argument and the fix."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Any, TypeVar

from workbench.core.ledger.errors import LedgerError

EnumT = TypeVar("EnumT", bound=StrEnum)


def text(value: object, what: str) -> str:
    """A non-empty, stripped string."""
    if not isinstance(value, str) or not value.strip():
        raise LedgerError(f"The {what} must be a non-empty string, got {value!r}.")
    return value.strip()


def names(values: Iterable[object] | None, what: str) -> list[str]:
    """A list of distinct non-empty strings, in the given order."""
    if values is None:
        return []
    if isinstance(values, str):
        raise LedgerError(f"The {what} must be a list of strings, not the string {values!r}.")
    result = [text(value, f"each entry of the {what}") for value in values]
    repeated = sorted({name for name in result if result.count(name) > 1})
    if repeated:
        raise LedgerError(f"The {what} list names {', '.join(repeated)} more than once.")
    return result


def mapping(value: object, what: str) -> dict[str, Any]:
    """A dict (None reads as empty)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise LedgerError(f"The {what} must be a dict, got {type(value).__name__}.")
    return value


def choice(value: object, allowed: type[EnumT], what: str) -> EnumT:
    """One of an enum's values, given as the member or its string (a member is a string too)."""
    if isinstance(value, str):
        try:
            return allowed(value)
        except ValueError:
            pass
    options = ", ".join(member.value for member in allowed)
    raise LedgerError(f"The {what} must be one of {options}; got {value!r}.")
