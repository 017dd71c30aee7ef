"""A FAKE Tavily API (stdlib http.server on 127.0.0.1) for testing the real web search client:
POST /search and GET /usage, each checking `Authorization: Bearer <key>` against the one key it
accepts (HTTP 401 with Tavily's error body otherwise). Search returns the given pages whose
title or content holds any word of the query, up to `max_results`. Requests are kept (without
their keys) in `requests`.

    with FakeTavily("tvly-right", [FakePage("Title", "https://example.com", "text")]) as tavily:
        settings: api_url=tavily.url
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from tests.rigs.local_http import LocalHttpFake, QuietHandler


@dataclass
class FakePage:
    title: str
    url: str
    content: str


class _Handler(QuietHandler):
    fake: FakeTavily

    def _authorized(self) -> bool:
        if self.headers.get("Authorization") == f"Bearer {self.fake.key}":
            return True
        self.send_json(401, {"detail": {"error": "Unauthorized: missing or invalid API key."}})
        return False

    def do_GET(self) -> None:
        self.fake.requests.append({"path": self.path})
        if self.path != "/usage":
            self.send_json(404, {"detail": {"error": "Not found"}})
        elif self._authorized():
            self.send_json(200, {"key": {"usage": 3, "limit": 1000}, "account": {"plan": "fake"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        self.fake.requests.append({"path": self.path, "body": body})
        if self.path != "/search":
            self.send_json(404, {"detail": {"error": "Not found"}})
        elif self._authorized():
            results = self.fake.search(str(body.get("query", "")), int(body.get("max_results", 5)))
            self.send_json(
                200, {"query": body.get("query"), "results": results, "response_time": 0.1}
            )


class FakeTavily(LocalHttpFake):
    name = "the fake Tavily"
    handler = _Handler

    def __init__(self, key: str, pages: list[FakePage]) -> None:
        super().__init__()
        self.key = key
        self.pages = pages
        self.requests: list[dict[str, Any]] = []

    def search(self, query: str, limit: int) -> list[dict[str, Any]]:
        words = {word.lower() for word in query.split()}
        hits = [
            page
            for page in self.pages
            if words & set(f"{page.title} {page.content}".lower().split())
        ]
        return [
            {"title": p.title, "url": p.url, "content": p.content, "score": 0.9 - i / 100}
            for i, p in enumerate(hits[:limit])
        ]
