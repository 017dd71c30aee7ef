"""A FAKE model for chat tests that need time to pass during a run (watching tokens arrive,
pressing Stop): the scripted replies, streamed slowly."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGenerationChunk

from workbench.agents import ScriptedChatModel


class SlowScriptedChatModel(ScriptedChatModel):
    """A FAKE model that streams its scripted replies slowly (asyncio.sleep per chunk), so a
    test has time to watch tokens arrive and to press Stop."""

    delay_s: float = 0.05

    async def _astream(  # type: ignore[override]
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        for chunk in self._chunks(messages, kwargs.get("tools") or []):
            await asyncio.sleep(self.delay_s)
            yield ChatGenerationChunk(message=chunk)
