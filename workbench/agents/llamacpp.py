"""`llamacpp:<path-to-gguf>`: an in-process model through llama-cpp-python (the `embedded` extra).

llama_cpp is imported only when this backend is chosen. Prompts use llama.cpp's plain "chatml"
format; tool calls and structured output are ours, each reply constrained by a grammar built from
the bound tools' JSON schemas (`llamacpp_schema`), and read back by `llamacpp_reply`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from operator import itemgetter
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable, RunnableMap, RunnablePassthrough
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, Field

from workbench.agents.deadline import has_deadline, past_deadline
from workbench.agents.errors import BackendError
from workbench.agents.llamacpp_reply import (
    chat_messages,
    choice_of,
    json_schema_of,
    read_reply,
    structured_parser,
)
from workbench.agents.llamacpp_schema import (
    describe_tools,
    grammar_for,
    reply_schema,
    tightened,
    tool_name,
)

# plain ChatML: llama.cpp's "chatml-function-calling" handler HTML-escapes every message (a quote
# became &#34; in the JSON the model read and then copied); tools and schemas are ours
CHAT_FORMAT = "chatml"
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


class LlamaCppChatModel(BaseChatModel):
    """A GGUF model in this process. Bound to tools, each reply is constrained by a grammar to one
    JSON object: a call of a bound tool with arguments of its schema, or the final answer
    (`llamacpp_schema`); with structured output, to the answer's schema."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    llama: Any = None
    path: str = ""
    tools: list[dict[str, Any]] = Field(default_factory=list)  # OpenAI-shaped
    tool_choice: str = "auto"  # "auto", "required" (some tool), "none" or a tool's name
    response_schema: dict[str, Any] | None = None  # structured output: the reply's JSON schema
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

    def bind_tools(  # type: ignore[override]
        self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any
    ) -> LlamaCppChatModel:
        """Tools in any form LangChain knows (OpenAI dicts, pydantic classes, LangChain tools),
        held as OpenAI schemas; `tool_choice` as LangChain's ("any"/True: some tool)."""
        return self.model_copy(
            update={
                "tools": [convert_to_openai_tool(tool) for tool in tools],
                "tool_choice": choice_of(tool_choice),
                "response_schema": None,
            }
        )

    def with_structured_output(  # type: ignore[override]
        self,
        schema: dict[str, Any] | type,
        *,
        include_raw: bool = False,
        method: str = "json_schema",
        **kwargs: Any,
    ) -> Runnable:
        """The reply written to `schema` under its grammar (method "json_schema", the default),
        or as a forced tool call ("function_calling", LangChain's own way)."""
        if method == "function_calling":
            return super().with_structured_output(schema, include_raw=include_raw, **kwargs)
        model = self.model_copy(
            update={"tools": [], "tool_choice": "none", "response_schema": json_schema_of(schema)}
        )
        parser = structured_parser(schema)
        if not include_raw:
            return model | parser
        parsed = RunnablePassthrough.assign(
            parsed=itemgetter("raw") | parser, parsing_error=lambda _: None
        ).with_fallbacks(
            [RunnablePassthrough.assign(parsed=lambda _: None)], exception_key="parsing_error"
        )
        return RunnableMap(raw=model) | parsed

    def offered(self) -> tuple[list[dict[str, Any]], bool]:
        """The tools this call may use, and whether a final answer is allowed instead."""
        if self.response_schema is not None or self.tool_choice == "none":
            return [], False
        if self.tool_choice in ("auto", "required"):
            return self.tools, self.tool_choice == "auto"
        return [t for t in self.tools if tool_name(t) == self.tool_choice], False

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        tools, answer = self.offered()
        schema = self.response_schema
        if tools:
            schema = reply_schema(tools, answer=answer)
        elif schema is not None:
            schema = tightened(schema)
        guide = describe_tools(tools, answer=answer) if tools else ""
        try:
            response = self.llama.create_chat_completion(
                messages=chat_messages(messages, guide, json_replies=bool(tools)),
                grammar=None if schema is None else grammar_for(schema),
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
        text = response["choices"][0]["message"].get("content") or ""
        usage = response.get("usage") or {}
        message = read_reply(text) if tools else AIMessage(content=text)
        message.usage_metadata = {
            "input_tokens": usage.get("prompt_tokens", 0),
            "output_tokens": usage.get("completion_tokens", 0),
            "total_tokens": usage.get("total_tokens", 0),
        }
        return ChatResult(generations=[ChatGeneration(message=message)])
