"""What the queue view's Submit and Cancel do, once the person said Yes.

`RegistryActions` calls the HPC tools through the tool registry (the calls the agent makes, recorded
in the workspace store, confirmed by the person's Yes); `DirectActions` calls the Slurm client
itself, for a context without those tools. Both run their SSH work off the GUI thread.
"""

from __future__ import annotations

import asyncio
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from pydantic import ValidationError

from workbench.core.context import AppContext
from workbench_plugins.hpc.remote import RemoteShell
from workbench_plugins.hpc.slurm.client import SlurmClient
from workbench_plugins.hpc.slurm.script import JobSpec, directive_name, render_script

SUBMIT_TOOL = "submit_slurm_job"
CANCEL_TOOL = "cancel_slurm_job"


class ActionFailed(RuntimeError):
    """Submit or cancel did not happen; the message says why and what to do."""


@dataclass(frozen=True)
class SubmitRequest:
    """The submit form: a local script file, or a command turned into a script here.

    Partition, time limit and CPUs apply to both; left empty (0 CPUs) they mean Slurm's default
    for a command, and the script's own #SBATCH lines for a script file.
    """

    host: str
    name: str
    script_file: str = ""  # a local batch script; the form's options are added to it
    command: str = ""  # else a command line (split with shlex), run by a generated script
    partition: str = ""
    time_limit: str = ""  # "" = 00:10:00 for a command, the script's own for a script
    cpus: int = 0  # 0 = 1 for a command, the script's own for a script

    def checked(self) -> JobSpec:
        """The options as a JobSpec (its checks name a bad time limit or partition)."""
        try:
            argv = shlex.split(self.command) if self.command else []
        except ValueError as error:
            raise ActionFailed(f"The command cannot be split into words: {error}.") from error
        try:
            return JobSpec(
                name=self.name or (Path(argv[0]).name if argv else "job"),
                command=argv or ["true"],
                partition=self.partition,
                time_limit=self.time_limit or "00:10:00",
                cpus=self.cpus or 1,
            )
        except ValidationError as error:
            problems = "; ".join(str(item["msg"]) for item in error.errors())
            raise ActionFailed(f"Not submitted: {problems}.") from error

    def sbatch_options(self) -> list[str]:
        """The options the person set, as #SBATCH lines hold them (for a script file)."""
        self.checked()
        options = [f"--job-name={directive_name(self.name)}"] if self.name else []
        options += [f"--partition={self.partition}"] if self.partition else []
        options += [f"--time={self.time_limit}"] if self.time_limit else []
        return options + ([f"--cpus-per-task={self.cpus}"] if self.cpus else [])

    def script_text(self) -> str:
        """The batch script to submit (reads the local file; raises ActionFailed)."""
        if self.script_file:
            try:
                text = Path(self.script_file).expanduser().read_text()
            except OSError as error:
                raise ActionFailed(
                    f"Cannot read the script {self.script_file}: {error}."
                ) from error
            return with_sbatch_options(text, self.sbatch_options())
        if not self.command.strip():
            raise ActionFailed("Give a script file or a command to run.")
        return render_script(self.checked())


def with_sbatch_options(script: str, options: list[str]) -> str:
    """`script` with `#SBATCH` lines for `options` after its own: sbatch reads the directives in
    order and the last one of an option wins, so the form's choices override the script's.

    The submit tool takes a script path only (no sbatch options), hence directives, not argv.
    """
    if not options:
        return script
    lines = script.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    at = 1 if lines and lines[0].startswith("#!") else 0
    for index, line in enumerate(lines[at:], start=at):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            break  # sbatch stops reading directives at the first command
        if stripped.startswith("#SBATCH"):
            at = index + 1
    added = ["# from the workbench submit form (overrides the lines above)\n"]
    added += [f"#SBATCH {option}\n" for option in options]
    return "".join(lines[:at] + added + lines[at:])


class QueueActions(Protocol):
    async def submit(self, request: SubmitRequest) -> str:
        """Submit; the job id Slurm gave."""

    async def cancel(self, host: str, job_id: str) -> str:
        """Cancel; a sentence saying what happened."""


def local_script(folder: Path, request: SubmitRequest) -> Path:
    """The script written where submit_slurm_job reads scripts from: the workspace."""
    text = request.script_text()
    scripts = folder / "hpc" / "scripts"
    scripts.mkdir(parents=True, exist_ok=True)
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in request.name) or "job"
    path = scripts / f"{safe}-{time.strftime('%Y%m%d-%H%M%S')}.sbatch"
    path.write_text(text)
    return path


@dataclass
class RegistryActions:
    """Submit and cancel as tool calls (recorded; the registry's confirmation rules apply)."""

    context: AppContext

    async def submit(self, request: SubmitRequest) -> str:
        script = await asyncio.to_thread(local_script, self.context.store.folder, request)
        arguments: dict[str, object] = {"host": request.host, "script_path": str(script)}
        result = await self._call(SUBMIT_TOOL, arguments)
        return str(result.get("job_id", ""))

    async def cancel(self, host: str, job_id: str) -> str:
        arguments: dict[str, object] = {"host": host, "job_id": job_id}
        result = await self._call(CANCEL_TOOL, arguments)
        return str(result.get("message") or f"Cancelled job {job_id} on {host}.")

    async def _call(self, tool: str, arguments: dict[str, object]) -> dict[str, object]:
        outcome = await self.context.registry.acall(tool, arguments, caller="gui", confirmed=True)
        if outcome.ok and outcome.result is not None:
            return outcome.result
        message = outcome.error.explain() if outcome.error else f"{tool} gave no result."
        raise ActionFailed(message)


@dataclass
class DirectActions:
    """Submit and cancel through the Slurm client (for a context without the HPC tools)."""

    shells: Callable[[str], RemoteShell]
    remote_dir: str = "workbench/jobs"

    async def submit(self, request: SubmitRequest) -> str:
        def work() -> str:
            text = request.script_text()
            shell = self.shells(request.host)
            folder = f"{shell.home()}/{self.remote_dir}"
            return SlurmClient(shell).submit(text, folder)

        return await asyncio.to_thread(work)

    async def cancel(self, host: str, job_id: str) -> str:
        await asyncio.to_thread(lambda: SlurmClient(self.shells(host)).cancel(job_id))
        return f"Asked Slurm to cancel job {job_id} on {host}."


def actions_for(context: AppContext, shells: Callable[[str], RemoteShell]) -> QueueActions:
    """The tools when this context has them, else the client directly."""
    if context.registry.get(SUBMIT_TOOL) and context.registry.get(CANCEL_TOOL):
        return RegistryActions(context)
    return DirectActions(shells)
