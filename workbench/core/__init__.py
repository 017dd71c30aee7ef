"""The Qt-free, LangChain-free core.

Settings, secrets, events, tools, plugins, store, ledger, jobs.
"""
