"""Model profiles: a named model, where it runs, which keyring entry holds its key, and how it
samples (temperature 0 and a fixed seed by default, so a rerun gives the same answers).

A profile's key is sent only to the profile's own server: two profiles at different addresses
may not share a keyring entry, and the old `openai:api_key` entry belongs to the OpenAI API
alone. Where a model name comes from decides what it may be (`settings_model_access`).
"""

from __future__ import annotations

import re
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field

ModelKind = Literal["ollama", "openai-compatible", "llamacpp", "embedded", "scripted"]
NETWORK_KINDS = ("ollama", "openai-compatible")  # talk to a server (and may need a key)
PROFILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
BUILT_IN_NAMES = ("default", "embedded")  # what a caller may name besides the configured profiles
OPENAI_URL = "https://api.openai.com/v1"
OPENAI_KEY = "openai:api_key"  # the entry of the OpenAI API's key, for that API only
DEFAULT_TEMPERATURE = 0.0
DEFAULT_SEED = 0
SPEC_PREFIXES: dict[str, ModelKind] = {
    "ollama": "ollama",
    "openai": "openai-compatible",
    "llamacpp": "llamacpp",
    "scripted": "scripted",
}


class ModelProfile(BaseModel):
    """One model a person configured (settings `[[model_profiles]]`)."""

    model_config = ConfigDict(extra="forbid", hide_input_in_errors=True)

    name: str = Field(description="What tools, agents and the command line call it")
    kind: ModelKind = Field("ollama", description="Which backend runs it")
    model: str = Field(
        "", description="The model on its server; for llamacpp a GGUF file, for scripted a script"
    )
    base_url: str = Field(
        "", description="Server address (empty: the Ollama settings' / the OpenAI API)"
    )
    key_entry: str = Field(
        "", description="Keyring entry of its API key (empty: model:<name>:api_key)"
    )
    temperature: float = Field(
        DEFAULT_TEMPERATURE, ge=0, le=2, description="0: the same answer each time"
    )
    seed: int = Field(
        DEFAULT_SEED, ge=-1, description="Sampling seed where the backend takes one (-1: none)"
    )
    context_length: int = Field(8192, ge=512, description="Context window in tokens")

    @property
    def key_name(self) -> str:
        """The keyring entry whose secret goes to this profile's server ("" for local kinds)."""
        if self.kind not in NETWORK_KINDS:
            return ""
        return self.key_entry or f"model:{self.name}:api_key"

    def server(self, ollama_address: str) -> str:
        """Where requests go ("" for in-process kinds)."""
        if self.kind == "ollama":
            return (self.base_url or ollama_address).rstrip("/")
        if self.kind == "openai-compatible":
            return (self.base_url or OPENAI_URL).rstrip("/")
        return ""

    @property
    def fixed_seed(self) -> int | None:
        """The seed to send (None: let the backend draw one)."""
        return None if self.seed < 0 else self.seed

    def sampling(self) -> dict[str, object]:
        """What a bench cell records and a report shows about how this model was run."""
        return {
            "profile": self.name,
            "kind": self.kind,
            "model": self.model,
            "temperature": self.temperature,
            "seed": self.seed,
            "context_length": self.context_length,
        }


def same_server(first: str, second: str) -> bool:
    """Whether two addresses name the same server and path (scheme and host case-blind)."""
    return _normal(first) == _normal(second)


def _normal(url: str) -> tuple[str, str, str]:
    parts = urlsplit(url.strip())
    return parts.scheme.lower(), parts.netloc.lower(), parts.path.rstrip("/")


def profile_problems(profiles: list[ModelProfile], ollama_address: str) -> list[str]:
    """What makes a list of profiles unusable: bad or repeated names, a key entry shared by
    two servers (its key would reach both), the OpenAI API's entry used for another server."""
    problems: list[str] = []
    seen: set[str] = set()
    owners: dict[str, str] = {}
    for index, profile in enumerate(profiles):
        where = f"model_profiles[{index}] ({profile.name!r})"
        if not PROFILE_NAME.match(profile.name):
            problems.append(f"{where}: a name is letters, digits, '.', '_' or '-' (up to 64)")
        elif profile.name in BUILT_IN_NAMES:
            problems.append(f"{where}: {profile.name!r} is built in; choose another name")
        elif profile.name in seen:
            problems.append(f"{where}: another profile has this name")
        seen.add(profile.name)
        entry, server = profile.key_name, profile.server(ollama_address)
        if not entry:
            continue
        if entry == OPENAI_KEY and not same_server(server, OPENAI_URL):
            problems.append(
                f"{where}: {OPENAI_KEY!r} holds the OpenAI API's key and goes to {OPENAI_URL} "
                f"only; leave key_entry empty to use model:{profile.name}:api_key"
            )
        elif entry in owners and not same_server(owners[entry], server):
            problems.append(
                f"{where}: key entry {entry!r} already belongs to a profile at {owners[entry]}; "
                "a key goes to one server only"
            )
        owners.setdefault(entry, server)
    return problems
