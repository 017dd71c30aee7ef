"""Typed, validated configs of the EngiBench problems (Beams2D, Photonics2D).

A config is checked before anything runs: NaN, infinities, out-of-range values and unknown keys
are refused with a message naming each field. Nothing here imports EngiBench.
"""

from __future__ import annotations

import hashlib
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

ProblemType = Literal["beams2d", "photonics2d"]
PROBLEM_TYPES: tuple[str, ...] = ("beams2d", "photonics2d")


class EngineError(ValueError):
    """Bad input to the engine; the message names the field or file and what to do."""


class _StrictConfig(BaseModel):
    # NaN and infinities are refused everywhere; unknown keys are errors, not silently ignored.
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, frozen=True)


class Beams2DConfig(_StrictConfig):
    volfrac: float = Field(0.35, gt=0, le=1, description="target volume fraction of material")
    rmin: float = Field(2.0, gt=0, description="filter radius (minimum feature size), elements")
    forcedist: float = Field(0.0, ge=0, le=1, description="force position, 0 = left, 1 = right")
    overhang_constraint: bool = False
    max_iter: int = Field(100, ge=1, le=1000, description="iteration limit")
    nelx: int = Field(100, ge=10, le=1000, description="elements in x")
    nely: int = Field(50, ge=10, le=1000, description="elements in y")

    @model_validator(mode="after")
    def _rmin_fits(self) -> Beams2DConfig:
        if self.rmin > max(self.nelx, self.nely):
            raise ValueError(f"rmin={self.rmin} must be at most max(nelx, nely)")
        return self

    @property
    def conditions(self) -> dict[str, Any]:
        return self.model_dump(include={"volfrac", "rmin", "forcedist", "overhang_constraint"})

    @property
    def design_shape(self) -> tuple[int, int]:
        return (self.nely, self.nelx)


class Photonics2DConfig(_StrictConfig):
    lambda1: float = Field(1.5, gt=0, le=10, description="first wavelength, micrometres")
    lambda2: float = Field(1.3, gt=0, le=10, description="second wavelength, micrometres")
    blur_radius: int = Field(2, ge=0, le=10, description="density blur radius, pixels")
    num_optimization_steps: int = Field(200, ge=1, le=2000, description="Adam steps")
    # The design region is the grid minus 30 px of PML and spacing on each side.
    num_elems_x: int = Field(120, ge=70, le=400, description="grid cells in x")
    num_elems_y: int = Field(120, ge=105, le=400, description="grid cells in y")

    @property
    def conditions(self) -> dict[str, Any]:
        return self.model_dump(include={"lambda1", "lambda2", "blur_radius"})

    @property
    def design_shape(self) -> tuple[int, int]:
        return (self.num_elems_x, self.num_elems_y)


ProblemConfig = Beams2DConfig | Photonics2DConfig
CONFIG_MODELS: dict[str, type[Beams2DConfig] | type[Photonics2DConfig]] = {
    "beams2d": Beams2DConfig,
    "photonics2d": Photonics2DConfig,
}


def check_problem_type(problem_type: str) -> str:
    name = str(problem_type).strip().lower()
    if name not in CONFIG_MODELS:
        raise EngineError(
            f"Unknown problem {problem_type!r}; known problems: {', '.join(PROBLEM_TYPES)}."
        )
    return name


def describe_config_errors(error: ValidationError, prefix: str = "problem_config") -> str:
    parts = []
    for item in error.errors(include_url=False):
        where = ".".join([prefix, *(str(p) for p in item["loc"])])
        parts.append(f"{where}: {item['msg']} (got {item.get('input')!r})")
    return "; ".join(parts)


def parse_config(problem_type: str, config: dict[str, Any] | None) -> ProblemConfig:
    """Validate a config before anything runs; errors name each field."""
    model = CONFIG_MODELS[check_problem_type(problem_type)]
    try:
        return model.model_validate(config or {})
    except ValidationError as error:
        raise EngineError(describe_config_errors(error)) from None


def config_sha256(problem_type: str, config: ProblemConfig) -> str:
    text = f"{problem_type}:{config.model_dump_json()}"
    return hashlib.sha256(text.encode()).hexdigest()
