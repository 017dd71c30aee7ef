"""The arXiv specialist's tools.

- `search`: search_arxiv
- `download`: download_arxiv_paper (the PDF into the workspace, indexed by the retrieval plugin)
- `common`: the settings and client errors as tool failures, for both
"""

from __future__ import annotations

from workbench.core.tools import SideEffect, Tool
from workbench_plugins.arxiv.tools.download import (
    DownloadArgs,
    DownloadResult,
    download_arxiv_paper,
    paper_path,
)
from workbench_plugins.arxiv.tools.search import SearchArgs, SearchResult, search_arxiv


def tools() -> list[Tool]:
    return [
        Tool(
            "search_arxiv",
            "Search arXiv for papers (all words must appear; or an arXiv id); returns id, title, "
            "authors, date and abstract of each.",
            SearchArgs,
            SearchResult,
            search_arxiv,
            SideEffect.READ,
        ),
        Tool(
            "download_arxiv_paper",
            "Download an arXiv paper's PDF into the workspace (papers/<id>.pdf) and add it to "
            "the document index so search_documents finds it.",
            DownloadArgs,
            DownloadResult,
            download_arxiv_paper,
            SideEffect.WRITE,
            files=paper_path,
        ),
    ]
