"""Which model the chat talks through: its `AgentRuntime`, built from a model spec, replaced when
the engineer picks another model, and closed properly (after a run still unwinding).

A runtime built from the settings follows them: when the settings dialog changes the model, the
next run uses the new one. A runtime handed in (tests: a scripted model) is kept as it is.

Every runtime is built on a worker thread, never on the GUI thread: the first one imports the
agent runtime with LangChain and LangGraph (about a second), which the window does not wait for
at start (`before_start`: once the window is up). A model that loads in this process (llama.cpp:
seconds to read the GGUF file) says so: the picker says "loading model…" and the chat asks to
send again once it is loaded; a message sent while another model is being built waits for it
(`loaded`). Models picked by hand are remembered (workbench.ui.gui_state) so the model menu lists
them again.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from workbench.agents.errors import BackendError
from workbench.core.context import AppContext
from workbench.ui.chat.surface import ChatSurface, Spawn
from workbench.ui.gui_state import remember_model

if TYPE_CHECKING:
    from workbench.agents.runtime import AgentRuntime

LOADS_IN_PROCESS = "llamacpp:"  # specs whose runtime reads a model file: seconds, said so


# One runtime is built at a time: two builds at once import the same libraries (LangChain,
# llama.cpp's bindings) from two threads, which crashed the interpreter in tests.
_BUILDING = threading.Lock()


def make_runtime(context: AppContext, spec: str) -> AgentRuntime:
    """The runtime for `spec`; blocking (imports LangChain the first time): call it off-thread."""
    with _BUILDING:
        from workbench.agents.runtime import AgentRuntime

        return AgentRuntime(context, spec)


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
        before_start: Callable[[], Awaitable[object]] | None = None,
    ) -> None:
        self.context = context
        self.surface = surface
        self.spawn = spawn
        self.keeper = RuntimeKeeper()
        self.problem = ""  # why the wanted model cannot be used, for the engineer
        self.from_settings = from_settings
        self.loading = ""  # the spec being built on a worker thread
        self.on_loaded: Callable[[], None] | None = None  # called when a load finished
        self.before_start = before_start  # awaited before the settings' model is built
        self._load_done: asyncio.Event | None = None  # set when the load under way ends
        self.failed = ""  # the spec whose build failed last: not retried at every message

    @property
    def runtime(self) -> AgentRuntime | None:
        return self.keeper.runtime

    def use(self, runtime: AgentRuntime) -> None:
        """Talk through `runtime`; the chat closes it when it is replaced or the chat is gone."""
        self.keeper.replace(runtime)
        self.problem = ""
        self.surface.show_model(runtime.model_spec)

    def _cannot_use(self, spec: str, error: Exception) -> None:
        self.problem = f"The model {spec!r} cannot be used: {error}"
        self.surface.show_model(spec, self.problem)

    def start(self, spec: str) -> None:
        """The settings' model at start, built off the GUI thread once the window is up."""
        self._load_later(spec, picked=False, wait=self.before_start)

    def choose(self, spec: str) -> None:
        """The engineer picked another model: remembered in settings, used from the next run."""
        try:
            self.context.settings.model = spec
        except ValueError as error:
            self.surface.error(f"{spec!r} is not a model name the settings accept: {error}")
            return
        self._load_later(spec, picked=True)  # a model still loading is no longer wanted

    @property
    def reads_file(self) -> bool:
        """The model being loaded reads a model file (seconds): the chat asks to send later."""
        return self.loading.startswith(LOADS_IN_PROCESS)

    def _load_later(
        self, spec: str, *, picked: bool, wait: Callable[[], Awaitable[object]] | None = None
    ) -> None:
        self.loading = spec
        self.problem = ""
        if self._load_done is not None:
            self._load_done.set()  # whoever waited for the previous model stops waiting
        self._load_done = asyncio.Event()
        if spec.startswith(LOADS_IN_PROCESS):
            self.surface.show_model(spec, loading=True)
            self.surface.note(f"Loading {spec} (a few seconds)…")
        else:
            self.surface.show_model(spec)
        self.spawn(self._build_off_thread(spec, picked, wait), name="chat:load-model")

    async def loaded(self) -> AgentRuntime | None:
        """The runtime once the load under way has ended (None if it failed or was replaced)."""
        done = self._load_done
        if self.loading and done is not None:
            await done.wait()
        return None if self.loading else self.runtime

    async def _build_off_thread(
        self, spec: str, picked: bool, wait: Callable[[], Awaitable[object]] | None
    ) -> None:
        done = self._load_done
        try:
            if wait is not None:
                await wait()
            if self.loading == spec:
                await self._build(spec, picked)
        finally:
            if done is not None and self._load_done is done:
                done.set()

    async def _build(self, spec: str, picked: bool) -> None:
        try:
            runtime = await asyncio.to_thread(make_runtime, self.context, spec)
        except (BackendError, ValueError, OSError) as error:
            if self.loading == spec:
                self.loading, self.failed = "", spec
                if self.surface.alive():
                    self._cannot_use(spec, error)
                    self.surface.error(self.problem)
            return
        if self.loading != spec or not self.surface.alive():  # another pick, or the chat closed
            runtime.close()
            return
        self.loading = self.failed = ""
        self.use(runtime)
        if picked:
            self._chosen(spec)
        elif spec.startswith(LOADS_IN_PROCESS):
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
        stale = runtime is not None and runtime.model_spec != wanted != self.failed
        if self.from_settings and stale:  # the settings dialog changed the model
            self._load_later(wanted, picked=False)  # never build a runtime on the GUI thread
            self.problem = f"The model {wanted} is still loading; send again in a moment."
            return None
        return self.runtime
