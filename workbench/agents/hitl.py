"""Human in the loop: what an interrupt asks, and the policy that answers for a headless run.

The graph raises a LangGraph interrupt for `ask_human_for_clarification` and for tools whose
`Tool.confirm` is true. The GUI shows the request and resumes with the person's answer; headless
runs (bench, CI, scripts) pass a `HeadlessPolicy`, which denies confirmations unless told otherwise
and records every decision, so a benchmark can report what it approved.

Questions get what the caller says the person would answer (a benchmark passes its task's answer,
so the answer and the scoring agree). With nothing to say, the default tells the agent not to guess:
an agent asks when numbers are missing, and inventing them after asking would undo the question.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from workbench.agents.events import InterruptRequested

NO_HUMAN_ANSWER = (
    "No person is available to answer (headless run). Do not guess what was not given: stop "
    "here and report what you would need to continue."
)


@dataclass(frozen=True)
class Confirmation:
    approved: bool
    reason: str = ""


def parse_confirmation(answer: Any) -> Confirmation:
    """What a resume value means for a confirmation: True/"yes"/{"approved": true} approve."""
    if isinstance(answer, Confirmation):
        return answer
    if isinstance(answer, dict):
        return Confirmation(bool(answer.get("approved")), str(answer.get("reason", "")))
    if isinstance(answer, str):
        return Confirmation(answer.strip().lower() in ("y", "yes", "approve", "approved", "ok"))
    return Confirmation(bool(answer))


def parse_clarification(answer: Any) -> str:
    if isinstance(answer, dict):
        answer = answer.get("answer", "")
    text = str(answer or "").strip()
    return text or "(The person gave no answer.)"


@dataclass
class HeadlessPolicy:
    """Answers interrupts without a person. Deny by default; `approve` names tools it may run."""

    approve: Collection[str] = ()
    answer_questions: Callable[[str], str] | str = NO_HUMAN_ANSWER
    decisions: list[dict[str, Any]] = field(default_factory=list)

    def answer(self, request: InterruptRequested) -> Any:
        if request.kind == "confirmation":
            approved = request.tool in self.approve
            reason = (
                "approved by the headless policy"
                if approved
                else ("denied by the headless policy (no person to confirm)")
            )
            answer: Any = {"approved": approved, "reason": reason}
        else:
            respond = self.answer_questions
            answer = respond(request.question) if callable(respond) else respond
        self.decisions.append(
            {
                "thread_id": request.thread_id,
                "agent": request.agent,
                "kind": request.kind,
                "tool": request.tool,
                "arguments": request.arguments,
                "question": request.question,
                "answer": answer,
            }
        )
        return answer

    @property
    def approved(self) -> list[dict[str, Any]]:
        return [
            d for d in self.decisions if d["kind"] == "confirmation" and d["answer"]["approved"]
        ]

    @property
    def denied(self) -> list[dict[str, Any]]:
        return [
            d for d in self.decisions if d["kind"] == "confirmation" and not d["answer"]["approved"]
        ]
