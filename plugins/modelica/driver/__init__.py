"""A language model drives a Modelica task run (issue 17), through the agents' turn loop.

modes.py        harness mode (compact context each turn, explicit submit) and the plain loop
                (full history, files/check/simulate only, last model submitted implicitly)
task_source.py  a harness.Task from a task file, an inline task or a brief; the public gates
run_task.py     one run to its end: submission.json and run.json (headless, bench)
background.py   the same in a thread, shown and cancellable in the jobs bar (chat, GUI)
"""
