"""The Tavily search client (REST: POST <api_url>/search with `Authorization: Bearer <key>`;
GET <api_url>/usage checks a key without spending a search credit), over httpx.

Each failure is a `TavilyError` saying what happened, the host, and for a refused key the keyring
entry it came from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

import httpx

from workbench.core.secrets import where
from workbench_plugins.websearch.config import KEY_ENTRY

Cause = Literal["unreachable", "key", "limit", "answer"]


class TavilyError(RuntimeError):
    def __init__(self, message: str, cause: Cause, host: str) -> None:
        super().__init__(message)
        self.cause = cause
        self.host = host


@dataclass(frozen=True)
class WebHit:
    title: str
    url: str
    snippet: str
    score: float


def host_of(url: str) -> str:
    return urlsplit(url).netloc or url


def _refusal(response: httpx.Response, host: str) -> TavilyError:
    status = response.status_code
    detail = _detail(response)
    if status in (401, 403):
        return TavilyError(
            f"Tavily at {host} refused the API key from {where(KEY_ENTRY)} (HTTP {status}"
            f"{': ' + detail if detail else ''}).",
            "key",
            host,
        )
    if status in (429, 432, 433):  # rate limit; plan and pay-as-you-go credit limits
        return TavilyError(
            f"Tavily at {host} refused the search: limit reached (HTTP {status}"
            f"{': ' + detail if detail else ''}).",
            "limit",
            host,
        )
    return TavilyError(f"Tavily at {host} answered HTTP {status}: {detail}", "answer", host)


def _detail(response: httpx.Response) -> str:
    try:
        body: Any = response.json()
    except ValueError:
        return response.text[:200]
    found = body.get("detail", body) if isinstance(body, dict) else body
    if isinstance(found, dict):
        found = found.get("error", found)
    return str(found)[:200]


async def _send(
    method: str, url: str, key: str, timeout_s: float, body: dict[str, Any] | None = None
) -> Any:
    host = host_of(url)
    try:
        async with httpx.AsyncClient(timeout=timeout_s) as client:
            response = await client.request(
                method, url, json=body, headers={"Authorization": f"Bearer {key}"}
            )
    except httpx.TransportError as error:
        what = (
            "did not answer in time"
            if isinstance(error, httpx.TimeoutException)
            else "is unreachable"
        )
        raise TavilyError(
            f"Tavily at {host} {what} ({type(error).__name__}: {error}).", "unreachable", host
        ) from error
    if response.status_code >= 400:
        raise _refusal(response, host)
    try:
        return response.json()
    except ValueError as error:
        raise TavilyError(
            f"Tavily at {host} answered, but not with JSON.", "answer", host
        ) from error


async def search(
    api_url: str, key: str, query: str, max_results: int, depth: str, timeout_s: float
) -> list[WebHit]:
    body = {"query": query, "max_results": max_results, "search_depth": depth}
    found = await _send("POST", f"{api_url.rstrip('/')}/search", key, timeout_s, body)
    results = found.get("results") if isinstance(found, dict) else None
    if not isinstance(results, list):
        host = host_of(api_url)
        raise TavilyError(f"Tavily at {host} answered without a results list.", "answer", host)
    return [
        WebHit(
            title=str(item.get("title") or ""),
            url=str(item.get("url") or ""),
            snippet=" ".join(str(item.get("content") or "").split()),
            score=float(item.get("score") or 0.0),
        )
        for item in results
        if isinstance(item, dict)
    ]


async def usage(api_url: str, key: str, timeout_s: float) -> dict[str, Any]:
    """The key's usage (GET /usage): proves the key without a search."""
    found = await _send("GET", f"{api_url.rstrip('/')}/usage", key, timeout_s)
    return found if isinstance(found, dict) else {}
