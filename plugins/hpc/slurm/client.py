"""Slurm over a RemoteShell: submit, ask states, cancel, tail logs, list partitions and QOS.

Every command is an argument vector; the shell quotes it (remote.py). `states` asks squeue ONCE
for all the ids it is given, and only for the ids squeue no longer knows falls back to scontrol
and then `finished`: accounting (`sacct`), else the jobcomp file (read directly where it is a
file: `sacct -c` cannot tell an array's tasks apart), else `sacct -c`.
"""

from __future__ import annotations

import posixpath
import re
import time
from collections.abc import Iterable, Sequence

from workbench_plugins.hpc.remote import RemoteCommandFailed, RemoteResult, RemoteShell
from workbench_plugins.hpc.slurm.jobs import JobRow
from workbench_plugins.hpc.slurm.parsers import (
    SACCT_FIELDS,
    SQUEUE_FORMAT,
    parse_jobcomp,
    parse_sacct,
    parse_scontrol,
    parse_squeue,
)

__all__ = [
    "SlurmClient",
    "SlurmError",
    "SlurmUnavailable",
    "parse_sacct",
    "parse_scontrol",
    "parse_squeue",
]

_JOB_ID = re.compile(r"^\d+(_\d+)?$")
_INVALID_ID = "Invalid job id specified"
# Beyond this many ids squeue has forgotten, scontrol (one call per id) is skipped for sacct.
_SCONTROL_FALLBACK_LIMIT = 20


class SlurmError(RuntimeError):
    """Slurm refused something (a bad script, an unknown job); the message says what to do."""


class SlurmUnavailable(SlurmError):
    """The controller did not answer (restarting, down): states are unknown, not changed."""

    def __init__(self, result: RemoteResult, what: str) -> None:
        detail = (result.stderr or result.stdout).strip() or f"exit {result.exit_code}"
        super().__init__(
            f"{what} on {result.host}: the Slurm controller did not answer ({detail}). "
            "It may be restarting; try again in a few seconds."
        )
        self.result = result


def _check_job_id(job_id: str) -> str:
    job_id = str(job_id).strip()
    if not _JOB_ID.match(job_id):
        raise SlurmError(f"{job_id!r} is not a Slurm job id; give a number like 123 or 123_2.")
    return job_id


def _base(job_id: str) -> str:
    return job_id.split("_", 1)[0]


class SlurmClient:
    def __init__(self, shell: RemoteShell) -> None:
        self.shell = shell

    @property
    def host(self) -> str:
        return self.shell.host

    def absolute(self, path: str) -> str:
        """`path` with a leading ~ made the remote home (SFTP and Slurm do not expand it)."""
        if path == "~" or path.startswith("~/"):
            return self.shell.home().rstrip("/") + path[1:]
        return path

    # -- submit and cancel ----------------------------------------------------------------------
    def submit(self, script_text: str, remote_dir: str, name: str = "") -> str:
        """Write the script into `remote_dir` and `sbatch --parsable` it; return the job id.

        `name`, if given, goes to sbatch as one argument, so any job name survives as typed.
        """
        folder = self.absolute(remote_dir).rstrip("/") or "/"
        script_path = posixpath.join(folder, f"job-{time.time_ns()}.sbatch")
        self.shell.write_text(script_path, script_text, 0o700)
        argv = ["sbatch", "--parsable"]
        if name:
            argv.append(f"--job-name={name}")
        if "#SBATCH --chdir" not in script_text:
            argv.append(f"--chdir={folder}")
        argv.append(script_path)
        result = self.shell.run(argv)
        if not result.ok:
            raise SlurmError(
                f"sbatch refused the job on {self.host}: "
                f"{(result.stderr or result.stdout).strip() or f'exit {result.exit_code}'}. "
                "Check the partition, time limit and resources against `sinfo`."
            )
        # "123" or "123;cluster" with federation/multi-cluster
        job_id = result.stdout.strip().splitlines()[-1].split(";", 1)[0].strip()
        if not job_id.isdigit():
            raise SlurmError(f"sbatch on {self.host} answered {result.stdout!r}, not a job id.")
        return job_id

    def cancel(self, job_id: str) -> None:
        job_id = _check_job_id(job_id)
        result = self.shell.run(["scancel", job_id])
        if not result.ok:
            raise SlurmError(
                f"scancel {job_id} failed on {self.host}: "
                f"{(result.stderr or result.stdout).strip()}. Check the id with the queue."
            )

    # -- states ---------------------------------------------------------------------------------
    def states(self, job_ids: Iterable[str], timeout: float = 60.0) -> dict[str, JobRow]:
        """Rows keyed by job id ("123", or "123_2" for each array task) for the given ids.

        An id squeue no longer knows is looked up with scontrol, then `finished`; an id nobody
        knows is simply absent. Raises SlurmUnavailable when the controller does not answer, and
        SshFailure("timeout") when a command takes longer than `timeout` seconds.
        """
        wanted = sorted({_check_job_id(job_id) for job_id in job_ids})
        if not wanted:
            return {}
        rows = self._squeue(wanted, timeout)
        self._add_exit_codes(rows, timeout)
        missing = [job_id for job_id in wanted if not _covered(job_id, rows)]
        if missing and len(missing) <= _SCONTROL_FALLBACK_LIMIT:
            for job_id in missing:
                for row in self._scontrol(job_id, timeout):
                    rows.setdefault(row.job_id, row)
            missing = [job_id for job_id in missing if not _covered(job_id, rows)]
        if missing:
            for row in self.finished(missing, timeout):
                rows.setdefault(row.job_id, row)
        return rows

    def queue(self, user: str | None = None) -> list[JobRow]:
        """The controller's current queue (all users, or one)."""
        argv = ["squeue", "-h", "-o", SQUEUE_FORMAT]
        if user:
            argv += ["-u", user]
        result = self.shell.run(argv)
        if not result.ok:
            raise SlurmUnavailable(result, "squeue")
        return parse_squeue(result.stdout, self.host)

    def _squeue(self, job_ids: Sequence[str], timeout: float) -> dict[str, JobRow]:
        argv = ["squeue", "-t", "all", "-h", "-j", ",".join(job_ids), "-o", SQUEUE_FORMAT]
        result = self.shell.run(argv, timeout=timeout)
        if not result.ok:
            if _INVALID_ID in result.stderr:
                return {}  # squeue says so only when every id given is unknown
            raise SlurmUnavailable(result, "squeue")
        return {row.job_id: row for row in parse_squeue(result.stdout, self.host)}

    def _add_exit_codes(self, rows: dict[str, JobRow], timeout: float) -> None:
        """squeue has no exit code: ask scontrol for the jobs that ended other than COMPLETED."""
        ended = sorted(
            {_base(row.job_id) for row in rows.values() if row.state.finished and not row.exit_code}
        )
        for base in ended[:_SCONTROL_FALLBACK_LIMIT]:
            for row in self._scontrol(base, timeout):
                if row.job_id in rows and row.exit_code:
                    rows[row.job_id] = row

    def _scontrol(self, job_id: str, timeout: float) -> list[JobRow]:
        result = self.shell.run(["scontrol", "show", "job", "-o", job_id], timeout=timeout)
        if not result.ok:
            if _INVALID_ID in result.stderr:
                return []
            raise SlurmUnavailable(result, "scontrol show job")
        return parse_scontrol(result.stdout, self.host)

    def finished(self, job_ids: Sequence[str], timeout: float = 60.0) -> list[JobRow]:
        """Finished jobs (an array: one row per task) from accounting, else from the jobcomp
        file, else from `sacct -c`; [] when none of them knows the ids."""
        ids = [_check_job_id(job_id) for job_id in job_ids]
        # accounting storage (slurmdbd) knows arrays: first, where it is on
        accounted = self._sacct(ids, [], timeout)
        if accounted:
            return accounted
        return self._jobcomp(ids, timeout) or self._sacct(ids, ["-c"], timeout)

    def _sacct(self, job_ids: Sequence[str], options: list[str], timeout: float) -> list[JobRow]:
        argv = ["sacct", *options, "-j", ",".join(job_ids), "-P", "-n", "-o", SACCT_FIELDS]
        result = self.shell.run(argv, timeout=timeout)
        return parse_sacct(result.stdout, self.host) if result.ok else []

    def _jobcomp(self, job_ids: Sequence[str], timeout: float) -> list[JobRow]:
        """The ids' lines of the jobcomp/filetxt file (a job's own, or an array's tasks)."""
        where = self._jobcomp_file(timeout)
        if not where:
            return []
        bases = "|".join(sorted({_base(job_id) for job_id in job_ids}))
        pattern = f"^JobId=({bases}) |ArrayJobId=({bases}) "
        result = self.shell.run(["grep", "-h", "-E", pattern, where], timeout=timeout)
        if result.exit_code not in (0, 1):  # 1: no line matched; else unreadable
            return []
        wanted = set(job_ids)
        return [
            row
            for row in parse_jobcomp(result.stdout, self.host)
            if row.job_id in wanted or row.base_id in wanted
        ]

    def _jobcomp_file(self, timeout: float) -> str:
        """JobCompLoc when the controller's JobCompType is jobcomp/filetxt, else ""."""
        result = self.shell.run(["scontrol", "show", "config"], timeout=timeout)
        if not result.ok:
            return ""
        config = dict(
            (key.strip(), value.strip())
            for key, sep, value in (line.partition("=") for line in result.stdout.splitlines())
            if sep
        )
        if config.get("JobCompType") != "jobcomp/filetxt":
            return ""
        return config.get("JobCompLoc", "")

    # -- files and forms ------------------------------------------------------------------------
    def tail(self, path: str, offset: int = 0, limit: int = 256_000) -> tuple[str, int]:
        """New text of a remote log from byte `offset`, and the offset to ask from next time.

        A log that does not exist yet (the job is pending) reads as "".
        """
        try:
            text = self.shell.read_text(self.absolute(path), offset, limit)
        except FileNotFoundError:
            return "", offset
        return text, offset + len(text.encode("utf-8", errors="surrogateescape"))

    def partitions(self) -> list[str]:
        """Partition names from sinfo, the default one first (sinfo marks it with '*')."""
        result = self.shell.run(["sinfo", "-h", "-o", "%P"]).check("sinfo (listing partitions)")
        default: list[str] = []
        others: list[str] = []
        for line in result.stdout.split():
            name = line.strip()
            target = default if name.endswith("*") else others
            name = name.rstrip("*")
            if name and name not in default and name not in others:
                target.append(name)
        return default + others

    def qos(self) -> list[str]:
        """QOS names from sacctmgr; [] where there is no accounting database."""
        try:
            result = self.shell.run(["sacctmgr", "-n", "-P", "show", "qos", "format=name"])
        except RemoteCommandFailed:
            return []
        if not result.ok:
            return []
        return [line.strip() for line in result.stdout.splitlines() if line.strip()]


def _covered(job_id: str, rows: dict[str, JobRow]) -> bool:
    """Whether `rows` answer for `job_id` (for an array's id, any of its tasks does)."""
    if job_id in rows:
        return True
    if "_" in job_id:
        return False
    return any(row.array_job_id == job_id for row in rows.values())


def group_by_job(rows: dict[str, JobRow]) -> dict[str, list[JobRow]]:
    """Rows by the id each job was submitted as: a job's own row, or an array's tasks in order."""
    groups: dict[str, list[JobRow]] = {}
    for row in rows.values():
        key = row.array_job_id if row.array_task is not None else row.job_id
        groups.setdefault(key, []).append(row)
    for tasks in groups.values():
        if len(tasks) > 1:
            tasks.sort(key=lambda row: int(row.array_task) if row.array_task else -1)
    return groups


def rows_of(rows: dict[str, JobRow], job_id: str) -> list[JobRow]:
    """The row of a job, or the rows of every task of an array submitted as `job_id`."""
    if "_" in job_id:
        return [rows[job_id]] if job_id in rows else []
    return group_by_job(rows).get(job_id, [])
