"""The workspace file tools of a Modelica task run: `read_file` and `write_file`.

Both work only inside a task run, on its confined workspace; a write that changes the package
makes a new candidate.
"""

from __future__ import annotations

from pydantic import BaseModel

from workbench.core.files import open_checked
from workbench.core.tools import SideEffect, Tool, ToolContext, ToolFailure
from workbench_plugins.modelica.tools.common import RunArg, required_run


class ReadArgs(RunArg):
    path: str


class ReadResult(BaseModel):
    path: str
    text: str
    workspace_files: list[str]


# a model file is kilobytes; the cap keeps a stray log or data file out of the agent's context
MAX_READ_BYTES = 512 * 1024


def read_file(args: ReadArgs, context: ToolContext) -> ReadResult:
    run = required_run(args, context)
    run.guard("read_file")
    path = run.workspace.resolve(args.path)
    if not path.is_file():
        run.workspace.read(args.path)  # raises the "no such file" failure, listing the workspace
    # opened without following a link put there since the check (PathRefused says so)
    with open_checked(path) as handle:
        data = handle.read(MAX_READ_BYTES + 1)  # never more than the cap, even if it grows
    if len(data) > MAX_READ_BYTES:
        raise ToolFailure(
            f"Refused to read {args.path!r}: it is {path.stat().st_size:,} bytes, over the "
            f"read_file limit of {MAX_READ_BYTES:,} bytes.",
            "Read the model files (.mo), not logs or results; split a model that is this large.",
        )
    # as Workspace.read (text mode): universal newlines
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    return ReadResult(path=args.path, text=text, workspace_files=run.workspace.files())


class WriteArgs(RunArg):
    path: str
    text: str


class WriteResult(BaseModel):
    path: str
    bytes: int
    candidate_id: str | None
    note: str = ""


def write_file(args: WriteArgs, context: ToolContext) -> WriteResult:
    run = required_run(args, context)
    run.guard("write_file")
    previous = run.candidate.id if run.candidate else None
    path = run.workspace.write(args.path, args.text)
    candidate = run.files_changed("write_file")
    changed = candidate is not None and candidate.id != previous
    return WriteResult(
        path=run.workspace.relative(path),
        bytes=path.stat().st_size,
        candidate_id=candidate.id if candidate else None,
        note=(
            "New candidate: every invariant is open again for it; earlier evidence stays with "
            "the earlier candidate."
            if changed
            else "Content unchanged: same candidate."
        ),
    )


def file_tools() -> list[Tool]:
    return [
        Tool(
            "read_file",
            "Read a task workspace file.",
            ReadArgs,
            ReadResult,
            read_file,
            SideEffect.READ,
        ),
        Tool(
            "write_file",
            "Write a whole task workspace file (a new candidate).",
            WriteArgs,
            WriteResult,
            write_file,
            SideEffect.WRITE,
        ),
    ]
