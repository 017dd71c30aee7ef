"""The agent runtime (LangGraph supervisor, specialists, model backends) arrives in its own issue.

Plugins already declare their specialist (`workbench.core.plugins.Specialist`); this package will
turn those into graphs.
"""
