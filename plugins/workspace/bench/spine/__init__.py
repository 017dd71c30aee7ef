"""The `spine` suite (suite.py): the registry, event bus and worker jobs against baselines."""
