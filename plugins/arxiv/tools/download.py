"""download_arxiv_paper: the PDF into the workspace, then indexed by the retrieval plugin's
add_document, called through the registry (a plugin never imports another)."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from workbench.core.registry import ToolRegistry
from workbench.core.tools import ToolContext, ToolFailure
from workbench_plugins.arxiv import client
from workbench_plugins.arxiv.tools.common import arxiv_settings, tool_failure

INDEX_TOOL = "add_document"


class DownloadArgs(BaseModel):
    arxiv_id: str = Field(
        ..., min_length=1, description="The paper's id, e.g. 2505.02438 (or arXiv:2505.02438)"
    )


class DownloadResult(BaseModel):
    arxiv_id: str
    path: str = Field(description="Where the PDF is, relative to the workspace")
    size: int
    indexed: bool = Field(description="Whether the document index now holds it")
    message: str


def paper_path(args: DownloadArgs, context: ToolContext) -> Path:
    """Where the PDF goes: <papers_folder>/<id>.pdf inside the workspace (confined)."""
    try:
        arxiv_id = client.normalize_id(args.arxiv_id)
    except ValueError as error:
        raise ToolFailure(str(error), "Take the id from search_arxiv's result.") from error
    name = arxiv_id.replace("/", "_") + ".pdf"
    return context.file(Path(arxiv_settings(context).papers_folder) / name, mode="write")


async def download_arxiv_paper(args: DownloadArgs, context: ToolContext) -> DownloadResult:
    settings = arxiv_settings(context)
    target = paper_path(args, context)
    arxiv_id = client.normalize_id(args.arxiv_id)
    url = f"{settings.pdf_url.rstrip('/')}/{arxiv_id}"
    try:
        data = await client.download_pdf(url, settings.timeout_s, int(settings.max_pdf_mb * 1e6))
    except client.ArxivError as error:
        raise tool_failure(error) from error
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".part")
    partial.write_bytes(data)
    partial.replace(target)  # a stopped download never leaves half a PDF under the real name
    shown = _relative(context, target)
    indexed, said = await _index(context, shown)
    return DownloadResult(
        arxiv_id=arxiv_id,
        path=shown,
        size=len(data),
        indexed=indexed,
        message=f"Saved arXiv:{arxiv_id} to {shown} ({len(data)} bytes). {said}",
    )


def _relative(context: ToolContext, path: Path) -> str:
    workspace = context.app.store.folder.resolve()
    return str(path.relative_to(workspace)) if path.is_relative_to(workspace) else str(path)


async def _index(context: ToolContext, path: str) -> tuple[bool, str]:
    """Index the PDF with the retrieval plugin's add_document, when that tool is registered."""
    registry = getattr(context.app, "registry", None)  # AppContext has it; ToolHost does not say
    if not isinstance(registry, ToolRegistry) or registry.get(INDEX_TOOL) is None:
        return False, (
            "Not indexed: indexing needs the retrieval plugin (its add_document tool), which is "
            "not installed or was skipped; `workbench --headless doctor` lists the plugins."
        )
    outcome = await registry.acall(INDEX_TOOL, {"path": path}, caller=context.caller)
    if outcome.ok and outcome.result is not None:
        return True, f"Indexed: {outcome.result.get('message', '')}"
    error = outcome.error
    reason = error.message if error is not None else "add_document returned nothing"
    return False, f"Not indexed: {reason}"
