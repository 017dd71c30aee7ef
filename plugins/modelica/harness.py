"""The Pufibara harness for one Modelica task: workspace, candidates, ledger, limits, submission.

A `Run` owns one task workspace and one ledger subject. Candidates are content-addressed by the
ledger: for repair and generation the full set of .mo files, for tuning the parameter assignment
plus the hash of the frozen model and the verification settings. Every simulation is recorded
with the candidate that produced it, so evidence drawn from it binds to that candidate and to no
other. Submission is an explicit act that freezes the candidate's exact content; a run that ends
without one is a failure to submit. Limits (wall time, turns, simulations) end the run, whoever
drives it (the chat, `driver.run_task`, a scripted policy): they live here, not in a driver.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from workbench.core.ledger import Candidate, Ledger, LedgerError, Submission
from workbench.core.tools import ToolFailure
from workbench_plugins.modelica.backend_base import SimulationResult
from workbench_plugins.modelica.profiles import Profile, ProfileName, profile
from workbench_plugins.modelica.run_rules import (
    TOKEN_KINDS,
    TUNING_SIMULATIONS,
    Limits,
    declares,
    final_model,
    logical_tokens,
    package_files,
    public_task_fields,
)
from workbench_plugins.modelica.workspace_files import Workspace, sha256_text

RunState = Literal["running", "submitted", "ended"]


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

    @model_validator(mode="after")
    def _tuning_counts_simulations(self) -> Task:
        if self.profile == "tuning" and "simulations" not in self.limits.model_fields_set:
            self.limits = self.limits.model_copy(update={"simulations": TUNING_SIMULATIONS})
        return self

    @classmethod
    def from_benchmark(cls, data: dict[str, Any], **overrides: Any) -> Task:
        """A task from the public Modelica Agent Workflow Benchmark JSON format."""
        return cls(**{**public_task_fields(data), **overrides})


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
    tokens: dict[str, int] = Field(default_factory=dict)


# the submission checks an agent may learn of (the driver passes the evaluator's public gates)
Verifier = Callable[["Task", dict[str, Any]], list[str]]
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
        output: Path | None = None,
        verify: Verifier | None = None,
        driver: str = "",
    ) -> None:
        """`output`: where submission.json goes (default root/output, never in the workspace);
        `verify`: extra checks at submit time (default: the model is declared, parameters);
        `driver`: the caller whose loop drives the run (only it may act on the run)."""
        self.driver = driver
        self.id = run_id or f"{task.task_id}-{next(_numbers)}-{int(time.time())}"
        self.task = task
        self.profile: Profile = profile(task.profile)
        self.root = Path(root)
        self.workspace = Workspace(self.root / "workspace")
        # benchmark-owned: outside the agent's workspace
        self.output = Path(output) if output is not None else self.root / "output"
        self.verify = verify
        self.ledger = ledger
        self.subject = f"modelica:{self.id}"
        self.state: RunState = "running"
        self.reason = ""
        self.turns = 0
        self.simulations: dict[str, SimulationRecord] = {}
        self.parameters: dict[str, float] = {}
        self.submission: Submission | None = None
        self.tokens = dict.fromkeys(TOKEN_KINDS, 0)
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

    @property
    def logical_tokens(self) -> int:
        return logical_tokens(**self.tokens)

    def _check_time(self) -> None:
        limit = self.task.limits.wall_time_s
        if self.state == "running" and self.elapsed_s > limit:
            self.end(f"limit reached: wall time {limit:g} s")

    def guard(self, action: str) -> None:
        """Refuse `action` when the run is over, a limit is reached, or the profile forbids it."""
        with self._lock:
            self._check_time()
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

    def turn_allowed(self) -> bool:
        """Before each model call: False (and the run ends) once the turns or the time are spent."""
        with self._lock:
            self._check_time()
            if self.state == "running" and self.turns >= self.task.limits.turns:
                self.end(f"limit reached: {self.task.limits.turns} turns")
            return self.state == "running"

    def begin_turn(self, *, tokens: Mapping[str, int] | None = None) -> None:
        """Count one agent turn and the tokens its model call reported (TOKEN_KINDS; logical
        tokens are their sum). Call `turn_allowed` first: it enforces the limit."""
        with self._lock:
            for kind in TOKEN_KINDS:
                self.tokens[kind] += int((tokens or {}).get(kind, 0))
            self.turns += 1  # also the turn whose tool calls ended the run (a submit)

    def reserve_simulation(self) -> str:
        with self._lock:
            self.guard("simulate")
            limit = self.task.limits.simulations
            if limit is not None and len(self.simulations) >= limit:
                self.end(f"limit reached: {limit} simulations")
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
        """What the harness itself checks: the model is declared; tuning: the parameters."""
        content = candidate.content
        if self.profile.name == "tuning":
            problems = []
            try:
                self.check_parameters(content.get("parameters", {}))
            except ToolFailure as failure:
                problems.append(failure.message)
            return problems + self._frozen_problems(content)
        if not any(
            declares(text, self.task.model_name) for text in package_files(content).values()
        ):
            return [f"no submitted file declares model {self.task.model_name}"]
        return []

    def _frozen_problems(self, content: dict[str, Any]) -> list[str]:
        if (
            self.profile.name == "tuning"
            and content.get("frozen_model_sha256") != self.frozen_sha256
        ):
            return ["the candidate was not made for this task's frozen model"]
        return []

    def submission_problems(self, candidate: Candidate) -> list[str]:
        """The public gates the candidate fails: the verifier's (interface, constraints, check,
        simulation) when the run has one, else the harness's own contract checks."""
        if self.verify is None:
            return self.contract_problems(candidate)
        return self._frozen_problems(candidate.content) + self.verify(self.task, candidate.content)

    def submit(
        self, candidate: str | None = None, *, note: str = "", override: bool = False
    ) -> Submission:
        """Freeze `candidate` (default: current) once it is ready and passes the public gates.

        The gates may simulate, so they run outside the lock; a verification started before the
        wall time counts if it ends within the grace (Limits.verification_grace_s)."""
        with self._lock:
            self.guard("submit")
            chosen = self.ledger.candidate(candidate) if candidate else self.current()
            if chosen.subject != self.subject:
                raise ToolFailure(f"Candidate {chosen.short_id} does not belong to run {self.id}.")
            report = self.ledger.readiness(chosen)
            if not report.ready and not override:
                raise ToolFailure(
                    f"{report.explain()} Record adjudicated evidence for this candidate, revise "
                    "it, or submit with override=True to record a deliberate override."
                )
        problems = self.submission_problems(chosen)
        with self._lock:
            limits = self.task.limits
            if self.state == "running" and (
                self.elapsed_s > limits.wall_time_s + limits.verification_grace_s
            ):
                self.end(
                    f"limit reached: wall time {limits.wall_time_s:g} s (the submission's "
                    f"verification ran past the {limits.verification_grace_s:g} s grace)"
                )
            if self.state != "running":
                raise ToolFailure(f"Run {self.id} is over ({self.reason}); nothing was submitted.")
            if problems:
                raise ToolFailure(
                    "The submission contract is not met: " + "; ".join(problems) + ".",
                    self.profile.submission,
                )
            return self._freeze(chosen, note, override)

    def submit_implicitly(self, note: str) -> Submission:
        """The plain loop's ending, also after a limit ended it: its current candidate,
        unchecked and marked as an override when not ready (the evaluator judges it later)."""
        with self._lock:
            if self.state == "submitted":
                raise ToolFailure(f"Run {self.id} has submitted already.")
            return self._freeze(self.current(), note, True)

    def _freeze(self, chosen: Candidate, note: str, override: bool) -> Submission:
        try:
            submitted = self.ledger.submit(chosen, note=note, override=override)
        except LedgerError as error:
            raise ToolFailure(str(error)) from error
        self.submission = submitted
        self.state = "submitted"
        self._write_submission(submitted, note)
        return submitted

    def submission_file(self) -> Path:
        return self.output / "submission.json"

    def _write_submission(self, submitted: Submission, note: str) -> None:
        """submission.json in the public benchmark format, outside the agent's workspace."""
        self.output.mkdir(parents=True, exist_ok=True)
        content = submitted.content
        if self.profile.name == "tuning":
            data: dict[str, Any] = {"parameter_set": content["parameters"], "final_report": note}
        else:
            data = {"final_model": final_model(content, self.task.model_name)}
        self.submission_file().write_text(json.dumps(data, indent=2), encoding="utf-8")

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
                tokens=dict(self.tokens),
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


def run_ids() -> set[str]:
    with _RUNS_LOCK:
        return set(_RUNS)


def find_run(run_id: str | None, caller: str | None = None) -> Run | None:
    """The named run; with no name, the single running one (None when there is none).

    `caller`: a tool's caller. A run that its own loop drives (a started task) is acted on only
    by that loop: another caller (the chat's specialist, another agent) never gets it by default
    and is refused when it names it, so nothing outside the loop changes what is evaluated."""
    with _RUNS_LOCK:
        if run_id:
            if run_id not in _RUNS:
                raise ToolFailure(
                    f"No Modelica task run {run_id!r} in this session.",
                    f"Runs: {', '.join(_RUNS) or 'none'}.",
                )
            run = _RUNS[run_id]
            if caller is not None and run.driver and caller != run.driver:
                raise ToolFailure(
                    f"Run {run_id} is driven by its own agent loop; only that loop acts on it.",
                    "Watch it in the Modelica tasks view, or read it with ledger_status.",
                )
            return run
        running = [
            run
            for run in _RUNS.values()
            if run.state == "running" and (caller is None or run.driver in ("", caller))
        ]
        return running[0] if len(running) == 1 else None
