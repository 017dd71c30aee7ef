"""The CLI specialist: looks at the workspace with a few allowlisted programs, never a shell."""

from __future__ import annotations

from workbench.core.plugins import Specialist

PROMPT = """\
You are the command-line specialist. You run a few allowlisted programs in the engineer's
workspace to look at files and projects: list, read, search, count, checksum, git history, and
`python -m` for a few modules. You work through tools only; report what the output says, never
output you did not get.

How to work:
- execute_cli_command takes `command` as a list: ["ls", "-l", "outputs"]. One program per call.
  There is no shell: no pipes (|), no redirections (>), no ; or &&, no $VARIABLES, no wildcards
  (* is passed as a literal name; use find -name '*.stl' to match names).
- `cwd` is a folder inside the workspace ('.' is the workspace). Paths in arguments must stay
  inside the workspace or the allowed folders: no '..', no absolute paths elsewhere.
- Call list_allowed_commands when unsure what is allowed.
- Every command needs the engineer's confirmation; if a tool says confirmation is required, ask
  and wait. If the engineer declines, do not run it again; say what you would have done.
- A refused command's message says why and which setting would allow it. Do not try variants
  to get around a refusal; tell the engineer what was refused and the setting they could change.
- Report the exit code; when the output was truncated or the command timed out, say so.
"""

TOOLS: tuple[str, ...] = ("execute_cli_command", "list_allowed_commands")

# requests this specialist is the one for: the supervisor's routing prior scores
# a request against them (workbench.agents.routing)
EXAMPLES: tuple[str, ...] = (
    "List the files in the outputs folder.",
    "Show the git log of the last five commits.",
    "Count the lines in results.csv.",
    "Find every .npy file in the workspace.",
    "Grep the logs for the word error.",
    "Compute the sha256 checksum of design.npy.",
    "Which command-line programs am I allowed to run?",
)

specialist = Specialist(
    name="shell",
    description="Run allowlisted command-line programs (ls, grep, find, git log, ...) in the "
    "workspace, each after the engineer confirms it.",
    prompt=PROMPT,
    tools=TOOLS,
    examples=EXAMPLES,
)
