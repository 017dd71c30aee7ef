"""Start-up time to an interactive window, and its benchmark against a bare PySide6 window.

interactive.py   the hook: with WORKBENCH_REPORT_INTERACTIVE=<file> set, a window that has been
                 painted and whose event loop has run once writes the time since launch there
                 and quits (app.py installs it; nothing happens when the variable is unset)
bare_window.py   the baseline: QApplication + QMainWindow with a label, measured the same way
variables.py     the environment variables between the benchmark and the programs (Qt-free)
page_cache.py    cold starts: evict files from the page cache, count a file's cached pages
display.py       where the windows open: an Xvfb of the benchmark's own, the desktop, offscreen
launch.py        one start of either program in a subprocess, with its report read back
results.py       medians, the JSON file and the Markdown table
Run it with `python -m workbench.ui.startup_benchmark`. Only interactive.py and bare_window.py
import Qt: the benchmark process must not keep Qt's libraries in memory while it evicts them.
"""
