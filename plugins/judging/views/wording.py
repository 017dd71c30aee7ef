"""What the panel says when grading cannot happen or fails: in words, naming what was wrong and
what to do. Qt-free."""

from __future__ import annotations

from workbench.agents.errors import BackendError
from workbench.agents.model_errors import backend_label, is_model_error, model_error_message
from workbench.core.settings import Settings

EMPTY_SOLUTION = (
    "There is no solution to grade. Paste one written in the 8 tagged stages (<PC>…</PC> to "
    "<FA>value unit</FA>), or take the chat's last answer."
)


def judge_failure_text(error: BaseException, settings: Settings) -> str:
    """A grading that raised, told to a person (the judge model, our pipeline, or bad input)."""
    spec = settings.model
    if isinstance(error, BackendError):
        return (
            f"The judge model {spec!r} cannot be used: {error} "
            "Fix it in Settings, then Grade again."
        )
    if is_model_error(error):
        _kind, said = model_error_message(error, spec, settings)
        said = said.replace("send again: the conversation is kept.", "Grade again.")
        return f"The judge failed, so there is no score. {said}"
    if isinstance(error, ValueError):
        return f"The solution could not be graded: {error}"
    return (
        f"Grading failed ({type(error).__name__}: {error}); no score was given. "
        f"{backend_label(spec, settings)} was the judge; try again, or report this "
        "with the solution."
    )
