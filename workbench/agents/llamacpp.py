"""`llamacpp:<path-to-gguf>`: an in-process model through llama-cpp-python (the `embedded` extra).

llama_cpp is imported only when this backend is chosen. Tool calls use llama.cpp's
"chatml-function-calling" chat format, which returns OpenAI-shaped tool calls.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict, Field

from workbench.agents.deadline import has_deadline, past_deadline
from workbench.agents.errors import BackendError

CHAT_FORMAT = "chatml-function-calling"
MAX_COMPLETION_TOKENS = 512


def load_llama(path: str, context_size: int, seed: int | None = 0) -> Any:
    try:
        from llama_cpp import LLAMA_DEFAULT_SEED, Llama
    except ImportError as missing:
        raise BackendError(
            "The llamacpp backend needs llama-cpp-python, which is not installed. Install the "
            "embedded extra (pip install 'workbench[embedded]') or use an ollama: model."
        ) from missing
    if not Path(path).is_file():
        raise BackendError(f"No GGUF model file at {path!r}; give llamacpp:<path-to-gguf>.")
    # a fixed seed (the profile's, 0 by default): the same prompt gives the same reply, so
    # benchmark reruns are comparable; None: llama.cpp draws one
    threads = usable_cpus()
    return _bounded(Llama)(
        model_path=path,
        n_ctx=context_size,
        chat_format=CHAT_FORMAT,
        seed=LLAMA_DEFAULT_SEED if seed is None else seed,
        verbose=False,
        n_threads=threads,
        n_threads_batch=threads,
    )


def usable_cpus() -> int:
    """Every CPU this process may run on. llama-cpp-python's default is half the machine's CPUs:
    1 thread on a 2-core machine, where 2 process a 2.2k-token prompt in 10.6 s instead of 20.2."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on every platform
        return max(1, os.cpu_count() or 1)


def _bounded(llama_class: type) -> type:
    """llama.cpp's function-calling handler generates tool arguments with no token limit, and a
    small model can then fill the whole context (minutes of generation, then an overflow). Every
    completion here gets a limit; a cut-off argument list comes back as a malformed tool call."""

    class BoundedLlama(llama_class):  # type: ignore[misc, valid-type]
        def create_completion(self, *args: Any, max_tokens: int | None = None, **kwargs: Any):  # type: ignore[no-untyped-def]
            limit = MAX_COMPLETION_TOKENS
            bounded = limit if max_tokens is None or max_tokens <= 0 else min(max_tokens, limit)
            if has_deadline():  # a run's time budget also ends a reply part way (a budgeted
                # bench cell on a busy 2-core machine: one 512-token reply took 396 s)
                from llama_cpp import StoppingCriteriaList

                given = kwargs.get("stopping_criteria") or []
                kwargs["stopping_criteria"] = StoppingCriteriaList([*given, _at_deadline])
            return super().create_completion(*args, max_tokens=bounded, **kwargs)

    return BoundedLlama


def _at_deadline(tokens: Any, logits: Any) -> bool:
    return past_deadline()


def to_openai(message: BaseMessage) -> dict[str, Any]:
    if isinstance(message, SystemMessage):
        return {"role": "system", "content": str(message.content)}
    if isinstance(message, HumanMessage):
        return {"role": "user", "content": str(message.content)}
    if isinstance(message, ToolMessage):
        return {
            "role": "tool",
            "content": str(message.content),
            "tool_call_id": message.tool_call_id,
        }
    calls = [
        {
            "id": call["id"],
            "type": "function",
            "function": {"name": call["name"], "arguments": json.dumps(call["args"])},
        }
        for call in getattr(message, "tool_calls", [])
    ]
    return {
        "role": "assistant",
        "content": str(message.content),
        **({"tool_calls": calls} if calls else {}),
    }


class LlamaCppChatModel(BaseChatModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    llama: Any = None
    path: str = ""
    tools: list[dict[str, Any]] = Field(default_factory=list)
    max_tokens: int = 512
    temperature: float | None = 0.0  # None: llama.cpp's own default
    seed: int | None = 0

    @classmethod
    def from_path(
        cls,
        path: str,
        context_size: int = 4096,
        seed: int | None = 0,
        temperature: float | None = 0.0,
    ) -> LlamaCppChatModel:
        llama = load_llama(path, context_size, seed)
        return cls(llama=llama, path=path, seed=seed, temperature=temperature)

    @property
    def _llm_type(self) -> str:
        return "llamacpp"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> LlamaCppChatModel:  # type: ignore[override]
        return self.model_copy(update={"tools": list(tools)})

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        try:
            response = self.llama.create_chat_completion(
                messages=[to_openai(m) for m in messages],
                tools=self.tools or None,
                tool_choice="auto" if self.tools else None,
                max_tokens=self.max_tokens,
                stop=stop,
                **({} if self.temperature is None else {"temperature": self.temperature}),
            )
        except ValueError as error:
            if "exceed context window" not in str(error):
                raise
            raise BackendError(
                f"The conversation no longer fits the model's context ({error}). Start a new "
                "conversation, or raise the context size in settings."
            ) from error
        choice = response["choices"][0]["message"]
        tool_calls, invalid = [], []
        for call in choice.get("tool_calls") or []:
            function, call_id = call["function"], call.get("id") or f"call_{uuid.uuid4().hex[:12]}"
            try:
                arguments = json.loads(function.get("arguments") or "{}")
                tool_calls.append({"name": function["name"], "args": arguments, "id": call_id})
            except json.JSONDecodeError as error:
                invalid.append(
                    {
                        "name": function.get("name"),
                        "args": function.get("arguments"),
                        "id": call_id,
                        "error": str(error),
                        "type": "invalid_tool_call",
                    }
                )
        usage = response.get("usage") or {}
        message = AIMessage(
            content=choice.get("content") or "",
            tool_calls=tool_calls,
            invalid_tool_calls=invalid,
            usage_metadata={
                "input_tokens": usage.get("prompt_tokens", 0),
                "output_tokens": usage.get("completion_tokens", 0),
                "total_tokens": usage.get("total_tokens", 0),
            },
        )
        return ChatResult(generations=[ChatGeneration(message=message)])
