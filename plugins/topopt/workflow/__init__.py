"""The EngiAI workflow benchmark on our tools: seven prompt styles on Beams2D, three on
Photonics2D, ground truth optimised offline, the paper's scoring, validation policies, reports.

tasks.py (styles, conditions; draws.py the export parameters, prompts.py the texts) ->
ground_truth.py (cached optimisations) -> policies.py (who plays the calls) -> scoring.py
(sub-scores) -> suite.py (the bench Suite, timing.py its EngiBench clock) -> report.py.
"""
