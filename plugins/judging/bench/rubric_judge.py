"""The "rubric" judge: a RULE-BASED STAND-IN FOR CI, NOT A LANGUAGE MODEL.

It is a fake chat model (a LangChain BaseChatModel) that answers the judge's structured-output
calls (scoring/judge.py's protocol: the human message's first line says what is asked, "STAGE:
ES" or "CHECK: coverage"; the solution follows a line "SOLUTION:") by fixed rules, so the whole
pipeline (parsing, judge calls, caps, propagation, S_final, the baselines) runs without a model
and with known results. It finds the planted faults of the off-target policies because its rules
are a marking scheme built from the same template (bench/templates.py) the policies write from.

The rules (RUBRIC below):
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

import json
import re
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict

from workbench.agents.scripted import estimate_tokens
from workbench_plugins.judging.bench.templates import template_for
from workbench_plugins.judging.problems.model import Problem

MIN_WORDS = 3
MAX_WORDS = 150
SANITY_FACTOR = 10.0
MISSING_COVERAGE = 1.25
PENALTY = {"minor": 2, "moderate": 4, "major": 7, "critical": 10}
CAPS = {"governing_equation_incorrect": 3}
FA_SCORE = {"correct": 10.0, "moderate": 6.0, "major": 3.0}
ASKED = re.compile(r"^\s*(STAGE|CHECK)\s*:\s*(\w+)", re.IGNORECASE)
VERDICTS = {
    "coverage": "CoverageVerdict",
    "verbosity": "VerbosityVerdict",
    "sanity": "SanityVerdict",
    "single_pass": "SinglePassVerdict",
}


def normalised(text: str) -> str:
    return "".join(text.split()).lower()


def solution_of(prompt: str) -> str:
    """What is judged: everything after the line "SOLUTION:" (the prompt's last section)."""
    lines = prompt.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() == "SOLUTION:"), None)
    return "" if start is None else "\n".join(lines[start + 1 :]).strip()


class RubricJudge(BaseChatModel):
    """Rule-based stand-in for a judge model, for CI (see the module): one per problem."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    problem: Problem

    @property
    def _llm_type(self) -> str:
        return "rubric"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Runnable:  # type: ignore[override]
        return self.bind(tools=[convert_to_openai_tool(tool) for tool in tools], **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        prompt = next(
            (_text_of(m.content) for m in reversed(messages) if isinstance(m, HumanMessage)), ""
        )
        name, verdict = self.verdict(prompt)
        bound = [tool["function"]["name"] for tool in kwargs.get("tools") or []]
        if len(bound) == 1:
            name = bound[0]
        output = json.dumps(verdict)
        usage = {
            "input_tokens": sum(estimate_tokens(_text_of(m.content)) for m in messages),
            "output_tokens": estimate_tokens(output),
        }
        usage["total_tokens"] = usage["input_tokens"] + usage["output_tokens"]
        message = AIMessage(
            content="",
            tool_calls=[
                {"name": name, "args": verdict, "id": f"rubric-{name}", "type": "tool_call"}
            ],
            usage_metadata=usage,  # type: ignore[arg-type]
        )
        return ChatResult(generations=[ChatGeneration(message=message)])

    def verdict(self, prompt: str) -> tuple[str, dict[str, Any]]:
        """(tool name, arguments) of the verdict the rules give for this prompt."""
        asked = ASKED.match(prompt)
        if asked is None:
            raise ValueError(
                "The rubric judge reads the first line of the prompt ('STAGE: ES' or 'CHECK: "
                f"coverage'); this prompt starts {prompt[:60]!r}."
            )
        kind, what = asked[1].upper(), asked[2]
        solution = solution_of(prompt)
        if kind == "STAGE":
            errors, fatal = self.stage_errors(what.upper(), solution)
            return "StageVerdict", {"errors": errors, "fatal": fatal, "comment": "rubric"}
        check = what.lower()
        if check == "coverage":
            return VERDICTS[check], {"score": self.coverage(solution), "comment": "rubric"}
        if check == "verbosity":
            return VERDICTS[check], {"score": self.verbosity(solution), "comment": "rubric"}
        if check == "sanity":
            return VERDICTS[check], {"sanity_fail": self.insane(solution), "comment": "rubric"}
        if check == "single_pass":
            return VERDICTS[check], self.single_pass(solution)
        raise ValueError(f"The rubric judge has no rule for the check {what!r}.")

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

    def coverage(self, solution: str) -> float:
        from workbench_plugins.judging.scoring.parser import parse_solution

        absent = parse_solution(solution).absent
        return max(0.0, 10.0 - MISSING_COVERAGE * len(absent))

    def verbosity(self, solution: str) -> float:
        from workbench_plugins.judging.scoring.parser import parse_solution

        stages = parse_solution(solution).stages.values()
        return max(0.0, 10.0 - sum(len(text.split()) > MAX_WORDS for text in stages))

    def insane(self, solution: str) -> bool:
        """The final answer is off by more than SANITY_FACTOR, or of the wrong sign."""
        from workbench_plugins.judging.scoring.final_answer import check_final_answer
        from workbench_plugins.judging.scoring.parser import parse_solution

        answer = parse_solution(solution).stages.get("FA", "")
        checked = check_final_answer(answer, self.problem)
        if checked.value is None or checked.relative_error is None:
            return False
        truth = checked.expected_value
        ratio = abs(checked.value / truth) if truth else 0.0
        opposite = checked.value * truth < 0
        return opposite or ratio > SANITY_FACTOR or ratio < 1 / SANITY_FACTOR

    def single_pass(self, solution: str) -> dict[str, Any]:
        """All 8 stages scored by the same rules, without propagation or meta checks."""
        from workbench_plugins.judging.scoring.final_answer import check_final_answer
        from workbench_plugins.judging.scoring.parser import parse_solution
        from workbench_plugins.judging.scoring.stages import STAGES

        parsed = parse_solution(solution)
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


def _text_of(content: Any) -> str:
    """A message's text, whether a string or content blocks (an image block has none)."""
    if isinstance(content, str):
        return content
    return "".join(
        part if isinstance(part, str) else str(part.get("text", ""))
        for part in content
        if isinstance(part, str | dict)
    )
