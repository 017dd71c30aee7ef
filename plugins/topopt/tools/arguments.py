"""The tools' arguments: pydantic models whose fields and descriptions are the tool schemas."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from workbench_plugins.topopt import engine


class _Args(BaseModel):
    model_config = ConfigDict(allow_inf_nan=False, extra="forbid")


class ProblemArgs(_Args):
    problem_type: str = Field("beams2d", description="beams2d or photonics2d")

    @field_validator("problem_type")
    @classmethod
    def _known_problem(cls, value: str) -> str:
        return engine.check_problem_type(value)


class ConfiguredArgs(ProblemArgs):
    problem_config: dict[str, Any] | None = Field(
        None,
        description="beams2d: volfrac, rmin, forcedist (max_iter ...); "
        "photonics2d: lambda1, lambda2, blur_radius, num_optimization_steps (num_elems_x/y)",
    )

    @field_validator("problem_config")
    @classmethod
    def _valid_config(cls, value: dict | None, info: ValidationInfo) -> dict | None:
        problem_type = info.data.get("problem_type")
        if problem_type is not None:  # an unknown problem is reported on its own field
            engine.parse_config(problem_type, value)
        return value

    def config(self) -> engine.ProblemConfig:
        return engine.parse_config(self.problem_type, self.problem_config)


class CreateArgs(ProblemArgs):
    seed: int = Field(0, ge=0)


class OptimizeArgs(ConfiguredArgs):
    seed: int = Field(0, ge=0)
    save_result: bool = Field(True, description="also write the design .npy to the outputs")
    include_design: bool = Field(False, description="return the full density field as a list")


class SimulateArgs(ConfiguredArgs):
    design_description: str = Field(
        "random design", description="'last'/'optimized', 'initial', 'random', or an .npy path"
    )
    seed: int = Field(0, ge=0)


class RenderArgs(SimulateArgs):
    save_path: str = Field("design.png", description="PNG file; relative to the outputs folder")
    seed: int | None = Field(None, ge=0)  # type: ignore[assignment]


class StlArgs(ProblemArgs):
    npy_file_path: str = Field(..., min_length=1, description=".npy design path (or 'last')")
    stl_file_path: str | None = Field(
        None,
        description="output .stl (a file name: in the workspace outputs; a path outside the "
        "workspace needs a person's confirmation)",
    )
    scale_xy: float = Field(1.0, gt=0, le=1e4, description="mm per pixel")
    scale_z: float = Field(10.0, gt=0, le=1e4, description="extrusion height in mm")
    mirror_y: bool = Field(False, description="mirror about the left edge: [fliplr(d) | d]")
    threshold: float = Field(0.5, gt=0, le=1, description="material where density >= threshold")


class ClarifyArgs(_Args):
    clarification_request: str = Field(..., min_length=1)
