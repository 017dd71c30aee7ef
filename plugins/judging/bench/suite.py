"""The bench suite `engjudge`: every problem of our set, solved by a generator and graded by a
judge with EngJudge (11 calls) and the SinglePass baseline (1 call, which gives SinglePass+DP).

Tasks: one per problem, id = the problem id; the summary groups them by subject (problem) and
family (style). `--model` is the generator: a direct policy (policies.DIRECT) or any model spec.
`--judge` is the judge: any model spec, or "rubric" (the rule-based stand-in for CI). Without
`--judge`: "rubric" for the direct policies, the generator model itself otherwise (a model
grading its own solutions; name another judge to measure a generator). The judge is part of the
cell key.

A cell is sealed: the solution's bytes are written to `<cell>/solution.md`, read back, and THAT
text is graded. The cell's result binds its scores to the file (workbench.bench.earned): the text
graded must be the bytes written, and the file must still hold them when the cell is recorded;
else the executor zeroes the graded scores and lists the broken binding in details["unbound"].
A judge call that fails (its structured output malformed twice, or a verdict without its errors)
is recorded as a judge failure (`judge_failed` = 1, the failures in the details), never as a
score. A model that cannot be reached is a harness error. A generator that writes no stages (an
empty reply, or one that claims scores) scores 0: every stage is missing.

Options from the environment: WORKBENCH_ENGJUDGE_SEEDS (problem seeds, default "1,2,3"),
WORKBENCH_ENGJUDGE_GRAPH (dag, chain or flat; default dag), WORKBENCH_ENGJUDGE_IMAGES (auto,
yes, no: send the diagram to models; auto asks solving.accepts_images).
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from langchain_core.language_models import BaseChatModel

from workbench.bench import BenchTask, CellContext, Suite
from workbench.bench.earned import Binding, CellResult
from workbench.bench.results import CellRecord
from workbench.bench.tool_calls import HarnessFailure, is_direct
from workbench_plugins.judging.bench.policies import direct_solution
from workbench_plugins.judging.bench.rule_judges import RULE_JUDGES
from workbench_plugins.judging.bench.scoring import TOPOLOGIES, cell_details, cell_scores
from workbench_plugins.judging.problems.model import Problem
from workbench_plugins.judging.problems.registry import DEFAULT_SEEDS, problem, problem_set
from workbench_plugins.judging.solving import SolutionRun, accepts_images, solve

if TYPE_CHECKING:
    from workbench_plugins.judging.scoring.judge import Judge

RUBRIC = "rubric"
# the scores a broken binding to solution.md zeroes: every grading's summary of the file
GRADED = (
    *("final", "s_base", "s_blend", "raw_mean", "single_pass", "single_pass_dp"),
    *(f"base_{name}" for name in TOPOLOGIES),
)
SOLUTION = "solution.md"
GRADE = "grade.json"
IMAGE_MODES = ("auto", "yes", "no")
ENV_SEEDS = "WORKBENCH_ENGJUDGE_SEEDS"
ENV_GRAPH = "WORKBENCH_ENGJUDGE_GRAPH"
ENV_IMAGES = "WORKBENCH_ENGJUDGE_IMAGES"


class EngJudgeSuite(Suite):
    name = "engjudge"
    headline = ("final",)
    rule_judges = RULE_JUDGES

    def __init__(
        self, seeds: tuple[int, ...] = DEFAULT_SEEDS, graph: str = "dag", images: str = "auto"
    ) -> None:
        if images not in IMAGE_MODES:
            raise ValueError(f"images={images!r}: use one of {', '.join(IMAGE_MODES)}.")
        self.seeds, self.graph, self.images = tuple(seeds), graph, images
        self.description = (
            "EngJudge: a generator (--model) solves our diagram problems in 8 stages; a judge "
            "(--judge, default rubric for the policies) grades them stage by stage, with the "
            "SinglePass baselines beside."
        )

    @cached_property
    def problems(self) -> dict[str, Problem]:
        return {item.id: item for item in problem_set(self.seeds)}

    def tasks(self) -> list[BenchTask]:
        first = next(iter(self.problems), "")
        return [
            BenchTask(
                item.id,
                problem=item.subject,
                style=item.family,
                smoke=item.id == first,
                payload={"problem_id": item.id},
            )
            for item in self.problems.values()
        ]

    def judge_for(self, model: str, requested: str) -> str:
        return requested or (RUBRIC if is_direct(model) else model)

    def run(self, task: BenchTask, model: str, seed: int, cell: CellContext) -> CellResult:
        from workbench_plugins.judging.scoring.pipeline import grade, grade_single_pass

        item = self.problems.get(task.id) or problem(str(task.payload["problem_id"]))
        judge_spec = cell.judge or self.judge_for(model, "")
        generated = self.generate(item, model, cell)
        text, written_sha256 = seal(cell.folder, generated.text)
        judge = self.judge_model(judge_spec, item, cell)
        images = self.sends_images(judge_spec)
        engjudge = grade(item, text, judge, graph=self.graph, images=images)
        single = grade_single_pass(item, text, judge, graph=self.graph, images=images)
        (cell.folder / GRADE).write_text(
            json.dumps(
                {
                    "solution_sha256": written_sha256,
                    "engjudge": engjudge.model_dump(mode="json"),
                    "single_pass": single.model_dump(mode="json"),
                },
                indent=2,
            ),
            encoding="utf-8",
        )
        scores = cell_scores(engjudge, single, generated)
        details = cell_details(item, engjudge, single)
        details.update(
            policy=model if is_direct(model) else "model",
            judge=judge_spec,
            graph=self.graph,
            images=images,
            solution={"file": SOLUTION, "bytes": len(text.encode()), "sha256": written_sha256},
        )
        return CellResult(
            scores, details, solution_bindings(cell.folder, text, written_sha256), GRADED
        )

    def generate(self, item: Problem, model: str, cell: CellContext) -> SolutionRun:
        """The generator's solution: a direct policy's text, or one call of the model."""
        if is_direct(model):
            return SolutionRun(direct_solution(model, item), 0, 0, 0.0, 0)
        return solve(item, chat_model(model, cell), images=self.sends_images(model))

    def judge_model(self, spec: str, item: Problem, cell: CellContext) -> Judge:
        """One judge for both gradings (a scripted judge's replies are consumed in order:
        EngJudge's calls first, then the single pass)."""
        if spec == RUBRIC:
            from workbench_plugins.judging.bench.rubric_judge import RubricJudge

            return RubricJudge(problem=item)
        return chat_model(spec, cell)

    def sends_images(self, spec: str) -> bool:
        if self.images == "auto":
            return accepts_images(spec)
        return self.images == "yes"

    def report(self, folder: Path, cells: list[CellRecord]) -> Path | None:
        from workbench_plugins.judging.bench.report import write_report

        return write_report(folder, cells) if cells else None


def chat_model(spec: str, cell: CellContext) -> BaseChatModel:
    """The model a spec names; one that cannot be made is the harness's failure, not a score."""
    from workbench.agents.backends import make_chat_model
    from workbench.agents.errors import BackendError

    try:
        return make_chat_model(spec, cell.app.settings)
    except BackendError as error:
        raise HarnessFailure(str(error)) from error


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def seal(folder: Path, text: str) -> tuple[str, str]:
    """Write the solution's UTF-8 bytes to solution.md and read the file back: the text graded is
    the file's. Returns it and the sha256 of the bytes written."""
    written = text.encode("utf-8", errors="replace")  # a lone surrogate is not a character
    path = folder / SOLUTION
    path.write_bytes(written)
    return path.read_bytes().decode("utf-8", errors="replace"), hashlib.sha256(written).hexdigest()


def solution_bindings(folder: Path, graded: str, written_sha256: str) -> list[Binding]:
    """What the scores rest on: the text graded is the bytes written, and solution.md still
    holds those bytes now that the grading is done (a file changed meanwhile breaks it)."""
    return [
        Binding("text graded = solution.md as written", written_sha256, sha256_text(graded)),
        Binding.to_file(f"{SOLUTION} after grading", folder / SOLUTION, written_sha256),
    ]


def suites() -> list[Suite]:
    raw_seeds = os.environ.get(ENV_SEEDS, "").strip()
    try:
        seeds = tuple(int(part) for part in raw_seeds.split(",") if part.strip()) or DEFAULT_SEEDS
    except ValueError as error:
        raise ValueError(f"{ENV_SEEDS}={raw_seeds!r}: write seeds as 1,2,3.") from error
    graph = os.environ.get(ENV_GRAPH, "").strip() or "dag"
    images = os.environ.get(ENV_IMAGES, "").strip() or "auto"
    return [EngJudgeSuite(seeds, graph, images)]
