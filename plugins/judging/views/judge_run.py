"""One grading off the GUI thread: the judge model, progress per judge call, and Cancel.

The judge is the settings model unless a `judge_factory` gives one (tests: a scripted model), or
the rule-based rubric when the person chose it in the panel (no model: fixed rules, no tokens).
The pipeline reports each judge call as it ends (`on_call`) and asks before each call whether
to go on (`cancelled`), so a cancelled grading stops after the call under way. Qt-free.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from langchain_core.language_models import BaseChatModel

from workbench.agents.model_errors import backend_label
from workbench.core.settings import Settings
from workbench_plugins.judging.bench.rubric_judge import RubricJudge
from workbench_plugins.judging.problems.model import Problem
from workbench_plugins.judging.scoring.judge import Judge, chat_judge
from workbench_plugins.judging.scoring.pipeline import CallRecord, Grade, grade
from workbench_plugins.judging.scoring.stages import STAGE_NAMES

JudgeFactory = Callable[[], "str | BaseChatModel | None"]
META_CALLS = 3  # coverage, verbosity, sanity
CALLS_PER_GRADING = 8 + META_CALLS  # a complete solution: a call per stage and the checks
RULE_BASED = "Rule-based rubric (no model)"
META_NAMES = {"coverage": "coverage", "verbosity": "verbosity", "sanity": "physical sanity"}


class JudgeWatch:
    """Counts the judge calls of one grading and carries its Cancel (thread-safe)."""

    def __init__(self, on_call: Callable[[int, str], None]) -> None:
        self.on_call = on_call  # (calls so far, what the last call judged); on the worker thread
        self.calls = 0
        self._cancelled = threading.Event()
        self._lock = threading.Lock()

    def cancel(self) -> None:
        self._cancelled.set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def called(self, record: CallRecord) -> None:
        with self._lock:
            self.calls += 1
            count = self.calls
        what = STAGE_NAMES.get(record.stage) or META_NAMES.get(record.stage, record.stage)
        self.on_call(count, what if record.ok else f"{what} (failed)")


def judge_model(
    factory: JudgeFactory | None,
    settings: Settings,
    problem: Problem | None = None,
    *,
    rule_based: bool = False,
) -> tuple[Judge, str]:
    """The judge and its name for messages: the rubric when `rule_based` (for `problem`), else
    the factory's model or spec, else the settings model (blocking: off the GUI)."""
    if rule_based:
        if problem is None:
            raise ValueError("the rule-based rubric judges one problem: give it")
        return RubricJudge(problem), RULE_BASED
    chosen = factory() if factory is not None else None
    if isinstance(chosen, BaseChatModel):
        return chosen, f"the {chosen._llm_type} model"
    spec = chosen or settings.model
    return chat_judge(spec, settings), f"{spec} ({backend_label(spec, settings)})"


def run_grading(
    problem: Problem,
    text: str,
    judge: Judge,
    watch: JudgeWatch,
    *,
    graph: str,
    images: bool,
    settings: Settings | None = None,
) -> Grade:
    """The pipeline's Grade; the pipeline's GradingCancelled when Cancel stopped it."""
    return grade(
        problem,
        text,
        judge,
        graph=graph,
        images=images,
        settings=settings,
        on_call=watch.called,
        cancelled=lambda: watch.cancelled,
    )
