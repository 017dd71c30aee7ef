"""Which model the chat talks through: its `AgentRuntime`, built from a model spec, replaced when
the engineer picks another model, and closed properly (after a run still unwinding).

A runtime built from the settings follows them: when the settings dialog changes the model, the
next run uses the new one. A runtime handed in (tests: a scripted model) is kept as it is.

A model that loads in this process (llama.cpp: seconds to read the GGUF file) is built on a worker
thread, whether the settings name it at start or the engineer picks it; until it is ready the
picker says "loading model…" and the chat says so instead of sending. Models picked
by hand are remembered (workbench.ui.gui_state) so the model menu lists them again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from workbench.agents import AgentRuntime, BackendError
from workbench.core.context import AppContext
from workbench.ui.chat.surface import ChatSurface, Spawn
from workbench.ui.gui_state import remember_model

LOADS_IN_PROCESS = "llamacpp:"  # specs whose runtime reads a model file: built off the GUI thread


class RuntimeKeeper:
    """Holds the chat's runtime so it can be closed even after the chat's widgets are deleted."""

    def __init__(self) -> None:
        self.runtime: AgentRuntime | None = None
        self.run: asyncio.Task[Any] | None = None

    def replace(self, runtime: AgentRuntime | None) -> None:
        if self.runtime is not None and self.runtime is not runtime:
            self.close_later(self.runtime)
        self.runtime = runtime

    def close_later(self, runtime: AgentRuntime) -> None:
        # a run still unwinding (stopped, window closed) writes its totals first
        if self.run is not None and not self.run.done():
            self.run.add_done_callback(lambda _task: runtime.close())
        else:
            runtime.close()

    def shutdown(self, *_: object) -> None:
        """The chat is gone: stop its run and close its runtime (a Qt `destroyed` slot)."""
        if self.run is not None:
            self.run.cancel()
        if self.runtime is not None:
            self.close_later(self.runtime)
            self.runtime = None


class ModelChoice:
    def __init__(
        self,
        context: AppContext,
        surface: ChatSurface,
        spawn: Spawn,
        *,
        from_settings: bool,
    ) -> None:
        self.context = context
        self.surface = surface
        self.spawn = spawn
        self.keeper = RuntimeKeeper()
        self.problem = ""  # why the wanted model cannot be used, for the engineer
        self.from_settings = from_settings
        self.loading = ""  # the spec being built on a worker thread
        self.on_loaded: Callable[[], None] | None = None  # called when a load finished

    @property
    def runtime(self) -> AgentRuntime | None:
        return self.keeper.runtime

    def use(self, runtime: AgentRuntime) -> None:
        """Talk through `runtime`; the chat closes it when it is replaced or the chat is gone."""
        self.keeper.replace(runtime)
        self.problem = ""
        self.surface.show_model(runtime.model_spec)

    def build(self, spec: str) -> bool:
        """A runtime for `spec`; False (and `problem` says why) when it cannot be made."""
        try:
            runtime = AgentRuntime(self.context, spec)
        except (BackendError, ValueError, OSError) as error:  # bad spec, missing key or file
            self._cannot_use(spec, error)
            return False
        self.use(runtime)
        return True

    def _cannot_use(self, spec: str, error: Exception) -> None:
        self.problem = f"The model {spec!r} cannot be used: {error}"
        self.surface.show_model(spec, self.problem)

    def start(self, spec: str) -> None:
        """The settings' model at start: one that reads a model file loads on a worker thread,
        so the window opens at once and the picker says "loading model…" meanwhile."""
        if spec.startswith(LOADS_IN_PROCESS):
            self._load_later(spec, picked=False)
        else:
            self.build(spec)

    def choose(self, spec: str) -> None:
        """The engineer picked another model: remembered in settings, used from the next run."""
        try:
            self.context.settings.model = spec
        except ValueError as error:
            self.surface.error(f"{spec!r} is not a model name the settings accept: {error}")
            return
        self.loading = ""  # a model still loading is no longer wanted
        if spec.startswith(LOADS_IN_PROCESS):
            self._load_later(spec, picked=True)
        elif self.build(spec):
            self._chosen(spec)
        else:
            self.surface.error(self.problem)

    def _load_later(self, spec: str, *, picked: bool) -> None:
        self.loading = spec
        self.problem = ""
        self.surface.show_model(spec, loading=True)
        self.surface.note(f"Loading {spec} (a few seconds)…")
        self.spawn(self._build_off_thread(spec, picked), name="chat:load-model")

    async def _build_off_thread(self, spec: str, picked: bool) -> None:
        try:
            runtime = await asyncio.to_thread(AgentRuntime, self.context, spec)
        except (BackendError, ValueError, OSError) as error:
            if self.loading == spec:
                self.loading = ""
                if self.surface.alive():
                    self._cannot_use(spec, error)
                    self.surface.error(self.problem)
            return
        if self.loading != spec or not self.surface.alive():  # another pick, or the chat closed
            runtime.close()
            return
        self.loading = ""
        self.use(runtime)
        if picked:
            self._chosen(spec)
        else:
            self.surface.note(f"Model: {spec} is loaded.", tone="ok")
        if self.on_loaded is not None:
            self.on_loaded()

    def _chosen(self, spec: str) -> None:
        self.from_settings = True
        self.surface.note(f"Model: {spec}. The conversation continues with it.")
        self.spawn(self._save_settings(spec), name="chat:save-settings")

    async def _save_settings(self, spec: str) -> None:
        try:
            await asyncio.to_thread(self.context.save_settings)
            await asyncio.to_thread(remember_model, self.context.paths.config_dir, spec)
        except OSError as error:
            if self.surface.alive():
                self.surface.error(f"The model choice could not be saved in the settings: {error}")

    def current(self) -> AgentRuntime | None:
        """The runtime for the next run; the settings dialog may have changed the model since."""
        if self.loading:
            self.problem = f"The model {self.loading} is still loading; send again in a moment."
            return None
        wanted = self.context.settings.model
        runtime = self.runtime
        if self.from_settings and runtime is not None and runtime.model_spec != wanted:
            if wanted.startswith(LOADS_IN_PROCESS):  # never read a model file on the GUI thread
                self._load_later(wanted, picked=False)
                self.problem = f"The model {wanted} is still loading; send again in a moment."
                return None
            self.build(wanted)
        return self.runtime
