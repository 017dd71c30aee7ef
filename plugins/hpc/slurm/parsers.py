"""Pure parsers of squeue, scontrol, sacct and jobcomp-file output (Slurm 22.05 formats), no I/O.

The benchmark of 1,000 tracked jobs calls these directly, so they stay plain string work.
"""

from __future__ import annotations

import re
from datetime import datetime

from workbench_plugins.hpc.slurm.jobs import JobRow, JobState

# squeue fields, '|'-separated. The job name comes last because it is the only field a user
# writes (it may hold '|' itself): splitting at most FIELDS-1 times keeps it whole.
# %i job or "array_task" id, %A raw job id, %F array job id, %K array task id (or range), %u user,
# %T state, %r reason, %M elapsed, %l time limit, %D node count, %N node list, %j name.
SQUEUE_FORMAT = "%i|%A|%F|%K|%u|%T|%r|%M|%l|%D|%N|%j"
_SQUEUE_FIELDS = SQUEUE_FORMAT.count("|") + 1

# sacct fields for `-P` (the name last, for the same reason).
SACCT_FIELDS = "JobID,User,State,ExitCode,Elapsed,Timelimit,NNodes,NodeList,Reason,JobName"
_SACCT_FIELDS = SACCT_FIELDS.count(",") + 1

_NOT_SET = {"", "N/A", "(null)", "None", "none"}
_ARRAY_ID = re.compile(r"^(?P<base>\d+)_(?P<task>\d+|\[(?P<range>[^\]]*)\])$")
_SCONTROL_KEY = re.compile(r"(?:^|\s)([A-Za-z][A-Za-z0-9_:/]*)=")


def _value(text: str) -> str:
    text = text.strip()
    return "" if text in _NOT_SET else text


def _user(text: str) -> str:
    """'root(0)' (scontrol, sacct -c) or 'root' (squeue) -> 'root'."""
    return text.strip().split("(", 1)[0]


def expand_array_range(text: str) -> list[str]:
    """Task ids of a pending range as squeue prints it: '0-3', '1,3-5', '0-7:2', '0-15%4'."""
    tasks: list[str] = []
    for part in text.split("%", 1)[0].split(","):
        part = part.strip()
        if not part:
            continue
        span, _, step_text = part.partition(":")
        first, _, last = span.partition("-")
        if not first.isdigit() or (last and not last.isdigit()):
            continue
        step = int(step_text) if step_text.isdigit() and int(step_text) > 0 else 1
        end = int(last) if last else int(first)
        tasks.extend(str(task) for task in range(int(first), end + 1, step))
    return tasks


def _array_rows(row: JobRow, shown_id: str) -> list[JobRow]:
    """One row per task: "123_2" as is; a pending "123_[0-3]" becomes four rows."""
    match = _ARRAY_ID.match(shown_id)
    if match is None:
        return [row]
    base = match["base"]
    if match["range"] is None:
        return [_with_ids(row, f"{base}_{match['task']}", base, match["task"])]
    return [
        _with_ids(row, f"{base}_{task}", base, task) for task in expand_array_range(match["range"])
    ]


def _with_ids(row: JobRow, job_id: str, array_job_id: str, task: str | None) -> JobRow:
    return JobRow(
        host=row.host,
        job_id=job_id,
        array_job_id=array_job_id,
        array_task=task,
        name=row.name,
        user=row.user,
        state=row.state,
        reason=row.reason,
        elapsed=row.elapsed,
        time_limit=row.time_limit,
        nodes=row.nodes,
        exit_code=row.exit_code,
    )


def parse_squeue(text: str, host: str) -> list[JobRow]:
    """Rows of `squeue -h -o SQUEUE_FORMAT`, pending array ranges expanded to their tasks.

    Finished jobs get exit code "0:0" only when COMPLETED (squeue has no exit code field); the
    client asks scontrol for the others.
    """
    rows: list[JobRow] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        fields = line.split("|", _SQUEUE_FIELDS - 1)
        if len(fields) < _SQUEUE_FIELDS:
            continue  # a warning line or a truncated one; never a job
        (
            shown,
            raw,
            array_job,
            _task,
            user,
            state_text,
            reason,
            elapsed,
            limit,
            count,
            nodes,
            name,
        ) = fields
        state = JobState.parse(state_text)
        row = JobRow(
            host=host,
            job_id=shown.strip() if "_" in shown else raw.strip(),
            array_job_id=_value(array_job),
            array_task=None,
            name=name,
            user=_user(user),
            state=state,
            reason=_value(reason),
            elapsed=_value(elapsed),
            time_limit=_value(limit),
            nodes=_value(nodes) or (f"({count.strip()})" if _value(count) else ""),
            exit_code="0:0" if state is JobState.COMPLETED else None,
        )
        rows.extend(_array_rows(row, shown.strip()))
    return rows


def parse_scontrol(text: str, host: str) -> list[JobRow]:
    """Rows of `scontrol show job -o ID` (one line per job or array task)."""
    rows: list[JobRow] = []
    for line in text.splitlines():
        if not line.startswith("JobId="):
            continue
        fields = _fields_with_name(line, "JobName", "UserId")
        array_job = _value(fields.get("ArrayJobId", ""))
        task = _value(fields.get("ArrayTaskId", ""))
        shown = f"{array_job}_[{task}]" if task and not task.isdigit() else f"{array_job}_{task}"
        row = JobRow(
            host=host,
            job_id=f"{array_job}_{task}" if array_job and task else fields["JobId"],
            array_job_id=array_job or fields["JobId"],
            array_task=task or None,
            name=fields.get("JobName", ""),
            user=_user(fields.get("UserId", "")),
            state=JobState.parse(fields.get("JobState", "")),
            reason=_value(fields.get("Reason", "")),
            elapsed=_value(fields.get("RunTime", "")),
            time_limit=_value(fields.get("TimeLimit", "")),
            nodes=_value(fields.get("NodeList", "")),
            exit_code=_value(fields.get("ExitCode", "")) or None,
        )
        rows.extend(_array_rows(row, shown) if array_job and task else [row])
    return rows


def parse_sacct(text: str, host: str) -> list[JobRow]:
    """Rows of `sacct [-c] -P -n -o SACCT_FIELDS`; job steps ("12.batch") are left out."""
    rows: list[JobRow] = []
    for line in text.splitlines():
        fields = line.split("|", _SACCT_FIELDS - 1)
        if len(fields) < _SACCT_FIELDS:
            continue
        job_id, user, state, exit_code, elapsed, limit, _count, nodes, reason, name = fields
        job_id = job_id.strip()
        if not job_id or "." in job_id:
            continue
        base, _, task = job_id.partition("_")
        rows.append(
            JobRow(
                host=host,
                job_id=job_id,
                array_job_id=base,
                array_task=task or None,
                name=name,
                user=_user(user),
                state=JobState.parse(state),
                reason=_value(reason),
                elapsed=_value(elapsed),
                time_limit=_value(limit),
                nodes=_value(nodes),
                exit_code=_value(exit_code) or None,
            )
        )
    return rows


def parse_jobcomp(text: str, host: str) -> list[JobRow]:
    """Rows of the jobcomp/filetxt file's lines (`JobId=5 UserId=root(0) ... ExitCode=3:0`).

    Read directly because `sacct -c` knows neither the ArrayJobId/ArrayTaskId fields (an array's
    tasks all look like unrelated jobs) nor names with blanks. A job written twice (requeued)
    keeps its last line.
    """
    rows: dict[str, JobRow] = {}
    for line in text.splitlines():
        if not line.startswith("JobId="):
            continue
        fields = _fields_with_name(line, "Name", "JobState")
        array_job = _value(fields.get("ArrayJobId", ""))
        task = _value(fields.get("ArrayTaskId", ""))
        job_id = f"{array_job}_{task}" if array_job and task.isdigit() else fields["JobId"]
        rows[job_id] = JobRow(
            host=host,
            job_id=job_id,
            array_job_id=array_job if task.isdigit() else "",
            array_task=task if task.isdigit() else None,
            name=fields.get("Name", ""),
            user=_user(fields.get("UserId", "")),
            state=JobState.parse(fields.get("JobState", "")),
            elapsed=_elapsed(fields.get("StartTime", ""), fields.get("EndTime", "")),
            time_limit=_value(fields.get("TimeLimit", "")),
            nodes=_value(fields.get("NodeList", "")),
            exit_code=_value(fields.get("ExitCode", "")) or None,
        )
    return list(rows.values())


def _fields_with_name(line: str, name_key: str, next_key: str) -> dict[str, str]:
    """'Key=value ...' with the user-written `name_key` taken whole up to ` next_key=` (the last
    one: a name may hold ' JobState=' itself, the fields Slurm writes after it never do)."""
    fields: dict[str, str] = {}
    name_match = re.search(rf"(?:^|\s){name_key}=(.*) {next_key}=", line)
    if name_match:
        fields[name_key] = name_match.group(1)
        line = line[: name_match.start(1)] + line[name_match.end(1) :]
    keys = list(_SCONTROL_KEY.finditer(line))
    for index, key in enumerate(keys):
        end = keys[index + 1].start() if index + 1 < len(keys) else len(line)
        fields.setdefault(key.group(1), line[key.end() : end].strip())
    return fields


def _elapsed(start: str, end: str) -> str:
    """'HH:MM:SS' (or 'D-HH:MM:SS') between two Slurm timestamps; '' when either is unset."""
    try:
        seconds = int((datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds())
    except ValueError:
        return ""
    days, rest = divmod(max(seconds, 0), 86400)
    clock = f"{rest // 3600:02d}:{rest % 3600 // 60:02d}:{rest % 60:02d}"
    return f"{days}-{clock}" if days else clock
