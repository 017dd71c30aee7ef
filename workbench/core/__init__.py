"""The Qt-free, LangChain-free core.

Settings, secrets, events, tools, plugins, store, ledger, jobs.
"""

# Load pydantic whole before anything else can: PySide6's import hook, when a plugin's views module
# is the first import, otherwise interleaves with pydantic's lazy imports and breaks them.
import pydantic.fields  # noqa: F401
