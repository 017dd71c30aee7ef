"""The evaluator of the Modelica Agent Workflow Benchmark: PASS = I and M and C and S and B.

  gates.py      the checks of each gate, in words (shared by the evaluator and submit)
  metrics.py    behaviour metrics measured with the observables' code
  verdict.py    `evaluate(package, submission, backend=, work_dir=) -> Verdict`, `evaluate_missing`
  public.py     `public_problems(task, content, backend)`: what submit may tell the agent
  validate.py   evaluator validation over every package (`workbench --headless modelica validate`)

Imports the task formats (task_packages/) and never the harness: the harness imports this.
"""

from workbench_plugins.modelica.evaluator.gates import GateResult
from workbench_plugins.modelica.evaluator.public import public_problems
from workbench_plugins.modelica.evaluator.verdict import Verdict, evaluate, evaluate_missing

__all__ = ["GateResult", "Verdict", "evaluate", "evaluate_missing", "public_problems"]
