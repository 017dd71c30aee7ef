"""The GUI stack (PySide6, pyqtgraph) as a rig: import this module before any Qt import.

`import tests.rigs.gui` skips the importing test module when the GUI extra is missing (a headless
install), and fails it under WORKBENCH_CI=1 (tests/rigs/require.py), where it must be installed.
An import rather than a call, so the Qt imports after it stay ordinary top-of-file imports.
"""

from __future__ import annotations

from tests.rigs.require import require_module

REASON = "the GUI extra is not installed (pip install 'workbench[gui]')"
require_module("PySide6", REASON)
require_module("pyqtgraph", REASON)
