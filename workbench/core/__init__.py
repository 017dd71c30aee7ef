"""The Qt-free, LangChain-free core that everything else stands on.

context.py      AppContext: one workspace's paths, settings, bus, store, ledger, jobs, tools
paths.py        where things live on disk (platformdirs, WORKBENCH_HOME)
settings.py     typed settings in TOML;  secrets.py: the keyring, never a file
settings_refusals.py  a refused settings value is left out and named, the rest kept
events.py       the typed event bus (ordered per publisher, delivered outside its lock)
tools.py        Tool, ToolContext: what a plugin declares; tool_errors.py: structured failures
registry.py     ToolRegistry: the one place every call goes through (recorded, confined)
tool_host.py    the part of the app a tool may use (what the registry depends on)
files.py        file confinement: the workspace and allowed folders; open_checked opens no link
jobs.py         worker-process jobs: progress, cancel, warm workers
store.py        the workspace's SQLite store (WAL) and its migrations.py
ledger/         the engineering ledger (candidates, invariants, evidence, submissions)
plugins.py      plugin discovery through entry points;  doctor.py: `workbench --headless doctor`
minilm.py       the offline sentence model, one copy per process (routing prior, retrieval)
"""

# Load pydantic whole before anything else can: PySide6's import hook, when a plugin's views module
# is the first import, otherwise interleaves with pydantic's lazy imports and breaks them.
import pydantic.fields  # noqa: F401
