"""What `check_model` and `simulate` share: their arguments, what to load, and which backend.

Outside a task run the model file and library folders are any path the user names (confined like
every tool's file arguments); inside one, files come from the run's workspace.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import Field

from workbench.core.tools import ToolContext, ToolFailure
from workbench_plugins.modelica import harness
from workbench_plugins.modelica.backend_base import Backend, BackendUnavailable, ModelSource
from workbench_plugins.modelica.backends import backend_named
from workbench_plugins.modelica.tools.common import RunArg, optional_run, settings_of


class ModelArgs(RunArg):
    model: str = Field(..., min_length=1)
    file: str | None = Field(
        None,
        description=".mo file or package folder (default: the workspace's)",
    )
    backend: Literal["rumoca", "omc"] | None = None  # None: the settings' backend
    libraries: list[str] = Field(default_factory=list, description="folders")


def model_source(args: ModelArgs, context: ToolContext, run: harness.Run | None) -> ModelSource:
    """The files and libraries to load for the call: the run's workspace, or the named file."""
    libraries = [
        *(Path(p) for p in settings_of(context).library_paths),  # the user's own settings
        *named_libraries(args, context),
    ]
    missing = [str(p) for p in libraries if not p.is_dir()]
    if missing:
        raise ToolFailure(
            f"Library folder(s) not found: {', '.join(missing)}.",
            "Fix library_paths in the Modelica settings or the 'libraries' argument.",
        )
    if run is not None:
        names = run.workspace.files(".mo")
        if args.file:
            first = run.workspace.resolve(args.file)
            if not first.is_file():
                raise ToolFailure(f"No file {args.file!r} in the workspace.", f"It holds: {names}.")
        else:
            if not names:
                raise ToolFailure("The workspace holds no .mo file yet.", "Write one first.")
            first = run.workspace.resolve(_declaring(run, names, args.model))
        rest = [run.workspace.resolve(n) for n in names if run.workspace.resolve(n) != first]
        return ModelSource(files=[first, *rest], model=args.model, libraries=libraries)
    if not args.file:
        raise ToolFailure("Name the .mo file ('file') that declares the model.")
    path = context.file(args.file, mode="read")
    if path.is_dir() and (path / "package.mo").is_file():
        path = path / "package.mo"  # a package folder is loaded as that package
    if not path.is_file():
        raise ToolFailure(
            f"No Modelica file at {path}.", "Give an existing .mo file or package folder."
        )
    return ModelSource(files=[path.resolve()], model=args.model, libraries=libraries)


def named_libraries(args: ModelArgs, context: ToolContext) -> list[Path]:
    """Library folders named in the call: confined like every file a tool reads; inside a task
    run, to the run's workspace (a compiler given a benchmark's folder would load its contracts)."""
    run = optional_run(args, context)
    if run is not None:
        return [run.workspace.resolve(folder) for folder in args.libraries]
    return [context.file(folder, mode="read") for folder in args.libraries]


def model_paths(args: ModelArgs, context: ToolContext) -> None:
    """The registry's `files`: outside a task run, the model file and libraries named in the
    call must be inside the workspace or an allowed folder, or confirmed by a person."""
    if optional_run(args, context) is None and args.file:
        context.file(args.file, mode="read")
    named_libraries(args, context)


def _declaring(run: harness.Run, names: list[str], model: str) -> str:
    """The workspace file that declares `model` (by its last name part); else the first one."""
    short = re.escape(model.rsplit(".", 1)[-1])
    pattern = re.compile(rf"^\s*(?:\w+\s+)*(?:model|block|class)\s+{short}\b", re.M)
    for name in names:
        if pattern.search(run.workspace.read(name)):
            return name
    return names[0]


def backend_for(args: ModelArgs, context: ToolContext) -> Backend:
    """The backend the call names (default: settings), refused when it cannot run here."""
    settings = settings_of(context)
    try:
        backend = backend_named(args.backend or settings.backend, omc_home=settings.omc_home)
    except BackendUnavailable as error:
        raise ToolFailure(str(error)) from error
    usable, why = backend.available()
    if not usable:
        raise ToolFailure(f"The {backend.name} backend cannot run here: {why}")
    return backend
