"""What a model name may be, depending on who names it, and which key may go with it.

- A person (settings' `model`, `--model`/`--judge` on the command line, the model picker) may
  give a profile's name or a full spec: `ollama:<model>`, `openai:<model>[@<base-url>]`,
  `llamacpp:<gguf>`, `scripted:<file>` (`resolve_model`).
- A caller (a tool's arguments, an agent, an MCP client) may name only a configured profile or a
  built-in (`default`: the settings' model, `embedded`), never a URL, a file or a backend prefix
  (`resolve_for_caller`): a caller-chosen URL would receive the person's key, a caller-chosen
  file would be read outside the workspace.

A key goes only to the server its entry is pinned to: a profile's own entry to the profile's
server; for a full spec, the entry of a profile at that same server, the OpenAI API's entry for
the OpenAI API, or a key the person put in the environment for the run.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from workbench.core.settings import Settings
from workbench.core.settings_models import (
    OPENAI_KEY,
    OPENAI_URL,
    SPEC_PREFIXES,
    ModelKind,
    ModelProfile,
    same_server,
)

OPENAI_ENV = "OPENAI_API_KEY"  # the OpenAI API's key, as its own clients read it
SPEC_KEY_ENV = "WORKBENCH_MODEL_API_KEY"  # a key for the server a command-line spec names
SPEC_FORMS = (
    "ollama:<model> (e.g. ollama:qwen3:4b), openai:<model>@<base-url>, "
    "llamacpp:<path-to-gguf> or scripted:<file.json>"
)


class ModelNotAllowed(ValueError):
    """The name cannot be used here; the message says which names can and how to add one."""


@dataclass(frozen=True)
class ResolvedModel:
    spec: str  # as it was named
    profile: ModelProfile  # a configured profile, or one made from a full spec
    server: str  # where requests go ("" in process)
    key_entries: tuple[str, ...]  # keyring entries pinned to `server`, tried in order
    key_env: str = ""  # an environment variable the person may set for this server

    def sampling(self) -> dict[str, object]:
        return {**self.profile.sampling(), "server": self.server}


def find_profile(name: str, settings: Settings) -> ModelProfile | None:
    return next((p for p in settings.model_profiles if p.name == name), None)


def resolve_model(spec: str, settings: Settings) -> ResolvedModel:
    """What a profile name, a built-in or a full spec (a person's own choice) stands for."""
    name = spec.strip()
    if name in ("", "default"):
        chosen = settings.model.strip()
        if chosen in ("", "default"):
            raise ModelNotAllowed("The settings name no model: set `model` in the settings.")
        return resolve_model(chosen, settings)
    address = settings.ollama.address()
    profile = find_profile(name, settings)
    if profile is None and name == "embedded":
        profile = _made(name, "embedded", "", "", settings)
    if profile is not None:
        server = profile.server(address)
        own = (profile.key_name,) if profile.key_name else ()
        return ResolvedModel(name, profile, server, _pinned(own, profile.kind, server, settings))
    made = _from_spec(name, settings)
    server = made.server(address)
    env = (OPENAI_ENV if same_server(server, OPENAI_URL) else SPEC_KEY_ENV) if server else ""
    if made.kind != "openai-compatible":
        env = ""
    return ResolvedModel(name, made, server, _pinned((), made.kind, server, settings), env)


def resolve_for_caller(name: str, settings: Settings, *, policies: Collection[str] = ()) -> str:
    """`name` as a model a tool, agent or MCP client may use (empty or `default`: the settings'
    model, the person's choice); ModelNotAllowed for anything but a configured profile, a
    built-in or one of `policies` (e.g. a bench's `reference`)."""
    wanted = name.strip()
    if wanted in ("", "default"):
        return settings.model
    if wanted == "embedded" or wanted in policies or find_profile(wanted, settings):
        return wanted
    raise ModelNotAllowed(_refusal(wanted, settings, policies))


def model_settings(spec: str, settings: Settings) -> dict[str, object]:
    """How `spec` samples (profile, kind, model, temperature, seed, context, server), for a
    bench cell's record; for a name that is no model (a policy) only the name."""
    try:
        return resolve_model(spec, settings).sampling()
    except ModelNotAllowed:
        return {"profile": spec, "kind": "policy", "temperature": None, "seed": None}


def spec_of(name: str, settings: Settings) -> str:
    """The full spec a profile or built-in stands for, for messages and for what a model can
    do by its name (images); `name` itself when it is no model. It carries no key."""
    try:
        resolved = resolve_model(name, settings)
    except ModelNotAllowed:
        return name
    profile = resolved.profile
    if profile.kind == "openai-compatible":
        at = "" if same_server(resolved.server, OPENAI_URL) else f"@{resolved.server}"
        return f"openai:{profile.model}{at}"
    if profile.kind == "embedded":
        return "llamacpp:embedded"
    return f"{profile.kind}:{profile.model}"


def _from_spec(spec: str, settings: Settings) -> ModelProfile:
    prefix, colon, rest = spec.partition(":")
    kind = SPEC_PREFIXES.get(prefix) if colon else None
    if kind is None:
        raise ModelNotAllowed(
            f"Unknown model {spec!r}. Name a model profile (configured: "
            f"{_configured(settings)}) or use {SPEC_FORMS}."
        )
    model, base_url = rest, ""
    if kind == "ollama":
        model = rest or settings.ollama.model
    elif kind == "openai-compatible":
        model, _, base_url = rest.partition("@")
        if not model:
            raise ModelNotAllowed(
                "openai: needs a model name, e.g. openai:gpt-4o-mini@http://host/v1."
            )
    elif kind == "llamacpp" and rest in ("", "embedded"):
        kind, model = "embedded", ""
    return _made(spec, kind, model, base_url, settings)


def _made(
    name: str, kind: ModelKind, model: str, base_url: str, settings: Settings
) -> ModelProfile:
    return ModelProfile(
        name=name,
        kind=kind,
        model=model,
        base_url=base_url,
        context_length=settings.ollama.context_size,
    )


def _pinned(
    own: tuple[str, ...], kind: ModelKind, server: str, settings: Settings
) -> tuple[str, ...]:
    """The entries whose key may go to `server`: `own`, else those of profiles at `server`,
    and the OpenAI API's entry when `server` is that API."""
    if not server:
        return ()
    address = settings.ollama.address()
    entries = list(own) or [
        p.key_name
        for p in settings.model_profiles
        if p.key_name and same_server(p.server(address), server)
    ]
    if kind == "openai-compatible" and same_server(server, OPENAI_URL):
        entries.append(OPENAI_KEY)
    return tuple(dict.fromkeys(entries))


def _configured(settings: Settings) -> str:
    names = [p.name for p in settings.model_profiles]
    return ", ".join(names) if names else "none yet"


def _refusal(wanted: str, settings: Settings, policies: Collection[str]) -> str:
    if "://" in wanted or "@" in wanted:
        what = "A model given as a server address"
    elif any(mark in wanted for mark in ("/", "\\", "~")) or wanted.endswith((".gguf", ".json")):
        what = f"A model given as a file ({wanted[:80]!r})"
    elif wanted.partition(":")[0] in SPEC_PREFIXES:
        what = f"A backend spec ({wanted[:80]!r})"
    else:
        what = f"{wanted[:80]!r} is not a model profile and"
    built_in = ", ".join(["default (the settings' model)", "embedded", *sorted(policies)])
    return (
        f"{what} cannot be used here: tools, agents and MCP clients may name only a model "
        f"profile, so that a key reaches only its own server and no file outside the workspace "
        f"is read. Configured model profiles: {_configured(settings)}; built in: {built_in}. "
        "A person adds one in Settings → Model profiles (or [[model_profiles]] in settings.toml: "
        "name, kind, model, base_url), or runs the model from the command line with --model."
    )
