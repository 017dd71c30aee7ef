"""The "rubric" judge: a RULE-BASED STAND-IN FOR CI, NOT A LANGUAGE MODEL.

It is a rule judge (scoring/judge.py's `RuleJudge`): it answers each judge call's `Question` (what
is judged, the stage's text or the parsed solution) from its fields by fixed rules, so the whole
pipeline (parsing, judge calls, caps, propagation, S_final, the baselines) runs without a model
and with known results. No prompt is written for it and none read back; it spends no tokens. It
finds the planted faults of the off-target policies because its rules are a marking scheme built
from the same template (bench/templates.py) the policies write from.

The rules:
- every stage: fewer than MIN_WORDS words is a minor error ("too terse to check");
- ES: the governing equation must be the family template's; otherwise the fatal flag
  governing_equation_incorrect and a major error;
- FA: no judge rule; our code checks the value against the ground truth;
- coverage: 10 - 1.25 per absent stage; verbosity: 10 - 1 per stage over MAX_WORDS words;
- sanity: fails when the final answer's value is off the ground truth by more than a factor of
  SANITY_FACTOR or of the opposite sign;
- single pass: each stage scored 10 minus the same penalties (capped the same way), FA by the
  code's error band, absent stages 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workbench_plugins.judging.bench.templates import template_for
from workbench_plugins.judging.problems.model import Problem
from workbench_plugins.judging.scoring.final_answer import check_final_answer
from workbench_plugins.judging.scoring.judge import Question
from workbench_plugins.judging.scoring.parser import ParsedSolution
from workbench_plugins.judging.scoring.stages import STAGES

MIN_WORDS = 3
MAX_WORDS = 150
SANITY_FACTOR = 10.0
MISSING_COVERAGE = 1.25
PENALTY = {"minor": 2, "moderate": 4, "major": 7, "critical": 10}
CAPS = {"governing_equation_incorrect": 3}
FA_SCORE = {"correct": 10.0, "moderate": 6.0, "major": 3.0}


def normalised(text: str) -> str:
    return "".join(text.split()).lower()


@dataclass(frozen=True)
class RubricJudge:
    """Rule-based stand-in for a judge model, for CI (see the module): one per problem."""

    problem: Problem

    def answer(self, question: Question) -> dict[str, Any]:
        """The verdict's fields the rules give for this question."""
        if question.kind == "stage":
            errors, fatal = self.stage_errors(question.stage, question.text)
            return {"errors": errors, "fatal": fatal, "comment": "rubric"}
        parsed = question.parsed
        if parsed is None:
            raise ValueError(f"The rubric judges {question.stage!r} on the parsed solution.")
        if question.kind == "single_pass":
            return self.single_pass(parsed)
        if question.stage == "coverage":
            return {"score": self.coverage(parsed), "comment": "rubric"}
        if question.stage == "verbosity":
            return {"score": self.verbosity(parsed), "comment": "rubric"}
        if question.stage == "sanity":
            return {"sanity_fail": self.insane(parsed), "comment": "rubric"}
        raise ValueError(f"The rubric judge has no rule for the check {question.stage!r}.")

    def stage_errors(self, stage: str, text: str) -> tuple[list[dict[str, str]], list[str]]:
        """The rubric's errors and fatal flags for one stage's text."""
        errors: list[dict[str, str]] = []
        fatal: list[str] = []
        if stage != "FA" and len(text.split()) < MIN_WORDS:
            errors.append({"description": "The stage is too terse to check.", "severity": "minor"})
        if stage == "ES":
            expected = template_for(self.problem).equation
            if normalised(expected) not in normalised(text):
                fatal.append("governing_equation_incorrect")
                errors.append(
                    {
                        "description": f"The governing equation is not the one this problem "
                        f"needs ({expected}).",
                        "severity": "major",
                    }
                )
        return errors, fatal

    def coverage(self, parsed: ParsedSolution) -> float:
        return max(0.0, 10.0 - MISSING_COVERAGE * len(parsed.absent))

    def verbosity(self, parsed: ParsedSolution) -> float:
        stages = parsed.stages.values()
        return max(0.0, 10.0 - sum(len(text.split()) > MAX_WORDS for text in stages))

    def insane(self, parsed: ParsedSolution) -> bool:
        """The final answer is off by more than SANITY_FACTOR, or of the wrong sign."""
        answer = parsed.stages.get("FA", "")
        checked = check_final_answer(answer, self.problem)
        if checked.value is None or checked.relative_error is None:
            return False
        truth = checked.expected_value
        ratio = abs(checked.value / truth) if truth else 0.0
        opposite = checked.value * truth < 0
        return opposite or ratio > SANITY_FACTOR or ratio < 1 / SANITY_FACTOR

    def single_pass(self, parsed: ParsedSolution) -> dict[str, Any]:
        """All 8 stages scored by the same rules, without propagation or meta checks."""
        scored: list[dict[str, Any]] = []
        for stage in STAGES:
            text = parsed.stages.get(stage, "")
            if stage in parsed.absent:
                score = 0.0
            elif stage == "FA":
                band = check_final_answer(text, self.problem).band
                score = FA_SCORE.get(band, 0.0)
            else:
                errors, fatal = self.stage_errors(stage, text)
                score = max(0.0, 10.0 - sum(PENALTY[e["severity"]] for e in errors))
                score = min([score, *(CAPS[flag] for flag in fatal)])
            scored.append({"stage": stage, "score": float(score), "reasoning": "rubric"})
        overall = sum(item["score"] for item in scored) / len(scored)
        return {"stages": scored, "overall": f"rubric: plain mean {overall:.2f}"}
