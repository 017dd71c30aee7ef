"""Batch scripts from a job description: every user value checked or quoted, never pasted raw."""

from __future__ import annotations

import re
import shlex

from pydantic import BaseModel, Field, field_validator

_TIME = re.compile(r"^(\d+-)?\d+(:\d{1,2}){0,2}$")
_MEMORY = re.compile(r"^\d+[KMGT]?$", re.IGNORECASE)
_ARRAY = re.compile(r"^\d+(-\d+)?(:\d+)?(,\d+(-\d+)?(:\d+)?)*(%\d+)?$")
_PARTITION = re.compile(r"^[A-Za-z0-9_.,-]+$")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_MODULE = re.compile(r"^[A-Za-z0-9_.+/@:-]+$")
# What an #SBATCH line can carry: sbatch splits it at blanks and has its own quoting rules.
_DIRECTIVE_SAFE = re.compile(r"^[^\s\"'\\]+$")


class JobSpec(BaseModel):
    """A batch job. `command` is an argument vector; the script quotes it with shlex.join."""

    name: str = Field(min_length=1)
    command: list[str] = Field(min_length=1)
    partition: str = ""
    time_limit: str = "00:10:00"
    cpus: int = Field(default=1, ge=1)
    gpus: int = Field(default=0, ge=0)
    memory: str = ""
    array: str = ""
    modules: list[str] = Field(default_factory=list)
    environment: dict[str, str] = Field(default_factory=dict)
    workdir: str = ""
    output: str = ""

    @field_validator("time_limit")
    @classmethod
    def _check_time(cls, value: str) -> str:
        if not _TIME.match(value):
            raise ValueError(
                f"time limit {value!r} is not a Slurm time; write MM, HH:MM:SS or D-HH:MM:SS"
            )
        return value

    @field_validator("memory")
    @classmethod
    def _check_memory(cls, value: str) -> str:
        if value and not _MEMORY.match(value):
            raise ValueError(f"memory {value!r} is not a Slurm size; write e.g. 500M or 2G")
        return value

    @field_validator("array")
    @classmethod
    def _check_array(cls, value: str) -> str:
        if value and not _ARRAY.match(value):
            raise ValueError(
                f"array {value!r} is not a Slurm index list; write e.g. 0-3 or 1,5,7%2"
            )
        return value

    @field_validator("partition")
    @classmethod
    def _check_partition(cls, value: str) -> str:
        if value and not _PARTITION.match(value):
            raise ValueError(f"partition {value!r} has characters a partition name cannot have")
        return value

    @field_validator("modules")
    @classmethod
    def _check_modules(cls, value: list[str]) -> list[str]:
        for module in value:
            if not _MODULE.match(module):
                raise ValueError(f"module {module!r} is not a module name (e.g. python/3.11)")
        return value

    @field_validator("environment")
    @classmethod
    def _check_environment(cls, value: dict[str, str]) -> dict[str, str]:
        for key in value:
            if not _ENV_NAME.match(key):
                raise ValueError(
                    f"environment variable name {key!r} is not valid; use letters, digits and _"
                )
        return value

    @field_validator("workdir", "output")
    @classmethod
    def _check_path(cls, value: str) -> str:
        if value and not _DIRECTIVE_SAFE.match(value):
            raise ValueError(
                f"path {value!r} has blanks, quotes or backslashes, which #SBATCH lines cannot "
                "carry; choose a path without them"
            )
        if value.startswith("~"):
            raise ValueError(
                f"path {value!r} starts with ~, which Slurm does not expand; give an absolute "
                "path (SlurmClient.absolute resolves ~ on the cluster)"
            )
        return value

    def output_path(self) -> str:
        """Where the job's output goes; Slurm fills %j (job), %A (array) and %a (task)."""
        if self.output:
            return self.output
        pattern = "slurm-%A_%a.out" if self.array else "slurm-%j.out"
        return f"{self.workdir.rstrip('/')}/{pattern}" if self.workdir else pattern


def expand_output_pattern(pattern: str, job_id: str, task: str | None = None) -> str:
    """A Slurm output pattern with the job's ids put in (%j, %A, %a; "%%" stays a "%")."""
    base = job_id.split("_", 1)[0]
    values = {"j": job_id if task is None else base, "A": base, "a": task or "4294967294"}
    return re.sub(r"%(%|[jAa])", lambda m: "%" if m[1] == "%" else values[m[1]], pattern)


def directive_name(name: str) -> str:
    """The job name as an #SBATCH line can hold it; submit passes the exact name on the command
    line as one argument, so any name survives (see SlurmClient.submit)."""
    cleaned = re.sub(r"[\s\"'\\]+", "_", name).strip("_")
    return cleaned or "job"


def render_script(spec: JobSpec) -> str:
    """The batch script for `spec`: #SBATCH lines, module loads, exports, then the command."""
    lines = ["#!/bin/bash", f"#SBATCH --job-name={directive_name(spec.name)}"]
    if spec.partition:
        lines.append(f"#SBATCH --partition={spec.partition}")
    lines.append(f"#SBATCH --time={spec.time_limit}")
    lines.append("#SBATCH --ntasks=1")
    lines.append(f"#SBATCH --cpus-per-task={spec.cpus}")
    if spec.gpus:
        lines.append(f"#SBATCH --gres=gpu:{spec.gpus}")
    if spec.memory:
        lines.append(f"#SBATCH --mem={spec.memory.upper()}")
    if spec.array:
        lines.append(f"#SBATCH --array={spec.array}")
    if spec.workdir:
        lines.append(f"#SBATCH --chdir={spec.workdir}")
    lines.append(f"#SBATCH --output={spec.output_path()}")
    # Stop at the first failing setup line, so a missing module is not hidden by the command.
    lines.append("set -e")
    lines.extend(f"module load {shlex.quote(module)}" for module in spec.modules)
    lines.extend(f"export {key}={shlex.quote(value)}" for key, value in spec.environment.items())
    if spec.workdir:
        lines.append(f"cd {shlex.quote(spec.workdir)}")
    lines.append(shlex.join(spec.command))
    return "\n".join(lines) + "\n"
