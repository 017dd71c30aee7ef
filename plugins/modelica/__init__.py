"""The Modelica plugin: check and simulate models (rumoca embedded, OpenModelica via OMPython),
measure observables, and run repair / generation / tuning tasks against the engineering ledger.

  config.py              the plugin's settings (default backend, library folders, OpenModelica)
  backend_base.py        the Backend interface and results; backends.py picks one by name:
                         rumoca_backend.py (embedded) or omc_backend.py (OpenModelica via OMPython)
  diagnostics.py         backend messages as located diagnostics;  observables.py: settling time...
  harness.py, profiles.py  a task run (Pufibara): workspace, candidates, ledger, limits, submission
  workspace_files.py     a task workspace's files, confined;  run_status.py: what the ledger says
  run_rules.py           limits, token kinds, the public task's fields, the submitted model
  turns.py               what a policy sees each turn, and the turn loop of a scripted policy
  specialist.py          the chat specialist: its prompt and tools
  driver/                a model drives a task run: harness or plain loop (modes.py), run_task.py
                         (headless), background.py (from the chat or the view), task_source.py
  tools/                 files, model check and simulation, observables, ledger tools, tasks.py
  task_packages/         the public task format, contracts, task packages, submission files
  evaluator/             the evaluator's gates I M C S B, its metrics, validation of the task set
                         (the harness's submit checks the public gates, so not in bench/)
  bench/                 the `modelica` suite: cells, direct policies, report, validation
  commands.py            `workbench --headless modelica validate|run`
  views/, events.py      trajectories, editor, the tasks view (Qt), and the events they follow
"""

from workbench.core.plugins import PLOT_GUI_IMPORTS, Plugin, ViewSpec
from workbench_plugins.modelica.config import ModelicaSettings
from workbench_plugins.modelica.specialist import specialist

_VIEWS = "workbench_plugins.modelica.views"

plugin = Plugin(
    name="modelica",
    title="Modelica",
    description=(
        "Check and simulate Modelica models, evaluate observables on trajectories, and keep "
        "candidate designs honest with the engineering ledger."
    ),
    tools="workbench_plugins.modelica.tools:tools",
    specialist=specialist,
    views=(
        ViewSpec(
            "modelica.trajectory",
            "Trajectories",
            f"{_VIEWS}:trajectory_view",
            shows=("simulate", "evaluate_observable"),
            gui_imports=PLOT_GUI_IMPORTS,  # pyqtgraph: its Qt types a module per turn
        ),
        ViewSpec(
            "modelica.editor",
            "Modelica editor",
            f"{_VIEWS}:editor_view",
            shows=("read_file", "write_file", "check_model"),
            gui_imports=PLOT_GUI_IMPORTS,  # pyqtgraph: its Qt types a module per turn
        ),
        ViewSpec(
            "modelica.tasks",
            "Modelica tasks",
            f"{_VIEWS}:task_view",
            shows=("start_modelica_task",),
            gui_imports=PLOT_GUI_IMPORTS,  # pyqtgraph: its Qt types a module per turn
        ),
    ),
    suites="workbench_plugins.modelica.bench:suites",
    commands="workbench_plugins.modelica.commands:commands",
    settings=ModelicaSettings,
)
