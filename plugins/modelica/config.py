"""Settings of the Modelica plugin (`[plugins.modelica]` in settings.toml)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class ModelicaSettings(BaseModel):
    backend: Literal["rumoca", "omc"] = Field(
        "rumoca", description="Default backend: rumoca is embedded; omc needs OpenModelica"
    )
    library_paths: list[str] = Field(
        default_factory=list,
        description="Folders holding Modelica libraries (e.g. your own Modelica Standard Library)",
    )
    omc_home: str = Field(
        "", description="OpenModelica installation (empty: $OPENMODELICAHOME/PATH)"
    )
    inline_max_intervals: int = Field(
        0,
        description=(
            "Simulate in the calling process (no worker job) when intervals are at most this; "
            "0 always uses a worker job"
        ),
    )
    interactive_simulation_limit_s: float = Field(
        300.0,
        gt=0,
        description=(
            "Wall-clock limit of a simulation outside a task run (the editor, the chat, MCP, "
            "`tool simulate`), in seconds, worker start and compilation included; task runs "
            "have their own limits; inline runs (inline_max_intervals) stop at it inside the solver"
        ),
    )
