"""The `prompt-overhead` suite (suite.py): prompt + tool-schema tokens per model call."""
