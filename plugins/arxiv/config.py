"""The arXiv plugin's settings ([plugins.arxiv]): where the API and the PDFs are (tests point both
at a local fake), where papers go in the workspace, and how long to wait."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_API_URL = "https://export.arxiv.org/api/query"
DEFAULT_PDF_URL = "https://arxiv.org/pdf"


class ArxivSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", hide_input_in_errors=True)

    api_url: str = Field(DEFAULT_API_URL, description="arXiv API query address (Atom feed)")
    pdf_url: str = Field(DEFAULT_PDF_URL, description="Address of the PDFs; <pdf_url>/<id>")
    papers_folder: str = Field(
        "papers", min_length=1, description="Workspace folder the downloaded PDFs go to"
    )
    timeout_s: float = Field(30.0, gt=0, description="Give up on an arXiv request after this long")
    max_pdf_mb: float = Field(100.0, gt=0, description="Refuse a PDF larger than this")
