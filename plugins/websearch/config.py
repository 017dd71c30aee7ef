"""The web search plugin's settings ([plugins.websearch]). The Tavily key is in the keyring
(service `workbench`, entry `tavily:api_key`), never here."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_API_URL = "https://api.tavily.com"
KEY_ENTRY = "tavily:api_key"


class WebSearchSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", hide_input_in_errors=True)

    api_url: str = Field(DEFAULT_API_URL, description="Tavily API address")
    search_depth: Literal["basic", "advanced"] = Field(
        "basic", description="Tavily search depth (advanced costs two credits a search)"
    )
    timeout_s: float = Field(20.0, gt=0, description="Give up on a search after this long")
