"""A chat model that replays recorded replies, for tests and demos (`scripted:<file.json>`).

The file holds a list of replies (or {"replies": [...]}), consumed in order by whichever agent calls
next (supervisor and specialists share one script, as they share one model)::

    [{"tool_calls": [{"name": "transfer_to_sample", "args": {"task": "add 2 and 3"}}]},
     {"tool_calls": [{"name": "sample_add", "args": "{\"a\": 2, \"b\": 3"}]},   # raw, broken JSON
     {"content": "5", "usage": {"input_tokens": 120, "output_tokens": 2}}]

`args` given as a string is what the model "sent": it is parsed like a real backend would, so
broken JSON ends up in `invalid_tool_calls`. "usage" is LangChain's usage_metadata, cache counts
included as a real backend reports them: {"input_tokens": 900, "output_tokens": 40,
"input_token_details": {"cache_read": 800, "cache_creation": 0}} (input_tokens counts the cached
input too). Without "usage", tokens are estimated (chars / 4).
Replies stream word by word, so token streaming is exercised too.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.utils import message_chunk_to_message
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field, PrivateAttr


class ScriptExhausted(RuntimeError):
    pass


def estimate_tokens(text: str) -> int:
    """Tokenizer-free estimate used across workbench.agents: about four characters per token."""
    return (len(text) + 3) // 4


class ScriptedChatModel(BaseChatModel):
    replies: list[dict[str, Any]] = Field(default_factory=list)
    source: str = "inline"
    temperature: float | None = 0.0  # recorded like a real backend's (a script replays anyway)
    seed: int | None = 0
    _position: int = PrivateAttr(default=0)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _seen: list[dict[str, Any]] = PrivateAttr(default_factory=list)

    @classmethod
    def from_file(cls, path: str | Path) -> ScriptedChatModel:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        replies = data["replies"] if isinstance(data, dict) else data
        return cls(replies=list(replies), source=str(path))

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def position(self) -> int:
        return self._position

    @property
    def remaining(self) -> int:
        return len(self.replies) - self._position

    @property
    def seen(self) -> list[dict[str, Any]]:
        """Per call: the messages and tool names the model was given (for assertions)."""
        return list(self._seen)

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Runnable:  # type: ignore[override]
        # like a real backend: the schemas travel with each call (and are recorded in `seen`)
        return self.bind(tools=[convert_to_openai_tool(tool) for tool in tools], **kwargs)

    def _next_reply(self) -> dict[str, Any]:
        with self._lock:
            if self._position >= len(self.replies):
                raise ScriptExhausted(
                    f"The scripted model {self.source} has no reply left "
                    f"({len(self.replies)} replayed); add replies to the script."
                )
            reply = self.replies[self._position]
            self._position += 1
            return reply

    def _chunks(self, messages: list[BaseMessage], tools: list[dict]) -> list[AIMessageChunk]:
        reply = self._next_reply()
        names = [tool["function"]["name"] for tool in tools]
        self._seen.append({"messages": list(messages), "tools": names})
        content = str(reply.get("content", ""))
        words = content.split(" ")
        chunks = [
            AIMessageChunk(content=word if i == 0 else " " + word)
            for i, word in enumerate(words)
            if word or i == 0
        ]
        tool_chunks = []
        for index, call in enumerate(reply.get("tool_calls", [])):
            args = call.get("args", {})
            tool_chunks.append(
                {
                    "name": call.get("name"),
                    "args": args if isinstance(args, str) else json.dumps(args),
                    "id": call.get("id") or f"call_{self._position}_{index}",
                    "index": index,
                    "type": "tool_call_chunk",
                }
            )
        usage = reply.get("usage") or {
            "input_tokens": sum(estimate_tokens(str(m.content)) for m in messages),
            "output_tokens": estimate_tokens(content + json.dumps(reply.get("tool_calls", []))),
        }
        usage = {**usage, "total_tokens": usage["input_tokens"] + usage["output_tokens"]}
        chunks.append(
            AIMessageChunk(content="", tool_call_chunks=tool_chunks, usage_metadata=usage)
        )
        return chunks

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        chunks = self._chunks(messages, kwargs.get("tools") or [])
        merged = chunks[0]
        for chunk in chunks[1:]:
            merged = merged + chunk
        message = message_chunk_to_message(merged)
        if not isinstance(message, AIMessage):  # chunks of AIMessageChunk merge into one
            raise TypeError(f"a scripted reply merged into {type(message).__name__}")
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for chunk in self._chunks(messages, kwargs.get("tools") or []):
            if run_manager and chunk.content:
                run_manager.on_llm_new_token(str(chunk.content))
            yield ChatGenerationChunk(message=chunk)
