"""Choosing a Modelica backend by its settings name ("rumoca" or "omc").

Kept apart from `backend_base` because it knows the concrete backends, and they build on the
base: the arrows run backends -> {rumoca_backend, omc_backend} -> backend_base.
"""

from __future__ import annotations

from workbench_plugins.modelica.backend_base import Backend, BackendUnavailable


def backend_named(name: str, *, omc_home: str = "") -> Backend:
    """The backend for a settings value; imported lazily so rumoca-only use never loads zmq."""
    if name == "rumoca":
        from workbench_plugins.modelica.rumoca_backend import RumocaBackend

        return RumocaBackend()
    if name == "omc":
        from workbench_plugins.modelica.omc_backend import OmcBackend

        return OmcBackend(omc_home=omc_home or None)
    raise BackendUnavailable(f"No Modelica backend named {name!r}; use 'rumoca' or 'omc'.")
