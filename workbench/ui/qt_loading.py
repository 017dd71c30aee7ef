"""`load_qt`: import Qt's bindings without PySide6's scan of every later import.

Importing PySide6 replaces `builtins.__import__` with its own, for `from __feature__ import
snake_case, true_property`. After each new module is imported, on whichever thread imports it and
holding the GIL, that import reads the module's whole source (`inspect.getsource`) to see whether
it mentions PySide6. Workbench selects no feature, so the scan buys nothing, and it cost the GUI
thread most of the 131-155 ms it froze for at the STL view's first opening (pyvistaqt's modules
scanned). Importing pyvista, pyvistaqt, trimesh and scikit-image (1,800 modules) took 2.1-2.4 s
with it and 1.6-1.9 s without. `from __feature__ import ...` still imports, and selects nothing.
"""

from __future__ import annotations

import builtins
import logging

log = logging.getLogger(__name__)


def load_qt() -> None:
    """Import PySide6 and put Python's own import back; call it before the UI's modules load."""
    import PySide6.QtCore  # noqa: F401 - installs PySide6's import

    original = getattr(builtins, "__orig_import__", None)
    if original is None or builtins.__import__ is original:
        return  # a PySide6 without the scan, or already undone
    if builtins.__import__ is not getattr(builtins, "__feature_import__", None):
        log.debug("builtins.__import__ was replaced by something other than PySide6: kept")
        return
    builtins.__import__ = original
