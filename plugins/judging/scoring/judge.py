"""The judge's calls: one structured-output call per stage and three meta checks (coverage,
verbosity, physical sanity), each through LangChain's `with_structured_output`: the backend's own
way (a JSON-schema grammar for llama.cpp, Ollama's `format` schema, OpenAI's json_schema response
format; tool calling for a ScriptedChatModel), so any chat model can judge.

A reply that cannot be read (no verdict, broken JSON, fields out of range) is asked again ONCE,
with a note saying what was wrong; a second bad reply (or a call that raises twice) is recorded as
a JudgeFailure and gives no score. Every call records its tokens (the backend's usage), seconds,
attempts and whether it was retried.

Each call is a `Question` (what is judged, the text judged, the parsed solution for the checks
of the whole solution). A model reads it as messages: the system prompt of its kind, then a human
message that starts with a line naming what is judged ("STAGE: ES", "CHECK: coverage",
"CHECK: single_pass"), then the problem, the ground-truth answer (a line "GROUND TRUTH ANSWER:
...") and the text judged (after a line "SOLUTION:"); with `images` the diagram PNG follows as an
image content block (base64 data URL, read by OpenAI and Ollama). A `RuleJudge` (the bench's
rubric) answers the Question as it is, in one attempt, without messages or tokens.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Literal, Protocol, TypeVar

from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field, ValidationError

from workbench.agents.accounting import usage_of
from workbench.agents.backends import make_chat_model
from workbench.agents.model_errors import is_model_error
from workbench.core.settings import Settings
from workbench_plugins.judging.problems.model import Problem
from workbench_plugins.judging.scoring.aggregate import MetaJudgement, StageVerdict
from workbench_plugins.judging.scoring.parser import ParsedSolution
from workbench_plugins.judging.scoring.prompts import META_SYSTEM, SINGLE_PASS_SYSTEM, stage_system
from workbench_plugins.judging.scoring.stages import STAGE_NAMES

CallKind = Literal["stage", "meta", "single_pass"]
Reply = TypeVar("Reply", bound=BaseModel)
ATTEMPTS = 2  # the first call and one retry


class CallRecord(BaseModel):
    """One judge call as it went: what it judged, whether it gave a usable verdict, its cost."""

    kind: CallKind
    stage: str  # a stage code, "coverage", "verbosity", "sanity" or "all"
    ok: bool
    tokens_in: int
    tokens_out: int
    seconds: float
    retried: bool
    attempts: int


class JudgeFailure(BaseModel):
    """A judge call that gave no usable verdict after its retry: recorded, never scored."""

    kind: CallKind
    stage: str
    reason: str


class GradingCancelled(RuntimeError):
    """Raised between judge calls when the caller's `cancelled()` says so."""


class CoverageVerdict(BaseModel):
    """How completely the solution addresses what was asked."""

    score: float = Field(ge=0, le=10, description="0-10; 10 means everything asked is addressed.")
    comment: str = Field(default="", description="What is left out, if anything.")


class VerbosityVerdict(BaseModel):
    """How concise and direct the solution is."""

    score: float = Field(ge=0, le=10, description="0-10; 10 means direct, without filler.")
    comment: str = Field(default="", description="What is superfluous, if anything.")


class SanityVerdict(BaseModel):
    """Whether the solution violates a fundamental physical law."""

    sanity_fail: bool = Field(description="True when a fundamental physical law is violated.")
    comment: str = Field(default="", description="Which law, if any.")


@dataclass(frozen=True)
class Question:
    """What one judge call asks, as data: the kind of call, what it judges (a stage code,
    "coverage", "verbosity", "sanity" or "all"), the text judged (a stage's text, or the whole
    solution) and, for the checks of the whole solution, that solution as parsed."""

    kind: CallKind
    stage: str
    text: str
    parsed: ParsedSolution | None = None

    @property
    def heading(self) -> str:
        """The first line of the human message: what is judged."""
        if self.kind == "stage":
            return f"STAGE: {self.stage} ({STAGE_NAMES[self.stage]})"
        return "CHECK: single_pass" if self.kind == "single_pass" else f"CHECK: {self.stage}"

    @property
    def system(self) -> str:
        """The judge's instructions for this kind of call."""
        if self.kind == "stage":
            return stage_system(self.stage)
        return META_SYSTEM[self.stage] if self.kind == "meta" else SINGLE_PASS_SYSTEM


class RuleJudge(Protocol):
    """A judge that answers a Question by rules, from its fields (no model, no messages): the
    verdict's fields, as the verdict tool of a model's reply would carry them."""

    def answer(self, question: Question) -> dict[str, Any]: ...


Judge = BaseChatModel | RuleJudge


def chat_judge(spec: str, settings: Settings | None = None) -> BaseChatModel:
    """The judge a model spec such as "ollama:qwen3:8b" names, as a chat model."""
    return make_chat_model(spec, settings or Settings())


def judge_model(judge: Judge | str, settings: Settings | None = None) -> Judge:
    """The judge: given (a chat model or a rule judge), or made from a model spec."""
    return chat_judge(judge, settings) if isinstance(judge, str) else judge


def problem_text(problem: Problem) -> str:
    """The problem as the judge reads it (the answer is given separately)."""
    given = "\n".join(f"- {name} = {value}" for name, value in problem.given.items())
    return f"{problem.title}\n{problem.statement}\nGiven:\n{given}\nFind: {problem.asked}."


def image_block(png: bytes) -> dict[str, Any]:
    """A PNG as a LangChain image content block (a base64 data URL)."""
    encoded = base64.b64encode(png).decode("ascii")
    return {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{encoded}"}}


def _reason(result: Any) -> str:
    """Why a structured reply could not be used, in words."""
    if not isinstance(result, dict):
        return f"unexpected reply {type(result).__name__}"
    if result.get("parsing_error") is not None:
        return f"the verdict did not fit the schema: {result['parsing_error']}"[:500]
    raw = result.get("raw")
    if getattr(raw, "invalid_tool_calls", None):
        return "the verdict was not valid JSON"
    return "the reply had no verdict: no tool call or JSON object with its fields"


def retry_note(reason: str, schema: type[BaseModel]) -> HumanMessage:
    """What the judge hears before its one retry."""
    return HumanMessage(
        f"Your reply could not be read ({reason}). Answer again with one {schema.__name__} "
        "verdict: every field, each within its range."
    )


def failed_call_reason(error: BaseException) -> str:
    """Why a judge call raised, in words: the backend's failure (a server down, a model missing)
    is "the call failed: ..."; anything else is Workbench's own fault and says so, rather than
    sending a person to check a server (a TypeError inside our llama.cpp call once did)."""
    what = f"{type(error).__name__}: {error}"
    if is_model_error(error):
        return f"the call failed: {what}"[:500]
    return f"Workbench's judge call broke ({what}); a bug in Workbench, not the judge model"[:500]


@dataclass
class Answered(Generic[Reply]):
    """How a call went: the verdict (None: no usable one), why not, its tokens and attempts."""

    verdict: Reply | None
    reason: str
    tokens_in: int = 0
    tokens_out: int = 0
    attempts: int = 0


class JudgeSession:
    """The judge calls for one solution: asks each Question (a model with one retry, a rule judge
    directly) and records each call."""

    def __init__(
        self,
        judge: Judge,
        problem: Problem,
        *,
        images: bool = False,
        on_call: Callable[[CallRecord], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> None:
        self.judge = judge
        self.problem = problem
        self.images = images
        self.on_call = on_call
        self.cancelled = cancelled
        self.calls: list[CallRecord] = []
        self.failures: list[JudgeFailure] = []
        # set when the judge's backend failed (server down, model missing): the calls after it
        # are recorded as failures without asking, not each retried against a dead server
        self.unreachable = ""
        self._diagram: bytes | None = None

    def message(self, heading: str, text: str) -> HumanMessage:
        """The human message: what is judged, the problem, the ground truth, the text, the
        diagram (as an image, when the judge takes images)."""
        truth = f"{self.problem.answer_value:.6g} {self.problem.answer_unit}".strip()
        body = (
            f"{heading}\nPROBLEM:\n{problem_text(self.problem)}\n"
            f"GROUND TRUTH ANSWER: {truth}\nSOLUTION:\n{text}"
        )
        if not self.images:
            return HumanMessage(body)
        if self._diagram is None:
            self._diagram = self.problem.diagram_png()
        content: list[str | dict[str, Any]] = [
            {"type": "text", "text": body},
            image_block(self._diagram),
        ]
        return HumanMessage(content=content)

    def ask(self, question: Question, schema: type[Reply]) -> Reply | None:
        """One call; the verdict, or None after recording a failure."""
        if self.cancelled is not None and self.cancelled():
            raise GradingCancelled("grading was cancelled")
        started = time.perf_counter()
        if isinstance(self.judge, BaseChatModel):
            answered = self.ask_model(self.judge, question, schema)
        else:
            answered = ask_rules(self.judge, question, schema)
        record = CallRecord(
            kind=question.kind,
            stage=question.stage,
            ok=answered.verdict is not None,
            tokens_in=answered.tokens_in,
            tokens_out=answered.tokens_out,
            seconds=time.perf_counter() - started,
            retried=answered.attempts > 1,
            attempts=answered.attempts,
        )
        self.calls.append(record)
        if answered.verdict is None:
            self.failures.append(
                JudgeFailure(kind=question.kind, stage=question.stage, reason=answered.reason)
            )
        if self.on_call is not None:
            self.on_call(record)
        return answered.verdict

    def ask_model(
        self, model: BaseChatModel, question: Question, schema: type[Reply]
    ) -> Answered[Reply]:
        """The question as messages, through structured output, with its single retry."""
        runnable = model.with_structured_output(schema, include_raw=True)
        messages: list[BaseMessage] = [
            SystemMessage(question.system),
            self.message(question.heading, question.text),
        ]
        # not asked again when unreachable: the same cause as the call that met it
        answered: Answered[Reply] = Answered(None, self.unreachable)
        while answered.attempts < ATTEMPTS and answered.verdict is None and not self.unreachable:
            answered.attempts += 1
            try:
                result = runnable.invoke(messages)
            except (ValidationError, OutputParserException) as unfit:
                # langchain-openai's json_schema reading validates the reply itself and raises
                # what include_raw reports for other backends: a bad reply, asked again
                answered.reason = f"the verdict did not fit the schema: {unfit}"[:500]
                messages = [*messages, retry_note(answered.reason, schema)]
                continue
            except Exception as error:  # a backend or script error counts as a bad attempt
                answered.reason = failed_call_reason(error)
                if is_model_error(error):  # no retry: the next attempt meets the same server
                    self.unreachable = answered.reason
                continue
            reply: dict[str, Any] = result if isinstance(result, dict) else {}
            usage = usage_of(reply.get("raw"))
            answered.tokens_in += usage["input_tokens"]
            answered.tokens_out += usage["output_tokens"]
            parsed = reply.get("parsed")
            if isinstance(parsed, schema) and reply.get("parsing_error") is None:
                answered.verdict = parsed
                continue
            answered.reason = _reason(result)
            messages = [*messages, retry_note(answered.reason, schema)]
        return answered

    def judge_stage(self, stage: str, content: str) -> StageVerdict | None:
        """The errors and fatal flags of one stage's text."""
        return self.ask(Question("stage", stage, content), StageVerdict)

    def judge_meta(self, solution: str, parsed: ParsedSolution) -> MetaJudgement | None:
        """Coverage, verbosity and sanity of the whole solution (three calls, all made even when
        one fails); None when any of them failed."""
        schemas: dict[str, type[BaseModel]] = {
            "coverage": CoverageVerdict,
            "verbosity": VerbosityVerdict,
            "sanity": SanityVerdict,
        }
        verdicts: dict[str, Any] = {}
        for check, schema in schemas.items():
            verdicts[check] = self.ask(Question("meta", check, solution, parsed), schema)
        coverage, verbosity, sanity = (
            verdicts["coverage"],
            verdicts["verbosity"],
            verdicts["sanity"],
        )
        if coverage is None or verbosity is None or sanity is None:
            return None
        return MetaJudgement(
            coverage=coverage.score,
            verbosity=verbosity.score,
            sanity_fail=sanity.sanity_fail,
            comments={
                "coverage": coverage.comment,
                "verbosity": verbosity.comment,
                "sanity": sanity.comment,
            },
        )


def ask_rules(judge: RuleJudge, question: Question, schema: type[Reply]) -> Answered[Reply]:
    """A rule judge's answer, read as a model's verdict would be; once: rules answer the same
    way again."""
    try:
        return Answered(schema.model_validate(judge.answer(question)), "", attempts=1)
    except Exception as error:  # a rule that fails, or fields out of the schema
        reason = f"the rule judge failed: {type(error).__name__}: {error}"[:500]
        return Answered(None, reason, attempts=1)
