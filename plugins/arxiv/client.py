"""The arXiv client: a search through the Atom API, and a paper's PDF, over httpx.

The feed is parsed with the standard library's XML parser (the Atom and arXiv namespaces). Every
failure becomes an `ArxivError` whose message says what happened and which host, so a tool can
pass it on as it is.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"
# new-style ids (2505.02438, with an optional version) and old-style ones (math.GT/0309136)
NEW_ID = r"\d{4}\.\d{4,5}(?:v\d+)?"
OLD_ID = r"[a-z][a-z\-]*(?:\.[A-Z]{2})?/\d{7}(?:v\d+)?"
ARXIV_ID = re.compile(rf"^(?:{NEW_ID}|{OLD_ID})$")
FIELD_PREFIX = re.compile(r"\b(?:ti|au|abs|co|jr|cat|rn|id|all):")
USER_AGENT = "workbench-arxiv/1 (engineering workbench)"


class ArxivError(RuntimeError):
    """A failed request, in words; `unreachable` when no answer came from `host`."""

    def __init__(self, message: str, *, host: str = "", unreachable: bool = False) -> None:
        super().__init__(message)
        self.host = host
        self.unreachable = unreachable


@dataclass(frozen=True)
class Paper:
    arxiv_id: str
    title: str
    authors: list[str]
    summary: str
    published: str
    primary_category: str
    pdf_url: str


def host_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.netloc or url


def normalize_id(text: str) -> str:
    """The bare id of `text` ("arXiv:2505.02438", an abs or pdf URL, or the id itself); raises
    ValueError naming the accepted forms."""
    found = text.strip()
    found = re.sub(r"^(?:https?://)?(?:export\.)?arxiv\.org/(?:abs|pdf)/", "", found)
    found = re.sub(r"^arxiv:", "", found, flags=re.IGNORECASE).removesuffix(".pdf")
    if not ARXIV_ID.match(found):
        raise ValueError(
            f"{text!r} is not an arXiv id; give one like 2505.02438 (optionally with a version, "
            "2505.02438v2) or an old-style one like math.GT/0309136."
        )
    return found


def query_parameters(query: str, max_results: int) -> dict[str, str | int]:
    """The API's parameters: an id goes to id_list; plain words must all appear (AND); a query
    already written in arXiv's syntax (ti:, au:, abs:, cat: ...) is passed as it is."""
    with_id: str | None
    try:
        with_id = normalize_id(query)
    except ValueError:
        with_id = None
    if with_id is not None:
        return {"id_list": with_id, "max_results": max_results}
    if FIELD_PREFIX.search(query):
        search = query.strip()
    else:
        words = re.findall(r"[\w\-]+", query)
        search = " AND ".join(f"all:{word}" for word in words) or f"all:{query.strip()}"
    return {
        "search_query": search,
        "start": 0,
        "max_results": max_results,
        "sortBy": "relevance",
        "sortOrder": "descending",
    }


def _text(element: ElementTree.Element, tag: str) -> str:
    found = element.find(tag)
    return " ".join((found.text or "").split()) if found is not None else ""


def _paper(entry: ElementTree.Element) -> Paper:
    long_id = _text(entry, f"{ATOM}id")
    arxiv_id = re.sub(r"^https?://arxiv\.org/abs/", "", long_id)
    pdf = next(
        (
            link.get("href", "")
            for link in entry.findall(f"{ATOM}link")
            if link.get("title") == "pdf" or link.get("type") == "application/pdf"
        ),
        "",
    )
    category = entry.find(f"{ARXIV}primary_category")
    return Paper(
        arxiv_id=arxiv_id,
        title=_text(entry, f"{ATOM}title"),
        authors=[_text(author, f"{ATOM}name") for author in entry.findall(f"{ATOM}author")],
        summary=_text(entry, f"{ATOM}summary"),
        published=_text(entry, f"{ATOM}published")[:10],
        primary_category="" if category is None else category.get("term", ""),
        pdf_url=pdf,
    )


def parse_feed(body: bytes, host: str) -> tuple[int, list[Paper]]:
    """(total results, the papers) of an Atom feed; the API's own error entries are raised."""
    try:
        root = ElementTree.fromstring(body)
    except ElementTree.ParseError as error:
        raise ArxivError(
            f"{host} answered, but not with an Atom feed ({error}).", host=host
        ) from error
    if root.tag != f"{ATOM}feed":
        raise ArxivError(f"{host} answered with <{root.tag}>, not an Atom feed.", host=host)
    entries = root.findall(f"{ATOM}entry")
    for entry in entries:
        if "api/errors" in _text(entry, f"{ATOM}id"):  # how the API reports a bad query
            raise ArxivError(f"arXiv refused the query: {_text(entry, f'{ATOM}summary')}")
    total_text = _text(root, f"{OPENSEARCH}totalResults")
    total = int(total_text) if total_text.isdigit() else len(entries)
    return total, [_paper(entry) for entry in entries]


def unreachable(error: httpx.TransportError, url: str) -> ArxivError:
    host = host_of(url)
    what = (
        "did not answer in time" if isinstance(error, httpx.TimeoutException) else "is unreachable"
    )
    return ArxivError(
        f"arXiv at {host} {what} ({type(error).__name__}: {error}).", host=host, unreachable=True
    )


async def search(
    api_url: str, query: str, max_results: int, timeout_s: float
) -> tuple[int, list[Paper]]:
    host = host_of(api_url)
    parameters = query_parameters(query, max_results)
    try:
        async with httpx.AsyncClient(
            timeout=timeout_s, follow_redirects=True, headers={"User-Agent": USER_AGENT}
        ) as client:
            response = await client.get(api_url, params=parameters)
    except httpx.TransportError as error:
        raise unreachable(error, api_url) from error
    if response.status_code >= 400:
        raise ArxivError(f"arXiv at {host} answered HTTP {response.status_code}.", host=host)
    return parse_feed(response.content, host)


async def download_pdf(url: str, timeout_s: float, max_bytes: int) -> bytes:
    """The PDF at `url`, whole; refused when it is not a PDF or larger than `max_bytes`."""
    host = host_of(url)
    try:
        async with (
            httpx.AsyncClient(
                timeout=timeout_s, follow_redirects=True, headers={"User-Agent": USER_AGENT}
            ) as client,
            client.stream("GET", url) as response,
        ):
            if response.status_code == 404:
                raise ArxivError(f"arXiv at {host} has no PDF at {url} (HTTP 404).", host=host)
            if response.status_code >= 400:
                raise ArxivError(
                    f"arXiv at {host} answered HTTP {response.status_code}.", host=host
                )
            data = bytearray()
            async for chunk in response.aiter_bytes():
                data += chunk
                if len(data) > max_bytes:
                    raise ArxivError(
                        f"The PDF at {url} is larger than {max_bytes // 1_000_000} MB.", host=host
                    )
    except httpx.TransportError as error:
        raise unreachable(error, url) from error
    if not data.startswith(b"%PDF-"):
        raise ArxivError(
            f"{url} did not return a PDF (it starts with {bytes(data[:16])!r}); the paper may "
            "have no PDF yet or be withdrawn.",
            host=host,
        )
    return bytes(data)
