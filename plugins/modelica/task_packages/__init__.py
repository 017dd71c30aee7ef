"""Task packages of the Modelica Agent Workflow Benchmark: formats and loading.

  task_format.py   the PUBLIC task JSON (what an agent sees), validated as the public schema says
  contract.py      the benchmark-owned contract: scenarios, private metrics, known-valid answer,
                   off-target variants (never copied into an agent's workspace)
  packages.py      a task package = task + contract + our component library; loading them
  submissions.py   submission files: submission.json and prediction JSONL (with their aliases)

Nothing here imports the harness: the harness imports the evaluator, which imports this.
"""
