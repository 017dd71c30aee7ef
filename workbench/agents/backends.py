"""The model factory: a client built from a model profile (`workbench.core.settings_models`) or,
where a person names it, a full spec: `ollama:<model>`, `openai:<model>[@<url>]`,
`llamacpp:<gguf>` or `scripted:<file>`.

Every client gets the profile's temperature and seed (0 and 0 unless the profile says
otherwise), so a rerun asks the same question the same way. A key is taken only from the entries
pinned to the client's own server (`settings_model_access.ResolvedModel.key_entries`). Names
that come from a tool, an agent or an MCP client go through `resolve_for_caller` first.

A spec that cannot be used raises `BackendError` saying how to fix it; failed calls are told to
a person by `workbench.agents.model_errors`.
"""

from __future__ import annotations

import os
from typing import Any

from langchain_core.language_models import BaseChatModel

from workbench.agents.defaults import resolve_gguf
from workbench.agents.errors import BackendError
from workbench.agents.llamacpp import LlamaCppChatModel
from workbench.agents.scripted import ScriptedChatModel
from workbench.core import secrets
from workbench.core.settings import Settings
from workbench.core.settings_model_access import (
    ModelNotAllowed,
    ResolvedModel,
    resolve_for_caller,
    resolve_model,
)
from workbench.core.settings_models import OPENAI_KEY, OPENAI_URL, same_server

LOCAL_KEY_PLACEHOLDER = "not-needed"  # local OpenAI-compatible servers accept any key

__all__ = ["OPENAI_KEY", "make_caller_model", "make_chat_model", "model_api_key"]


def make_chat_model(spec: str, settings: Settings) -> BaseChatModel:
    """The client of a profile name, a built-in or a full spec (a person's own choice)."""
    try:
        resolved = resolve_model(spec, settings)
    except ModelNotAllowed as error:
        raise BackendError(str(error)) from None
    profile = resolved.profile
    if profile.kind == "ollama":
        return _ollama(resolved)
    if profile.kind == "openai-compatible":
        return _openai(resolved)
    if profile.kind in ("llamacpp", "embedded"):
        return LlamaCppChatModel.from_path(
            resolve_gguf(profile.model if profile.kind == "llamacpp" else ""),
            context_size=profile.context_length,
            seed=profile.fixed_seed,
            temperature=profile.temperature,
        )
    try:
        scripted = ScriptedChatModel.from_file(profile.model)
    except (OSError, ValueError, KeyError) as error:
        raise BackendError(
            f"Cannot read the scripted model file {profile.model!r}: {error}."
        ) from error
    return scripted.model_copy(
        update={"temperature": profile.temperature, "seed": profile.fixed_seed}
    )


def make_caller_model(name: str, settings: Settings) -> tuple[BaseChatModel, str]:
    """The client of a model named by a tool's caller (an agent, an MCP client) and the name it
    resolved to: BackendError for a URL, a file or anything not a configured profile."""
    try:
        chosen = resolve_for_caller(name, settings)
    except ModelNotAllowed as refused:
        raise BackendError(str(refused)) from None
    return make_chat_model(chosen, settings), chosen


def model_api_key(resolved: ResolvedModel) -> str | None:
    """The key for `resolved`'s server: from an entry pinned to it, else (a person's full spec)
    from the environment variable named for it; None when there is none."""
    for entry in resolved.key_entries:
        key = secrets.get_secret(entry)
        if key:
            return key
    if resolved.key_env:
        return os.environ.get(resolved.key_env, "").strip() or None
    return None


def _ollama(resolved: ResolvedModel) -> BaseChatModel:
    from langchain_ollama import ChatOllama  # imported only when this backend is chosen

    profile = resolved.profile
    key = model_api_key(resolved)  # an Ollama behind a proxy that wants one
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return ChatOllama(
        model=profile.model,
        base_url=resolved.server,
        num_ctx=profile.context_length,
        temperature=profile.temperature,
        seed=profile.fixed_seed,
        client_kwargs={"headers": headers} if headers else {},
    )


def _openai(resolved: ResolvedModel) -> BaseChatModel:
    from langchain_openai import ChatOpenAI  # imported only when this backend is chosen

    profile = resolved.profile
    key = model_api_key(resolved)
    if not key and same_server(resolved.server, OPENAI_URL):
        entry = resolved.key_entries[0] if resolved.key_entries else OPENAI_KEY
        raise BackendError(
            f"No API key for the OpenAI API: store one in the keyring as {entry!r} "
            "(settings dialog), or name a local server with openai:<model>@<base-url>."
        )
    arguments: dict[str, Any] = {
        "model": profile.model,
        "api_key": key or LOCAL_KEY_PLACEHOLDER,  # never left to OPENAI_API_KEY: pinned keys only
        "base_url": resolved.server,
        "temperature": profile.temperature,
        "seed": profile.fixed_seed,
    }
    return ChatOpenAI(**arguments, max_retries=1, stream_usage=True)
