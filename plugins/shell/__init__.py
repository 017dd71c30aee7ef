"""Shell: the CLI specialist runs allowlisted programs, never through a shell, each confirmed.

config.py          the settings: allowed programs, python modules, git subcommands, timeout, cap
policy.py          what may run: shell syntax, the allowlist and per-program rules, destructive
                   deletes, paths that leave the workspace (refusals say why and how to allow)
runner.py          running one checked command: own process group, timeout, capped output
events.py          command started / finished, and a person's Stop
specialist.py      the CLI specialist and its tool names
tools/             execute.py (execute_cli_command), allowed.py (list_allowed_commands)
doctor_checks.py   the allowlist in use and where each program is
views/             the command log (Qt)
"""

from workbench.core.plugins import Plugin, ViewSpec
from workbench_plugins.shell.config import ShellSettings
from workbench_plugins.shell.specialist import specialist

plugin = Plugin(
    name="shell",
    title="Shell",
    description="Run allowlisted command-line programs in the workspace, each after confirmation.",
    tools="workbench_plugins.shell.tools:tools",
    specialist=specialist,
    views=(
        ViewSpec(
            name="commands",
            title="Commands",
            factory="workbench_plugins.shell.views:command_log",
            shows=("execute_cli_command",),
        ),
    ),
    settings=ShellSettings,
    checks="workbench_plugins.shell.doctor_checks:checks",
)
