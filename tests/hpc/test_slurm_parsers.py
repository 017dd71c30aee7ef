"""The Slurm parsers on text captured from the real Slurm 22.05 rig, and the script renderer."""

from __future__ import annotations

import shlex

import pytest
from pydantic import ValidationError

from workbench_plugins.hpc.slurm.client import parse_sacct, parse_scontrol, parse_squeue
from workbench_plugins.hpc.slurm.jobs import JobRow, JobState
from workbench_plugins.hpc.slurm.parsers import expand_array_range, parse_jobcomp
from workbench_plugins.hpc.slurm.script import JobSpec, expand_output_pattern, render_script
from workbench_plugins.hpc.slurm.tracker import summarize

# `squeue -t all -h -j 2,3,4,5 -o SQUEUE_FORMAT` on the rig, first while pending, then later.
SQUEUE_PENDING = """\
2|2|2|N/A|root|PENDING|None|0:00|UNLIMITED|1||a b 'c'
3|3|3|N/A|root|PENDING|Priority|0:00|UNLIMITED|1||fail.sh
4_[0-3]|4|4|0-3|root|PENDING|None|0:00|UNLIMITED|1||arr.sh
5|5|5|N/A|root|PENDING|Priority|0:00|UNLIMITED|1||x|y "z" it's
"""
SQUEUE_LATER = """\
2|2|2|N/A|root|COMPLETED|None|0:02|UNLIMITED|1|wbnode|a b 'c'
4_2|8|4|2|root|COMPLETED|None|0:02|UNLIMITED|1|wbnode|arr.sh
4_1|7|4|1|root|COMPLETED|None|0:02|UNLIMITED|1|wbnode|arr.sh
4_0|6|4|0|root|COMPLETED|None|0:02|UNLIMITED|1|wbnode|arr.sh
3|3|3|N/A|root|FAILED|NonZeroExitCode|0:00|UNLIMITED|1|wbnode|fail.sh
5|5|5|N/A|root|PENDING|Resources|0:00|UNLIMITED|1||x|y "z" it's
4_3|4|4|3|root|RUNNING|None|0:00|UNLIMITED|1|wbnode|arr.sh
"""
SCONTROL_FAILED = (
    "JobId=3 JobName=fail.sh UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=4294901757 "
    "Nice=0 Account=(null) QOS=(null) JobState=FAILED Reason=NonZeroExitCode Dependency=(null) "
    "Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=3:0 RunTime=00:00:00 TimeLimit=UNLIMITED "
    "TimeMin=N/A SubmitTime=2026-12-01T09:57:13 Partition=debug AllocNode:Sid=localhost:4414 "
    "NodeList=wbnode BatchHost=wbnode NumNodes=1 NumCPUs=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:* "
    "TRES=cpu=1,node=1,billing=1 Command=/tmp/slurmhelper/fail.sh WorkDir=/tmp/slurmhelper "
    "StdErr=/tmp/slurmhelper/slurm-3.out StdIn=/dev/null "
    "StdOut=/tmp/slurmhelper/slurm-3.out Power= "
)
SCONTROL_ARRAY_TASK = (
    "JobId=8 ArrayJobId=4 ArrayTaskId=2 JobName=arr.sh UserId=root(0) GroupId=root(0) "
    "JobState=COMPLETED Reason=None ExitCode=0:0 RunTime=00:00:02 TimeLimit=UNLIMITED "
    "NodeList=wbnode StdOut=/tmp/slurmhelper/slurm-4_2.out Power= "
)
SCONTROL_NAME_WITH_BLANKS = (
    'JobId=5 JobName=x|y "z" it\'s A=b UserId=root(0) GroupId=root(0) JobState=PENDING '
    "Reason=Resources ExitCode=0:0 RunTime=00:00:00 TimeLimit=UNLIMITED NodeList= Power= "
)
# `sacct -c -j 3,2 -P -n -o SACCT_FIELDS` (jobcomp/filetxt; it cannot read names with blanks).
SACCT_C = """\
3|root(0)|FAILED|3:0|00:00:00|UNLIMITED|1|wbnode||fail.sh
2|root(0)||0:0|00:00:02|UNLIMITED|1|wbnode||a
"""

# Lines of the rig's jobcomp/filetxt file for array 1 (tasks 0-3, task 2 exited 3) and a job
# named with blanks; `sacct -c -j 1` reads only "1|...|COMPLETED|0:0" from them.
JOBCOMP_COMMON = (
    "GroupId=root(0) Partition=debug TimeLimit=UNLIMITED StartTime=2026-12-03T05:27:27 "
    "EndTime=2026-12-03T05:27:29 NodeList=wbnode NodeCnt=1 ProcCnt=1 WorkDir=/tmp/qhpc/w "
    "ReservationName= Tres=cpu=1,mem=1M,node=1,billing=1 Account= QOS= WcKey= Cluster=unknown "
    "SubmitTime=2026-12-03T05:27:27 EligibleTime=2026-12-03T05:27:27"
)
JOBCOMP = "\n".join(
    f"JobId={raw} UserId=root(0) Name={name} JobState={state} {JOBCOMP_COMMON} "
    f"{array}DerivedExitCode=0:0 ExitCode={code} "
    for raw, name, state, array, code in (
        (2, "arr.sh", "COMPLETED", "ArrayJobId=1 ArrayTaskId=0 ", "0:0"),
        (3, "arr.sh", "COMPLETED", "ArrayJobId=1 ArrayTaskId=1 ", "0:0"),
        (4, "arr.sh", "FAILED", "ArrayJobId=1 ArrayTaskId=2 ", "3:0"),
        (1, "arr.sh", "COMPLETED", "ArrayJobId=1 ArrayTaskId=3 ", "0:0"),
        (5, "a b JobState=x", "CANCELLED", "", "0:15"),
    )
)


def by_id(rows: list[JobRow]) -> dict[str, JobRow]:
    return {row.job_id: row for row in rows}


def test_squeue_pending_array_is_expanded_and_names_survive() -> None:
    rows = by_id(parse_squeue(SQUEUE_PENDING, "local"))
    assert sorted(rows) == ["2", "3", "4_0", "4_1", "4_2", "4_3", "5"]
    assert {rows[f"4_{task}"].array_task for task in range(4)} == {"0", "1", "2", "3"}
    assert all(rows[f"4_{task}"].state is JobState.PENDING for task in range(4))
    assert rows["2"].name == "a b 'c'" and rows["2"].array_task is None
    assert rows["5"].name == 'x|y "z" it\'s'
    assert rows["3"].reason == "Priority" and rows["2"].reason == ""


def test_squeue_finished_jobs_and_array_tasks() -> None:
    rows = by_id(parse_squeue(SQUEUE_LATER, "local"))
    assert rows["2"].state is JobState.COMPLETED and rows["2"].exit_code == "0:0"
    assert rows["3"].state is JobState.FAILED and rows["3"].exit_code is None  # scontrol's job
    assert rows["3"].reason == "NonZeroExitCode"
    assert rows["4_3"].state is JobState.RUNNING and rows["4_3"].array_job_id == "4"
    assert rows["4_0"].elapsed == "0:02" and rows["4_0"].nodes == "wbnode"
    tasks = [rows[f"4_{task}"] for task in range(4)]
    assert summarize(tasks).state is JobState.RUNNING


def test_scontrol_gives_exit_codes_and_array_ids() -> None:
    (failed,) = parse_scontrol(SCONTROL_FAILED, "local")
    assert (failed.job_id, failed.state, failed.exit_code) == ("3", JobState.FAILED, "3:0")
    assert failed.user == "root" and failed.time_limit == "UNLIMITED"
    (task,) = parse_scontrol(SCONTROL_ARRAY_TASK, "local")
    assert (task.job_id, task.array_job_id, task.array_task) == ("4_2", "4", "2")
    (named,) = parse_scontrol(SCONTROL_NAME_WITH_BLANKS, "local")
    assert named.name == 'x|y "z" it\'s A=b' and named.reason == "Resources"


def test_sacct_from_the_jobcomp_file() -> None:
    rows = by_id(parse_sacct(SACCT_C, "local"))
    assert rows["3"].state is JobState.FAILED and rows["3"].exit_code == "3:0"
    assert rows["2"].state is JobState.UNKNOWN  # sacct -c could not read that line's state


def test_array_ranges_and_states() -> None:
    assert expand_array_range("0-3") == ["0", "1", "2", "3"]
    assert expand_array_range("1,3-5") == ["1", "3", "4", "5"]
    assert expand_array_range("0-6:3%2") == ["0", "3", "6"]
    assert JobState.parse("CANCELLED by 0") is JobState.CANCELLED
    assert JobState.parse("CD") is JobState.COMPLETED
    assert JobState.COMPLETED.finished and not JobState.PENDING.finished


def test_summary_of_an_array_names_the_task_that_failed() -> None:
    def task(index: int, state: JobState, code: str) -> JobRow:
        return JobRow("h", f"9_{index}", "9", str(index), "a", "u", state, exit_code=code)

    done = [task(0, JobState.COMPLETED, "0:0"), task(1, JobState.FAILED, "3:0")]
    assert summarize(done)[:3] == (JobState.FAILED, "", "3:0")
    assert summarize(done[:1]).state is JobState.COMPLETED


def test_script_quotes_every_user_value() -> None:
    spec = JobSpec(
        name="train 'beams' now",
        command=["python", "-c", "print('a b; rm -rf /')"],
        partition="debug",
        time_limit="00:05:00",
        cpus=2,
        gpus=1,
        memory="2g",
        array="0-3",
        modules=["python/3.11"],
        environment={"SEED": "1; echo pwned", "EMPTY": ""},
        workdir="/scratch/run1",
    )
    script = render_script(spec)
    lines = script.splitlines()
    assert lines[0] == "#!/bin/bash"
    for directive in (
        "--partition=debug",
        "--time=00:05:00",
        "--cpus-per-task=2",
        "--gres=gpu:1",
        "--mem=2G",
        "--array=0-3",
        "--chdir=/scratch/run1",
        "--output=/scratch/run1/slurm-%A_%a.out",
        "--job-name=train_beams_now",
    ):
        assert f"#SBATCH {directive}" in lines
    assert "module load python/3.11" in lines
    assert "export SEED='1; echo pwned'" in lines and "export EMPTY=''" in lines
    assert shlex.split(lines[-1]) == spec.command


def test_script_rejects_what_it_cannot_carry() -> None:
    with pytest.raises(ValidationError, match="time limit"):
        JobSpec(name="a", command=["true"], time_limit="ten minutes")
    with pytest.raises(ValidationError, match="environment variable name"):
        JobSpec(name="a", command=["true"], environment={"A B": "x"})
    with pytest.raises(ValidationError, match="absolute"):
        JobSpec(name="a", command=["true"], workdir="~/runs")
    with pytest.raises(ValidationError, match="blanks"):
        JobSpec(name="a", command=["true"], output="/tmp/my log.out")
    assert JobSpec(name="a", command=["true"]).output_path() == "slurm-%j.out"
    assert expand_output_pattern("/r/slurm-%j.out", "12") == "/r/slurm-12.out"
    assert expand_output_pattern("/r/s-%A_%a.out", "12", "3") == "/r/s-12_3.out"


def test_the_jobcomp_file_keeps_an_arrays_tasks_apart() -> None:
    rows = by_id(parse_jobcomp(JOBCOMP, "local"))
    assert sorted(rows) == ["1_0", "1_1", "1_2", "1_3", "5"]
    failed = rows["1_2"]
    assert (failed.array_job_id, failed.array_task, failed.state) == ("1", "2", JobState.FAILED)
    assert failed.exit_code == "3:0" and failed.elapsed == "00:00:02" and failed.user == "root"
    assert rows["5"].name == "a b JobState=x" and rows["5"].state is JobState.CANCELLED
    array = [row for row in rows.values() if row.array_job_id == "1"]
    assert summarize(array)[:3] == (JobState.FAILED, "", "3:0")


def test_a_failed_task_outranks_a_cancelled_one() -> None:
    def task(index: int, state: JobState, code: str) -> JobRow:
        return JobRow("h", f"9_{index}", "9", str(index), "a", "u", state, exit_code=code)

    tasks = [task(0, JobState.CANCELLED, "0:15"), task(1, JobState.FAILED, "2:0")]
    assert summarize(tasks)[:3] == (JobState.FAILED, "", "2:0")
