"""Library functions replaced for the calls made in one context only.

Some EngiBench/ceviche behaviour can only be changed through a module-level name the library looks
up at call time: ceviche's sparse solver (``ceviche.primitives.solve_linear``), its port-mode
eigensolver (``ceviche.modes.solver_eigs``) and Photonics2D's Adam loop
(``engibench.problems.photonics2d.v0.adam_optimize``). A :class:`LibraryOverride` puts a thin
dispatcher under such a name while any scope is open (reference-counted; the library's own function
is put back when the last scope closes) and keeps the replacements in a ``ContextVar``:

* a call made inside a scope (its thread, the asyncio tasks and ``asyncio.to_thread`` calls started
  from it, which copy the context) goes through that scope's replacement;
* every other call (another thread, another asyncio task, or after the scope) reaches the library's
  original function, so two runs in one process never see each other's replacements and need no
  lock around the run.

A replacement is a *layer*: ``layer(proceed, *args, **kwargs)``, where ``proceed`` calls the next
layer down (finally the original), so nested scopes compose.

:func:`silenced_stdout` does the same for ``sys.stdout`` (EngiBench and ceviche print progress):
what this context prints is dropped, what other threads and tasks print still comes out.
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

Layer = Callable[..., Any]  # layer(proceed, *args, **kwargs)

__all__ = ["Layer", "LibraryOverride", "library_override", "silenced_stdout"]


class LibraryOverride:
    """Per-context replacement of the function ``module.name``; see the module docstring."""

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name
        self._layers: ContextVar[tuple[Layer, ...]] = ContextVar(f"{module}.{name}", default=())
        self._lock = threading.Lock()  # guards only installing and restoring the name
        self._scopes = 0
        self._original: Callable[..., Any] | None = None

        def dispatcher(*args: Any, **kwargs: Any) -> Any:
            return self._call(self._layers.get(), args, kwargs)

        dispatcher.__name__ = dispatcher.__qualname__ = name
        dispatcher.__doc__ = f"{module}.{name}, or this context's replacement (workbench topopt)."
        self.dispatcher = dispatcher

    def active(self) -> bool:
        """Whether calls made in the current context are replaced."""
        return bool(self._layers.get())

    def original(self) -> Callable[..., Any]:
        """The library's own function (while installed, the one the dispatcher replaced)."""
        if self._original is not None:
            return self._original
        found: Callable[..., Any] = getattr(importlib.import_module(self.module), self.name)
        return found

    @contextmanager
    def layered(self, layer: Layer) -> Iterator[None]:
        """Calls made in this context, until the block ends, go through ``layer``."""
        self._install()
        token = self._layers.set((*self._layers.get(), layer))
        try:
            yield
        finally:
            self._layers.reset(token)
            self._uninstall()

    def _call(
        self, layers: tuple[Layer, ...], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        if not layers:
            return self.original()(*args, **kwargs)
        below = layers[:-1]

        def proceed(*inner_args: Any, **inner_kwargs: Any) -> Any:
            return self._call(below, inner_args, inner_kwargs)

        return layers[-1](proceed, *args, **kwargs)

    def _install(self) -> None:
        module = importlib.import_module(self.module)
        with self._lock:
            if self._scopes == 0:
                current = getattr(module, self.name)
                if current is not self.dispatcher:
                    self._original = current
                setattr(module, self.name, self.dispatcher)
            self._scopes += 1

    def _uninstall(self) -> None:
        module = importlib.import_module(self.module)
        with self._lock:
            self._scopes -= 1
            if self._scopes == 0 and self._original is not None:
                setattr(module, self.name, self._original)


_overrides: dict[tuple[str, str], LibraryOverride] = {}
_overrides_lock = threading.Lock()


def library_override(module: str, name: str) -> LibraryOverride:
    """The one override of ``module.name`` in this process (two would fight over the name)."""
    with _overrides_lock:
        override = _overrides.get((module, name))
        if override is None:
            override = _overrides[(module, name)] = LibraryOverride(module, name)
        return override


_silenced: ContextVar[bool] = ContextVar("topopt_stdout_silenced", default=False)


class _ContextStdout:
    """Stands in for sys.stdout while any silenced scope is open: a silenced context's writes are
    dropped, every other write goes to the stdout it replaced."""

    def __init__(self, replaced: Any) -> None:
        self.replaced = replaced

    def write(self, text: str) -> int:
        return len(text) if _silenced.get() else self.replaced.write(text)

    def flush(self) -> None:
        if not _silenced.get():
            self.replaced.flush()

    def __getattr__(self, name: str) -> Any:  # encoding, isatty, fileno...: the real stream's
        return getattr(self.replaced, name)


class _StdoutSwap:
    """Installs a _ContextStdout while any silenced scope is open (reference-counted)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._scopes = 0
        self._installed: _ContextStdout | None = None

    def open(self) -> None:
        with self._lock:
            if self._scopes == 0:
                self._installed = _ContextStdout(sys.stdout)
                sys.stdout = self._installed
            self._scopes += 1

    def close(self) -> None:
        with self._lock:
            self._scopes -= 1
            installed = self._installed
            if self._scopes == 0 and installed is not None:
                if sys.stdout is installed:  # else someone replaced it since: leave theirs
                    sys.stdout = installed.replaced
                self._installed = None


_STDOUT_SWAP = _StdoutSwap()


@contextmanager
def silenced_stdout() -> Iterator[None]:
    """Drop what this context prints (to sys.stdout) until the block ends."""
    _STDOUT_SWAP.open()
    token = _silenced.set(True)
    try:
        yield
    finally:
        _silenced.reset(token)
        _STDOUT_SWAP.close()
