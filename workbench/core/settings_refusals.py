"""Refusing single values of a settings file while keeping the rest (issue 28).

One refused value (a password in a URL, a number out of range) must not cost every other setting:
the value is left out, the rest is used, and the refusal names the setting. These functions work
on the file's raw TOML data, before and while `workbench.core.settings` validates it.

What is left out: a value in a table loses its key (its default applies); an entry of a list goes
whole, since a record without one of its fields (a server without its URL) means nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import ValidationError

M = TypeVar("M")
MAX_REFUSALS = 50  # one value left out per validation round; a file is not that broken twice
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$")


@dataclass(frozen=True)
class Refusal:
    setting: str  # where in the file, e.g. "plugins.mcp_servers.servers[lab].url"
    reason: str
    left_out: str  # what is not used because of it: the setting, or the list entry holding it

    def explain(self) -> str:
        if self.left_out == self.setting:
            return f"{self.setting} is left out: {self.reason}"
        return f"{self.left_out} is left out ({self.setting}): {self.reason}"


def item_label(item: object, index: int) -> str:
    """How an entry of a list is named in messages: by its `name` when it has a plain one (a
    server, a printer), else by its position."""
    name = item.get("name") if isinstance(item, dict) else getattr(item, "name", None)
    return name if isinstance(name, str) and _NAME.match(name) else str(index)


def drop_refused_strings(raw: dict[str, Any], check: Callable[[str, str], object]) -> list[Refusal]:
    """Remove from `raw` (in place) every string `check(text, where)` refuses with a ValueError,
    and say what went."""
    refused: list[Refusal] = []
    _prune_table(raw, "", check, refused)
    return refused


def _prune_table(
    table: dict[str, Any], where: str, check: Callable[[str, str], object], refused: list[Refusal]
) -> None:
    for key in list(table):
        path = f"{where}.{key}" if where else str(key)
        if _refused(table[key], path, check, refused):
            del table[key]


def _refused(
    value: object, where: str, check: Callable[[str, str], object], refused: list[Refusal]
) -> bool:
    """Whether `value` itself must go (its refusals appended to `refused`)."""
    if isinstance(value, str):
        try:
            check(value, where)
        except ValueError as problem:
            refused.append(Refusal(where, str(problem), where))
            return True
        return False
    if isinstance(value, dict):
        _prune_table(value, where, check, refused)
    elif isinstance(value, list):
        kept = []
        for index, item in enumerate(value):
            label = f"{where}[{item_label(item, index)}]"
            before = len(refused)
            _refused(item, label, check, refused)
            if len(refused) == before:
                kept.append(item)
            else:  # the whole entry goes: say so on each of its refusals
                for position in range(before, len(refused)):
                    refusal = refused[position]
                    refused[position] = Refusal(refusal.setting, refusal.reason, label)
        value[:] = kept
    return False


def validate_keeping_the_rest(
    raw: dict[str, Any], validate: Callable[[dict[str, Any]], M]
) -> tuple[M | None, list[Refusal]]:
    """`validate(raw)`, leaving out one invalid value at a time until the rest validates; None
    if the file cannot be made valid that way. Messages never repeat a value (it may be secret)."""
    refused: list[Refusal] = []
    for _ in range(MAX_REFUSALS):
        try:
            return validate(raw), refused
        except ValidationError as invalid:
            error = invalid.errors()[0]
            loc = tuple(error["loc"])
            if not loc:
                left_out = _remove_culprit(raw, validate)
            else:  # a check across a list's entries names the list: leave out one entry only
                left_out = _remove_list_culprit(raw, loc, validate) or _remove(raw, loc)
            if left_out is None:
                return None, refused
            setting = ".".join(map(str, loc)) or left_out
            refused.append(Refusal(setting, str(error["msg"]), left_out))
    return None, refused


def _remove_culprit(
    raw: dict[str, Any], validate: Callable[[dict[str, Any]], object]
) -> str | None:
    """For an error of the whole file (a check across fields): the one top-level setting whose
    removal makes the rest valid, removed; None if no single one does."""
    for key in list(raw):
        try:
            validate({name: value for name, value in raw.items() if name != key})
        except ValidationError:
            continue
        del raw[key]
        return str(key)
    return None


def _remove_list_culprit(
    raw: dict[str, Any], loc: tuple[Any, ...], validate: Callable[[dict[str, Any]], object]
) -> str | None:
    """For an error of a whole top-level list (two profiles with one name): the one entry
    whose removal clears that error, removed (the last such, so the first-written stays)."""
    entries = raw.get(loc[0]) if len(loc) == 1 else None
    if not isinstance(entries, list):
        return None
    for index in reversed(range(len(entries))):
        trial = {**raw, loc[0]: entries[:index] + entries[index + 1 :]}
        try:
            validate(trial)
        except ValidationError as invalid:
            if any(tuple(error["loc"]) == loc for error in invalid.errors()):
                continue
        label = f"{loc[0]}[{item_label(entries[index], index)}]"
        del entries[index]
        return label
    return None


def _remove(raw: dict[str, Any], loc: tuple[Any, ...]) -> str | None:
    """Remove the value at `loc` (or the list entry holding it if the value itself is missing);
    what was removed, in words, or None when nothing could be."""
    found: list[tuple[dict[str, Any] | list[Any], Any, str]] = []  # (container, key, path)
    current: Any = raw
    path = ""
    for key in loc:
        if isinstance(current, dict) and key in current:
            path = f"{path}.{key}" if path else str(key)
        elif isinstance(current, list) and isinstance(key, int) and 0 <= key < len(current):
            path = f"{path}[{item_label(current[key], key)}]"
        else:
            break
        found.append((current, key, path))
        current = current[key]
    if len(found) < len(loc):  # a missing field: its whole list entry goes, if it has one
        found = [step for step in found if isinstance(step[0], list)][-1:]
    if not found:
        return None
    container, key, path = found[-1]
    del container[key]
    return path
