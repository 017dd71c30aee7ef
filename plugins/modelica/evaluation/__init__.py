"""The evaluator of the Modelica Agent Workflow Benchmark: PASS = I and M and C and S and B.

  gates.py      the checks of each gate, in words (shared by the evaluator and submit)
  metrics.py    behaviour metrics measured with the observables' code
  evaluator.py  `evaluate(package, submission, backend=, work_dir=) -> Verdict`, `evaluate_missing`
  public.py     `public_problems(task, content, backend)`: what submit may tell the agent
  validate.py   evaluator validation over every package (`workbench --headless modelica validate`)

Imports the task formats (benchmark/) and never the harness: the harness imports this.
"""

from workbench_plugins.modelica.evaluation.evaluator import Verdict, evaluate, evaluate_missing
from workbench_plugins.modelica.evaluation.gates import GateResult
from workbench_plugins.modelica.evaluation.public import public_problems

__all__ = ["GateResult", "Verdict", "evaluate", "evaluate_missing", "public_problems"]
