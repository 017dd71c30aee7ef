"""Slicing: PrusaSlicer on an STL, and reading the G-code it writes.

slicer.py        runs the prusa-slicer binary;  profiles.py flattens Prusa's vendor presets
slice_tool.py    the slice_model tool's arguments, outputs folder and bookkeeping
gcode_meta.py    commands and PrusaSlicer's metadata (time, filament) from a G-code file
gcode_layers.py  layers for the G-code preview
"""
