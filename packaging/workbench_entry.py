"""The bundle's program: `workbench` as PyInstaller freezes it (packaging/workbench.spec).

A job worker is this same program started again by multiprocessing (spawn): freeze_support()
makes that process run the job it was started for instead of the command line.
"""

from __future__ import annotations

import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()
    from workbench.cli import main

    sys.exit(main())
