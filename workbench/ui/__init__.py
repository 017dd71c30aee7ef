"""The Qt shell: application, main window, chat panel, docking of plugin views.

Only this package (and plugins' views.py) imports Qt. Nothing here blocks the GUI thread: events
arrive through `workbench.ui.bridge`, I/O runs on the qasync loop, CPU work in job processes.
The chat's logic (`workbench.ui.chat.controller` and its helpers) is Qt-free and tested without Qt.
"""
