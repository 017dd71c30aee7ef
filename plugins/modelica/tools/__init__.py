"""The Modelica tools: workspace files, check and simulate, observables and the task ledger.

Outside a task run, check_model and simulate take any .mo file the user names (the CLI case).
Inside a run (see `harness`), files are confined to the task workspace, candidates follow every
change, and evidence binds to the candidate whose simulation produced it.

- `files`: read_file, write_file (task workspace only)
- `simulation`: check_model, simulate (what to load and which backend: `model_source`)
- `ledger`: evaluate_observable, add_invariant, record_evidence, ledger_status, submit
- `tasks`: start_modelica_task (a model works a task run in the background: `driver`)
"""

from __future__ import annotations

from workbench.core.tools import Tool
from workbench_plugins.modelica.tools.files import file_tools
from workbench_plugins.modelica.tools.ledger import ledger_tools
from workbench_plugins.modelica.tools.simulation import simulation_tools
from workbench_plugins.modelica.tools.tasks import task_tools


def tools() -> list[Tool]:
    """Every Modelica tool, in the order the specialist's tool list names them."""
    return [*file_tools(), *simulation_tools(), *ledger_tools(), *task_tools()]
