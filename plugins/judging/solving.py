"""A generator model solves a problem in the 8-stage format: the statement, the given values, the
diagram (as an image to a model that accepts images) and the format's instructions, in one call.

The judge sees the same diagram, so a generator that cannot see it is told the given values in
words (they are all on the diagram and in the statement).
"""

from __future__ import annotations

import base64
import time
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from workbench.agents.accounting import usage_of
from workbench_plugins.judging.problems.model import Problem

# Model names (lower case) of families that take images: vision-language models.
IMAGE_MODEL_MARKERS = ("-vl", "vl:", "vision", "llava", "gpt-4o", "gpt-4.1", "gemini", "claude")


@dataclass(frozen=True)
class SolutionRun:
    """What one generator call produced and cost."""

    text: str
    tokens_in: int
    tokens_out: int
    seconds: float
    calls: int


def accepts_images(spec: str) -> bool:
    """Whether the model `spec` names takes images, by its name; scripted models do not (their
    replies are fixed), nor does the rule-based stand-in."""
    kind, _, name = spec.partition(":")
    if kind in ("scripted", "rubric", "reference", "offtarget") or not name:
        return False
    lowered = name.lower()
    return any(marker in lowered for marker in IMAGE_MODEL_MARKERS)


def image_block(png: bytes) -> dict[str, Any]:
    """A PNG as a LangChain image content block (a data URL: OpenAI and Ollama read it)."""
    encoded = base64.b64encode(png).decode("ascii")
    return {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{encoded}"}}


def problem_text(problem: Problem) -> str:
    """The statement as a person reads it: title, statement, given values, what is asked."""
    given = "\n".join(f"- {name} = {value}" for name, value in problem.given.items())
    return (
        f"{problem.title}\n\n{problem.statement}\n\nGiven:\n{given}\n\n"
        f"Find: {problem.asked} (answer in {problem.answer_unit})."
    )


def solving_messages(problem: Problem, *, images: bool) -> list[BaseMessage]:
    """The generator's prompt: the solution format as the system message, the problem (and its
    diagram when the model takes images) as the user's."""
    from workbench_plugins.judging.scoring.stages import SOLUTION_FORMAT

    text = problem_text(problem)
    if not images:
        return [SystemMessage(SOLUTION_FORMAT), HumanMessage(text)]
    content: list[str | dict[str, Any]] = [
        {"type": "text", "text": text + "\n\nThe diagram shows the same values."},
        image_block(problem.diagram_png()),
    ]
    return [SystemMessage(SOLUTION_FORMAT), HumanMessage(content=content)]


def solve(problem: Problem, model: BaseChatModel, *, images: bool) -> SolutionRun:
    """One call of `model` on `problem`; the reply's text is the solution, whatever its shape
    (a reply without the tags, even an empty one, is graded as such: missing stages cost
    points). A model that cannot be reached raises: that is the harness's failure."""
    started = time.perf_counter()
    reply = model.invoke(solving_messages(problem, images=images))
    seconds = time.perf_counter() - started
    text = reply_text(reply.content)
    usage = usage_of(reply)
    return SolutionRun(
        text=text,
        tokens_in=usage["input_tokens"],
        tokens_out=usage["output_tokens"],
        seconds=seconds,
        calls=1,
    )


def reply_text(content: str | list[Any]) -> str:
    """A reply's text: a plain string, or the text parts of a list of content blocks."""
    if isinstance(content, str):
        return content
    parts = [
        part if isinstance(part, str) else str(part.get("text", ""))
        for part in content
        if isinstance(part, str) or (isinstance(part, dict) and part.get("type") == "text")
    ]
    return "".join(parts)
