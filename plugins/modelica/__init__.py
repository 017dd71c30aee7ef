"""The Modelica plugin: check and simulate models (rumoca embedded, OpenModelica via OMPython),
measure observables, and run repair / generation / tuning tasks against the engineering ledger.

  backend_base.py        the Backend interface and results; backends.py picks one by name:
                         rumoca_backend.py (embedded) or omc_backend.py (OpenModelica via OMPython)
  diagnostics.py         backend messages as located diagnostics;  observables.py: settling time...
  harness.py, profiles.py  a task run (Pufibara): workspace, candidates, ledger, limits, submission
  workspace_files.py     a task workspace's files, confined;  run_status.py: what the ledger says
  agent.py, specialist.py  the loop that drives a policy through a run; the chat specialist
  tools/                 files, model check and simulation, observables and ledger tools
  views.py, events.py    trajectories and the run's ledger (Qt), and the events they follow
"""

from workbench.core.plugins import Plugin, Specialist, ViewSpec
from workbench_plugins.modelica.settings import ModelicaSettings
from workbench_plugins.modelica.specialist import PROMPT, TOOL_NAMES

_VIEWS = "workbench_plugins.modelica.views"

plugin = Plugin(
    name="modelica",
    title="Modelica",
    description=(
        "Check and simulate Modelica models, evaluate observables on trajectories, and keep "
        "candidate designs honest with the engineering ledger."
    ),
    tools="workbench_plugins.modelica.tools:tools",
    specialist=Specialist(
        name="modelica",
        description="Repairs, writes and tunes Modelica models, proving each claim by simulation.",
        prompt=PROMPT,
        tools=TOOL_NAMES,
    ),
    views=(
        ViewSpec(
            "modelica.trajectory",
            "Trajectories",
            f"{_VIEWS}:trajectory_view",
            shows=("simulate", "evaluate_observable"),
        ),
        ViewSpec(
            "modelica.editor",
            "Modelica editor",
            f"{_VIEWS}:editor_view",
            shows=("read_file", "write_file", "check_model"),
        ),
    ),
    settings=ModelicaSettings,
)
