"""A run's wall-clock deadline, visible to model backends that can stop a reply part way.

The runtime checks its time budget between steps; a single reply of a small local model on a
busy machine can take minutes, so the embedded llama.cpp backend also stops generating when the
deadline passes (the reply ends there, and the runtime then stops the run). A context variable
reaches the worker thread LangChain runs a synchronous model in (it copies the context).
"""

from __future__ import annotations

import time
from contextvars import ContextVar, Token

_DEADLINE: ContextVar[float | None] = ContextVar("workbench_agent_deadline", default=None)


class Deadline:
    """Within the block (`with` or `async with`), `past_deadline()` turns true `seconds` from
    now; never if `seconds` is None."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self._token: Token[float | None] | None = None

    def __enter__(self) -> None:
        deadline = None if self.seconds is None else time.monotonic() + self.seconds
        self._token = _DEADLINE.set(deadline)

    def __exit__(self, *exc_info: object) -> None:
        if self._token is None:
            raise RuntimeError("Deadline left without being entered")
        _DEADLINE.reset(self._token)

    async def __aenter__(self) -> None:
        self.__enter__()

    async def __aexit__(self, *exc_info: object) -> None:
        self.__exit__(*exc_info)


def has_deadline() -> bool:
    return _DEADLINE.get() is not None


def past_deadline() -> bool:
    deadline = _DEADLINE.get()
    return deadline is not None and time.monotonic() >= deadline
