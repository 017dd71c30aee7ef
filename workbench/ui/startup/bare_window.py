"""The baseline of the start-up benchmark: the least a PySide6 window costs on this machine.

`python -m workbench.ui.startup.bare_window` opens a QMainWindow with one label and, with
WORKBENCH_REPORT_INTERACTIVE set, reports and quits exactly as the Workbench window does (the same
hook). It imports nothing of Workbench but that hook.
"""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QApplication, QLabel, QMainWindow

from workbench.ui.startup.interactive import report_when_interactive


def main() -> int:
    app = QApplication(sys.argv)
    window = QMainWindow()
    window.setWindowTitle("Bare PySide6 window")
    window.setCentralWidget(QLabel("A bare PySide6 window"))
    window.resize(640, 400)
    window.show()
    report_when_interactive(app, window)
    return app.exec()


if __name__ == "__main__":
    raise SystemExit(main())
