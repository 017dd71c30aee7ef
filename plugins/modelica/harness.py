"""The Pufibara harness for one Modelica task: workspace, candidates, ledger, limits, submission.

A `Run` owns one task workspace and one ledger subject. Candidates are content-addressed by the
ledger: for repair and generation the full set of .mo files, for tuning the parameter assignment
plus the hash of the frozen model and the verification settings. Every simulation is recorded
with the candidate that produced it, so evidence drawn from it binds to that candidate and to no
other. Submission is an explicit act that freezes the candidate's exact content; a run that ends
without one is a failure to submit. Limits (wall time, turns, simulations) end the run.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from workbench.core.ledger import Candidate, Ledger, LedgerError, Submission
from workbench.core.tools import ToolFailure
from workbench_plugins.modelica.backend_base import SimulationResult
from workbench_plugins.modelica.profiles import Profile, ProfileName, profile
from workbench_plugins.modelica.workspace_files import Workspace, sha256_text

RunState = Literal["running", "submitted", "ended"]


class Limits(BaseModel):
    """Run limits; the paper's are 900 s, 100 turns and 100 simulations (tuning)."""

    wall_time_s: float = Field(900.0, gt=0)
    turns: int = Field(100, ge=1)
    simulations: int = Field(100, ge=0)


class Task(BaseModel):
    task_id: str
    profile: ProfileName
    model_name: str
    brief: str = ""
    files: dict[str, str] = Field(default_factory=dict, description="initial workspace files")
    tunable_parameters: list[str] = Field(default_factory=list)
    parameter_ranges: dict[str, tuple[float, float]] = Field(default_factory=dict)
    stop_time: float = 1.0
    intervals: int = 500
    tolerance: float = 1e-6
    limits: Limits = Field(default_factory=Limits)

    @classmethod
    def from_benchmark(cls, data: dict[str, Any], **overrides: Any) -> Task:
        """A task from the public Modelica Agent Workflow Benchmark JSON format."""
        kind = {"model_repair": "repair", "model_generation": "generation"}.get(
            data["task_type"], "tuning"
        )
        name = data["model_name"]
        files = {f"{name}.mo": data["initial_model"]} if data.get("initial_model") else {}
        brief = [data.get("workflow_goal", "")]
        brief += [f"Requirement: {r}" for r in data.get("requirements", [])]
        brief += [f"Acceptance: {a}" for a in data.get("acceptance", [])]
        brief += [f"Target: {json.dumps(t)}" for t in data.get("target_metrics", [])]
        simulate = data.get("verification", {}).get("simulate", {})
        ranges = {
            k: (float(v["min"]), float(v["max"]))
            for k, v in data.get("parameter_ranges", {}).items()
        }
        return cls(
            task_id=data["task_id"],
            profile=kind,
            model_name=name,
            brief="\n".join(b for b in brief if b),
            files=files,
            tunable_parameters=list(data.get("tunable_parameters", [])),
            parameter_ranges=ranges,
            stop_time=float(simulate.get("stop_time", 1.0)),
            intervals=int(simulate.get("intervals", 500)),
            **overrides,
        )


class SimulationRecord(BaseModel):
    id: str
    candidate_id: str | None
    result: SimulationResult
    scenario: str = "default"
    tool_call_id: int | None = None
    artifact_id: int | None = None


class Outcome(BaseModel):
    task_id: str
    run_id: str
    status: Literal["submitted", "failure_to_submit"]
    reason: str = ""
    candidate_id: str | None = None
    submission_id: int | None = None
    override: bool = False
    turns: int = 0
    simulations: int = 0
    wall_time_s: float = 0.0
    logical_tokens: int = 0


_numbers = itertools.count(1)


class Run:
    """One attempt at one task. Thread-safe enough for tools that run in worker threads."""

    def __init__(
        self,
        task: Task,
        root: Path,
        ledger: Ledger,
        *,
        clock: Callable[[], float] = time.monotonic,
        run_id: str | None = None,
    ) -> None:
        self.id = run_id or f"{task.task_id}-{next(_numbers)}-{int(time.time())}"
        self.task = task
        self.profile: Profile = profile(task.profile)
        self.root = Path(root)
        self.workspace = Workspace(self.root / "workspace")
        self.output = self.root / "output"  # benchmark-owned: outside the agent's workspace
        self.ledger = ledger
        self.subject = f"modelica:{self.id}"
        self.state: RunState = "running"
        self.reason = ""
        self.turns = 0
        self.simulations: dict[str, SimulationRecord] = {}
        self.parameters: dict[str, float] = {}
        self.submission: Submission | None = None
        self.logical_tokens = 0
        self._clock = clock
        self._started = clock()
        self._lock = threading.RLock()
        self._sim_numbers = itertools.count(1)
        for name, text in task.files.items():
            self.workspace.write(name, text)
        # the frozen model of a tuning task: its hash is part of every candidate's identity
        self.frozen_sha256 = sha256_text(json.dumps(self.workspace.snapshot(), sort_keys=True))
        self.candidate: Candidate | None = None
        self._propose("initial")

    # -- limits and permissions --------------------------------------------------------------
    @property
    def elapsed_s(self) -> float:
        return self._clock() - self._started

    def end(self, reason: str) -> None:
        with self._lock:
            if self.state == "running":
                self.state, self.reason = "ended", reason

    def guard(self, action: str) -> None:
        """Refuse `action` when the run is over, a limit is reached, or the profile forbids it."""
        with self._lock:
            if self.state == "running" and self.elapsed_s > self.task.limits.wall_time_s:
                self.end(f"limit reached: wall time {self.task.limits.wall_time_s:g} s")
            if self.state == "submitted":
                raise ToolFailure(
                    f"Run {self.id} has submitted; the submission is frozen and the run is over."
                )
            if self.state == "ended":
                raise ToolFailure(f"Run {self.id} is over ({self.reason}); nothing more runs.")
            if action not in self.profile.permitted:
                raise ToolFailure(
                    f"{action} is not permitted in a {self.profile.name} task.",
                    f"Permitted: {', '.join(sorted(self.profile.permitted))}.",
                )

    def begin_turn(self, *, tokens: int = 0) -> None:
        """Count one agent turn (and its logical tokens); the turn limit ends the run."""
        with self._lock:
            self.logical_tokens += tokens
            if self.state != "running":
                return
            self.turns += 1
            if self.elapsed_s > self.task.limits.wall_time_s:
                self.end(f"limit reached: wall time {self.task.limits.wall_time_s:g} s")
            elif self.turns > self.task.limits.turns:
                self.end(f"limit reached: {self.task.limits.turns} turns")

    def reserve_simulation(self) -> str:
        with self._lock:
            self.guard("simulate")
            if len(self.simulations) >= self.task.limits.simulations:
                self.end(f"limit reached: {self.task.limits.simulations} simulations")
                self.guard("simulate")
            return f"sim{next(self._sim_numbers)}"

    # -- candidates --------------------------------------------------------------------------
    def content(self, parameters: dict[str, float] | None = None) -> dict[str, Any]:
        if self.profile.name == "tuning":
            return {
                "model": self.task.model_name,
                "parameters": dict(
                    sorted((parameters if parameters is not None else self.parameters).items())
                ),
                "frozen_model_sha256": self.frozen_sha256,
                "verification": {
                    "stop_time": self.task.stop_time,
                    "intervals": self.task.intervals,
                    "tolerance": self.task.tolerance,
                },
            }
        return {"model": self.task.model_name, "files": self.workspace.snapshot()}

    def _propose(self, action: str) -> Candidate | None:
        content = self.content()
        if self.profile.name != "tuning" and not content["files"]:
            return None  # generation starts empty: no candidate until a file exists
        with self._lock:
            self.candidate = self.ledger.propose(
                self.subject,
                self.profile.candidate_kind,
                content,
                parent=self.candidate,
                action=action if self.candidate else "initial",
            )
            return self.candidate

    def files_changed(self, action: str = "write_file") -> Candidate | None:
        return self._propose(action)

    def set_parameters(self, parameters: dict[str, float]) -> Candidate | None:
        """Tuning: a new assignment (merged over the current one) is a new candidate."""
        self.check_parameters(parameters)
        with self._lock:
            self.parameters = {**self.parameters, **parameters}
            return self._propose("set_parameters")

    def check_parameters(self, parameters: dict[str, float]) -> None:
        if self.profile.name != "tuning":
            return
        foreign = sorted(set(parameters) - set(self.task.tunable_parameters))
        if foreign:
            raise ToolFailure(
                f"Only tunable parameters may be set in this task; not {', '.join(foreign)}.",
                f"Tunable: {', '.join(self.task.tunable_parameters)}.",
            )
        for name, value in parameters.items():
            low, high = self.task.parameter_ranges.get(name, (float("-inf"), float("inf")))
            if not low <= value <= high:
                raise ToolFailure(f"{name}={value:g} is outside its range [{low:g}, {high:g}].")

    def current(self) -> Candidate:
        if self.candidate is None:
            raise ToolFailure(
                "There is no candidate yet: the workspace holds no .mo file.",
                f"Write the model {self.task.model_name} with write_file first.",
            )
        return self.candidate

    # -- simulations -------------------------------------------------------------------------
    def record_simulation(self, record: SimulationRecord) -> None:
        with self._lock:
            self.simulations[record.id] = record

    def simulation(self, sim_id: str) -> SimulationRecord:
        try:
            return self.simulations[sim_id]
        except KeyError:
            known = ", ".join(self.simulations) or "none yet"
            raise ToolFailure(
                f"No simulation {sim_id!r} in run {self.id} (runs: {known})."
            ) from None

    # -- submission --------------------------------------------------------------------------
    def contract_problems(self, candidate: Candidate) -> list[str]:
        content = candidate.content
        if self.profile.name == "tuning":
            problems = []
            try:
                self.check_parameters(content.get("parameters", {}))
            except ToolFailure as failure:
                problems.append(failure.message)
            if content.get("frozen_model_sha256") != self.frozen_sha256:
                problems.append("the candidate was not made for this task's frozen model")
            return problems
        short = self.task.model_name.rsplit(".", 1)[-1]
        declares = re.compile(rf"^\s*(?:\w+\s+)*(?:model|block|class)\s+{re.escape(short)}\b", re.M)
        if not any(declares.search(text) for text in content.get("files", {}).values()):
            return [f"no submitted file declares model {self.task.model_name}"]
        return []

    def submit(
        self, candidate: str | None = None, *, note: str = "", override: bool = False
    ) -> Submission:
        with self._lock:
            self.guard("submit")
            chosen = self.ledger.candidate(candidate) if candidate else self.current()
            if chosen.subject != self.subject:
                raise ToolFailure(f"Candidate {chosen.short_id} does not belong to run {self.id}.")
            problems = self.contract_problems(chosen)
            if problems:
                raise ToolFailure(
                    "The submission contract is not met: " + "; ".join(problems) + ".",
                    self.profile.submission,
                )
            try:
                submitted = self.ledger.submit(chosen, note=note, override=override)
            except LedgerError as error:
                raise ToolFailure(str(error)) from error
            self.submission = submitted
            self.state = "submitted"
            self._write_submission(submitted, note)
            return submitted

    def _write_submission(self, submitted: Submission, note: str) -> None:
        """The benchmark's submission.json, written outside the agent's workspace."""
        self.output.mkdir(parents=True, exist_ok=True)
        content = submitted.content
        if self.profile.name == "tuning":
            data: dict[str, Any] = {"parameter_set": content["parameters"], "final_report": note}
        else:
            files = content["files"]
            short = self.task.model_name.rsplit(".", 1)[-1]
            main = next((t for t in files.values() if re.search(rf"\b{short}\b", t)), "")
            data = {"final_model": main, "files": files}
        (self.output / "submission.json").write_text(json.dumps(data, indent=2), encoding="utf-8")

    def finish(self) -> Outcome:
        """End the run (if still running) and report: submitted, or a failure to submit."""
        with self._lock:
            if self.state == "running":
                self.end("the run ended without an explicit submission")
            submitted = self.submission
            return Outcome(
                task_id=self.task.task_id,
                run_id=self.id,
                status="submitted" if submitted else "failure_to_submit",
                reason="" if submitted else self.reason,
                candidate_id=submitted.candidate_id if submitted else None,
                submission_id=submitted.id if submitted else None,
                override=bool(submitted and submitted.override),
                turns=self.turns,
                simulations=len(self.simulations),
                wall_time_s=self.elapsed_s,
                logical_tokens=self.logical_tokens,
            )


# -- the runs of this process ----------------------------------------------------------------
_RUNS: dict[str, Run] = {}
_RUNS_LOCK = threading.Lock()


def start_run(task: Task, root: Path, ledger: Ledger, **kwargs: Any) -> Run:
    run = Run(task, root, ledger, **kwargs)
    with _RUNS_LOCK:
        _RUNS[run.id] = run
    return run


def forget_run(run_id: str) -> None:
    with _RUNS_LOCK:
        _RUNS.pop(run_id, None)


def find_run(run_id: str | None) -> Run | None:
    """The named run; with no name, the single running one (None when there is none)."""
    with _RUNS_LOCK:
        if run_id:
            if run_id not in _RUNS:
                raise ToolFailure(
                    f"No Modelica task run {run_id!r} in this session.",
                    f"Runs: {', '.join(_RUNS) or 'none'}.",
                )
            return _RUNS[run_id]
        running = [run for run in _RUNS.values() if run.state == "running"]
        return running[0] if len(running) == 1 else None


def logical_tokens(
    *, input_uncached: int = 0, cache_creation: int = 0, cache_read: int = 0, output: int = 0
) -> int:
    """Logical tokens of one LLM call (seed 003): all input kinds plus output."""
    return input_uncached + cache_creation + cache_read + output
