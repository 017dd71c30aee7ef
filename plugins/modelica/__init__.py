"""The Modelica plugin: check and simulate models (rumoca embedded, OpenModelica via OMPython),
measure observables, and run repair / generation / tuning tasks against the engineering ledger."""

from workbench.core.plugins import Plugin, Specialist, ViewSpec
from workbench_plugins.modelica.agent import PROMPT, TOOL_NAMES
from workbench_plugins.modelica.settings import ModelicaSettings

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
        ViewSpec("modelica.trajectory", "Trajectories", f"{_VIEWS}:trajectory_view"),
        ViewSpec("modelica.editor", "Modelica editor", f"{_VIEWS}:editor_view"),
    ),
    settings=ModelicaSettings,
)
