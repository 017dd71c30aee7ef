"""Workbench: a desktop engineering workbench driven by an AI agent, and its headless twin."""

__version__ = "0.1.0"
