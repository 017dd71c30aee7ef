"""Where designs live: .npy files in the workspace outputs, artifacts in the store.

The per-workspace "last" and "initial" designs are the newest design artifacts of that role in
this workspace's store (never a process-wide global), so they survive restarts and stay separate
between workspaces. Descriptions follow the reference: initial/before/starting, last/previous/
current/optimized/final, anything else a random design; a path to an .npy file also works.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from workbench.core.files import open_checked
from workbench.core.store import Artifact
from workbench.core.tools import ToolContext, ToolFailure
from workbench_plugins.topopt import engine

DESIGN_KIND = "topopt.design"
INITIAL_WORDS = ("initial", "before", "starting", "start")
LAST_WORDS = ("last", "previous", "current", "optimized", "optimised", "final", "latest")


@dataclass
class ResolvedDesign:
    design: npt.NDArray
    source: str  # "optimized" | "initial" | "random" | "file"
    path: str | None
    artifact: Artifact | None  # the stored design it came from, if any


def outputs_folder(context: ToolContext) -> Path:
    folder = context.app.store.folder / "outputs" / "topopt"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def output_path(context: ToolContext, requested: str | None, default_name: str) -> Path:
    """Where a tool writes: relative paths in the workspace outputs folder, any path confined by
    the core rule (outside the workspace only with a person's confirmation)."""
    path = context.file(requested or default_name, mode="write", base=outputs_folder(context))
    if not path.parent.is_dir():
        raise ToolFailure(
            f"Cannot write {path}: the folder {path.parent} does not exist.",
            hint="Give a path in an existing folder, or a plain file name.",
        )
    return path


def write_npy(array: npt.NDArray, path: Path) -> None:
    # a fresh scratch file (created exclusively: never a planted link) renamed into place, so
    # there is never a half-written design under the final name
    with tempfile.NamedTemporaryFile(
        dir=path.parent, prefix=f".{path.name}.", suffix=".part", delete=False
    ) as handle:
        partial = Path(handle.name)
        try:
            np.save(handle, array)
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
    partial.replace(path)


def store_design(
    context: ToolContext,
    design: npt.NDArray,
    *,
    problem_type: str,
    role: str,
    config: engine.ProblemConfig,
    seed: int,
    save_path: Path | None,
) -> Artifact:
    """Add the design as an artifact; also write it to `save_path` when given."""
    meta: dict[str, Any] = {
        "problem_type": problem_type,
        "role": role,
        "config": config.model_dump(),
        "seed": seed,
        "design_sha256": engine.design_sha256(design),
        "shape": list(design.shape),
    }
    if save_path is not None:
        write_npy(design, save_path)
        return context.add_artifact(save_path, kind=DESIGN_KIND, meta=meta)
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / f"{problem_type}_{role}.npy"
        np.save(path, design)
        return context.add_artifact(path, kind=DESIGN_KIND, meta=meta)


def newest_design(context: ToolContext, problem_type: str, role: str) -> Artifact | None:
    for artifact in reversed(context.app.store.artifacts(DESIGN_KIND)):
        if artifact.meta.get("problem_type") == problem_type and artifact.meta.get("role") == role:
            return artifact
    return None


def artifact_for_sha(context: ToolContext, design_sha: str) -> Artifact | None:
    for artifact in reversed(context.app.store.artifacts(DESIGN_KIND)):
        if artifact.meta.get("design_sha256") == design_sha:
            return artifact
    return None


def design_file(context: ToolContext, description: str) -> Path | None:
    """The confined .npy path a description names (relative: in the outputs folder), or None
    when it names a design by word ('last', 'initial', ...)."""
    if not looks_like_path(description):
        return None
    return context.file(description, mode="read", base=outputs_folder(context))


def load_npy(context: ToolContext, path_text: str) -> npt.NDArray:
    path = context.file(path_text, mode="read", base=outputs_folder(context))
    if not path.is_file():
        raise ToolFailure(
            f"No design file at {path}.",
            hint="Use the save_path or npy_path returned by optimize_design or render_design.",
        )
    try:
        with open_checked(path) as opened:  # no link swapped in since the check
            array = np.load(opened, allow_pickle=False)
    except (ValueError, OSError) as error:
        raise ToolFailure(f"{path} is not a readable .npy array: {error}") from None
    if not isinstance(array, np.ndarray) or array.ndim != 2:
        raise ToolFailure(
            f"{path} holds an array of shape {list(np.shape(array))}; a design is a 2D array."
        )
    return array


def looks_like_path(description: str) -> bool:
    return description.strip().lower().endswith(".npy") or "/" in description


def _mentions(description: str, words: tuple[str, ...]) -> bool:
    return any(re.search(rf"\b{word}\b", description.lower()) for word in words)


def random_design(config: engine.ProblemConfig, seed: int) -> npt.NDArray:
    """Offline stand-in for the reference's dataset sample: a seeded field at the target volume."""
    if isinstance(config, engine.Beams2DConfig):
        field = np.random.default_rng(seed).random(config.design_shape)
        return np.clip(field * (config.volfrac / field.mean()), 0.0, 1.0)
    return engine.starting_design("photonics2d", config, seed)  # EngiBench's noise design


def resolve(
    context: ToolContext,
    description: str,
    problem_type: str,
    config: engine.ProblemConfig,
    seed: int,
) -> ResolvedDesign:
    if looks_like_path(description):
        design = load_npy(context, description)
        found = artifact_for_sha(context, engine.design_sha256(design))
        return ResolvedDesign(design, "file", description, found)
    if _mentions(description, INITIAL_WORDS):
        artifact = newest_design(context, problem_type, "initial")
        if artifact is None:  # no run yet: the problem's own deterministic start
            return ResolvedDesign(
                engine.starting_design(problem_type, config, seed), "initial", None, None
            )
        return ResolvedDesign(np.load(artifact.path), "initial", str(artifact.path), artifact)
    if _mentions(description, LAST_WORDS):
        artifact = newest_design(context, problem_type, "optimized")
        if artifact is None:
            raise ToolFailure(
                f"There is no optimized {problem_type} design in this workspace yet.",
                hint="Run optimize_design first, or pass the path of an .npy design.",
            )
        return ResolvedDesign(np.load(artifact.path), "optimized", str(artifact.path), artifact)
    return ResolvedDesign(random_design(config, seed), "random", None, None)


def config_of(
    context: ToolContext, resolved: ResolvedDesign, problem_type: str, given: dict | None
) -> engine.ProblemConfig:
    """The config a design was made with, unless the caller gave one explicitly."""
    if given is None and resolved.artifact is not None:
        stored = resolved.artifact.meta.get("config")
        if resolved.artifact.meta.get("problem_type") == problem_type and stored:
            return engine.parse_config(problem_type, stored)
    return engine.parse_config(problem_type, given)
