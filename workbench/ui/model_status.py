"""What models are reachable, for the model picker and the first-run guide: Ollama's models with
their sizes, the embedded model, and the OpenAI-compatible servers configured or picked before,
each with its status; and, when the model in use finds no server, the model offered instead
(`fallback_model`, the same decision the bench's `default_model` makes).

Qt-free and blocking (network calls with short timeouts): the GUI runs `check_models` on a worker
thread and shows the `ModelsReport` when it comes back.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import httpx

from workbench.agents import defaults
from workbench.agents.defaults import (
    EMBEDDED_INSTALL,
    EMBEDDED_NAME,
    EMBEDDED_PURPOSE,
    EMBEDDED_SPEC,
    ModelChoice,
)
from workbench.agents.ollama import ollama_base_url
from workbench.core import secrets
from workbench.core.settings import Settings
from workbench.core.settings_models import OPENAI_KEY, ModelProfile, same_server  # no LangChain

PROBE_TIMEOUT_S = 2.0
Family = Literal["profile", "ollama", "local", "openai"]


@dataclass(frozen=True)
class OllamaModel:
    name: str
    size_bytes: int

    @property
    def spec(self) -> str:
        return f"ollama:{self.name}"


@dataclass(frozen=True)
class ModelEntry:
    """One model the picker offers: its spec, what it is, whether it can be used now and why."""

    spec: str
    family: Family
    detail: str  # "2.5 GB", "SmolLM2-135M-Instruct, 98 MB"
    status: str  # "ready", "no server at http://…"
    usable: bool
    advice: str = ""  # what the model is for, or what to do (a tooltip)
    unreachable: bool = False  # its server does not answer

    def label(self) -> str:
        detail = f" — {self.detail}" if self.detail else ""
        return f"{self.spec}{detail} · {self.status}"


@dataclass(frozen=True)
class ModelsReport:
    current: str  # the model in use
    current_status: str  # "ready (2.5 GB)", "no server at http://127.0.0.1:11434", ...
    current_unreachable: bool  # its server does not answer
    ollama_url: str
    ollama_problem: str  # why Ollama did not answer ("" when it did)
    ollama_models: tuple[OllamaModel, ...] = ()
    entries: tuple[ModelEntry, ...] = ()
    suggestion: ModelChoice | None = None  # what to use instead when current_unreachable
    embedded_installed: bool = False

    @property
    def status_line(self) -> str:
        return f"{self.current} — {self.current_status}"

    @property
    def offers_embedded(self) -> bool:
        """The one-click switch: the model in use finds no server, the embedded one is there."""
        suggested = self.suggestion is not None and self.suggestion.spec == EMBEDDED_SPEC
        return self.current_unreachable and suggested and self.current != EMBEDDED_SPEC

    def entry(self, spec: str) -> ModelEntry | None:
        return next((e for e in self.entries if e.spec == spec), None)


@dataclass
class _Probe:
    """One check: each OpenAI-compatible server is asked once, however many models name it."""

    timeout_s: float
    endpoints: dict[str, tuple[str, bool]] = field(default_factory=dict)  # url -> (status, down)


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{value:.0f} {unit}" if unit in ("B", "KB") else f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} TB"  # not reached; keeps the type checker sure of a return


def list_ollama_sized(url: str, timeout_s: float = PROBE_TIMEOUT_S) -> list[OllamaModel]:
    """Ollama's models with their sizes (GET /api/tags); httpx.HTTPError when it does not answer."""
    response = httpx.get(f"{url.rstrip('/')}/api/tags", timeout=timeout_s)
    response.raise_for_status()
    found = [
        OllamaModel(str(item.get("name", "")), int(item.get("size") or 0))
        for item in response.json().get("models", [])
    ]
    return sorted((m for m in found if m.name), key=lambda m: m.name)


def check_models(
    settings: Settings,
    current: str,
    remembered: Iterable[str] = (),
    timeout_s: float = PROBE_TIMEOUT_S,
) -> ModelsReport:
    """Ask every server once and say what each model's state is (blocking: a worker thread's)."""
    url = ollama_base_url(settings)
    try:
        ollama = tuple(list_ollama_sized(url, timeout_s))
        ollama_problem = ""
    except (httpx.HTTPError, ValueError) as error:  # refused, timed out, not Ollama's JSON
        ollama, ollama_problem = (), _no_answer(url, error, timeout_s)
    probe = _Probe(timeout_s)
    embedded = _embedded_entry()
    profiles = [
        _profile_entry(p, settings, ollama, ollama_problem, probe) for p in settings.model_profiles
    ]
    entries = [*profiles, *(_ollama_entry(m) for m in ollama), embedded]
    for spec in dict.fromkeys([current, settings.model, *remembered]):
        if spec.startswith("openai:") or (spec.startswith("llamacpp:") and spec != EMBEDDED_SPEC):
            entries.append(_other_entry(probe, spec))
    status, unreachable = _current_status(current, url, ollama, ollama_problem, entries)
    problem = f"{current} finds {status}"
    return ModelsReport(
        current=current,
        current_status=status,
        current_unreachable=unreachable,
        ollama_url=url,
        ollama_problem=ollama_problem,
        ollama_models=ollama,
        entries=tuple(entries),
        suggestion=defaults.fallback_model(problem) if unreachable else None,
        embedded_installed=embedded.usable,
    )


def _current_status(
    current: str,
    url: str,
    ollama: tuple[OllamaModel, ...],
    ollama_problem: str,
    entries: list[ModelEntry],
) -> tuple[str, bool]:
    """(status of the model in use, whether its server does not answer)."""
    kind, _, name = current.partition(":")
    if kind == "ollama":
        if ollama_problem:
            return f"no server at {url}", True
        sized = next((m for m in ollama if m.name == name), None)
        if sized is None:
            return f"not on the Ollama server: run `ollama pull {name}`", False
        return f"ready ({human_size(sized.size_bytes)})", False
    if kind == "llamacpp" and current in (EMBEDDED_SPEC, "llamacpp:"):
        current = EMBEDDED_SPEC
    found = next((e for e in entries if e.spec == current), None)
    if found is not None:
        return found.status, found.unreachable
    if kind == "scripted":
        return "scripted replies", False
    return "", False


def _profile_entry(
    profile: ModelProfile,
    settings: Settings,
    ollama: tuple[OllamaModel, ...],
    ollama_problem: str,
    probe: _Probe,
) -> ModelEntry:
    """A configured profile, chosen by its name (its key stays pinned to its own server)."""
    detail = f"{profile.kind} {profile.model}".strip()
    server = profile.server(settings.ollama.address())
    if profile.kind == "embedded":
        embedded = _embedded_entry()
        return ModelEntry(profile.name, "profile", detail, embedded.status, embedded.usable)
    if profile.kind == "ollama" and same_server(server, ollama_base_url(settings)):
        if ollama_problem:
            return ModelEntry(
                profile.name, "profile", detail, ollama_problem, True, unreachable=True
            )
        pulled = any(m.name in (profile.model, f"{profile.model}:latest") for m in ollama)
        status = (
            "ready" if pulled else f"not on the Ollama server: run `ollama pull {profile.model}`"
        )
        return ModelEntry(profile.name, "profile", detail, status, True)
    if profile.kind == "openai-compatible":
        if server not in probe.endpoints:
            probe.endpoints[server] = _endpoint_status(server, probe.timeout_s)
        status, down = probe.endpoints[server]
        return ModelEntry(
            profile.name, "profile", f"{detail} at {server}", status, True, unreachable=down
        )
    return ModelEntry(
        profile.name, "profile", detail, f"configured ({server or 'in process'})", True
    )


def _ollama_entry(model: OllamaModel) -> ModelEntry:
    return ModelEntry(model.spec, "ollama", human_size(model.size_bytes), "ready", True)


def _embedded_entry() -> ModelEntry:
    path = defaults.embedded_model_path()
    purpose = f"{EMBEDDED_NAME}: {EMBEDDED_PURPOSE}."
    if path is None or not defaults.embedded_available():
        return ModelEntry(
            EMBEDDED_SPEC,
            "local",
            EMBEDDED_NAME,
            f"not installed: {EMBEDDED_INSTALL}",
            False,
            purpose,
        )
    detail = f"{EMBEDDED_NAME}, {human_size(path.stat().st_size)}"
    return ModelEntry(EMBEDDED_SPEC, "local", detail, "ready, no server needed", True, purpose)


def _other_entry(probe: _Probe, spec: str) -> ModelEntry:
    kind, _, rest = spec.partition(":")
    if kind == "llamacpp":
        path = Path(rest).expanduser()
        if path.is_file():
            size = human_size(path.stat().st_size)
            return ModelEntry(spec, "local", size, "ready, no server needed", True)
        return ModelEntry(spec, "local", "", f"no file at {path}", False)
    base_url = rest.partition("@")[2]
    if not base_url:  # the OpenAI cloud: not asked (it may cost and needs the internet)
        return ModelEntry(spec, "openai", "api.openai.com", _cloud_key_status(), True)
    if base_url not in probe.endpoints:
        probe.endpoints[base_url] = _endpoint_status(base_url, probe.timeout_s)
    status, down = probe.endpoints[base_url]
    return ModelEntry(spec, "openai", "", status, True, unreachable=down)


def _no_answer(url: str, error: Exception, timeout_s: float) -> str:
    if isinstance(error, httpx.TimeoutException):
        return f"no answer from {url} within {timeout_s:g} s"
    if isinstance(error, httpx.HTTPStatusError | ValueError):  # a server, but not Ollama's API
        return f"the server at {url} does not answer as Ollama does ({error})"
    return f"no server at {url}"


def _cloud_key_status() -> str:
    try:
        key = secrets.get_secret(OPENAI_KEY)
    except secrets.SecretUnavailable as error:
        return f"the keyring cannot be read ({error})"
    return "API key stored" if key else f"no API key: store one as {OPENAI_KEY!r} in the keyring"


def _endpoint_status(base_url: str, timeout_s: float) -> tuple[str, bool]:
    """(status, down) of an OpenAI-compatible server, asked for its model list."""
    try:
        response = httpx.get(f"{base_url.rstrip('/')}/models", timeout=timeout_s)
    except httpx.HTTPError as error:
        return _no_answer(base_url, error, timeout_s), True
    if response.status_code in (401, 403):
        return f"answers, but wants an API key ({OPENAI_KEY!r} in the keyring)", False
    if response.is_success:
        return "ready", False
    return f"answers with HTTP {response.status_code} to /models", False
