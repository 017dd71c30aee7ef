"""The retrieval plugin's settings ([plugins.retrieval])."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

DenseChoice = Literal["auto", "ollama", "offline", "off"]


class RetrievalSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", hide_input_in_errors=True)

    read_only: bool = Field(
        False,
        description="Refuse add_document and delete_document (benchmarks search a fixed index)",
    )
    dense: DenseChoice = Field(
        "auto",
        description="Dense search: auto (Ollama when it answers, else the offline model when "
        "installed), ollama, offline, or off (keyword search only)",
    )
    ollama_embedding_model: str = Field(
        "nomic-embed-text", description="Ollama embedding model for dense search"
    )
    chunk_words: int = Field(220, ge=20, le=2000, description="Words per indexed passage")
    overlap_words: int = Field(40, ge=0, le=1000, description="Words shared by neighbours")
    max_document_mb: float = Field(
        20.0,
        gt=0,
        le=10_000,
        description="Largest file add_document reads, in MB (1 MB = 1,000,000 bytes); a larger "
        "one is refused before it is read (a 40 MB text file is about 40,000 passages)",
    )

    @property
    def max_bytes(self) -> int:
        return int(self.max_document_mb * 1_000_000)
