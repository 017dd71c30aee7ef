"""The routing request set (requests.toml beside this file): (request, the one specialist)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import NamedTuple

REQUESTS_FILE = Path(__file__).with_name("requests.toml")


class Labelled(NamedTuple):
    text: str
    specialist: str


def request_set(path: Path = REQUESTS_FILE) -> list[Labelled]:
    table = tomllib.loads(path.read_text(encoding="utf-8"))
    return [Labelled(text, name) for name, texts in table.items() for text in texts]
