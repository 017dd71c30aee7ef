"""The app icon: workbench.svg (drawn for Workbench) and workbench-256.png rendered from it
by packaging/render_icon.py. A package so that the files install with the wheel."""
