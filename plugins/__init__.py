"""Built-in plugins, installed with Workbench as `workbench_plugins`; one folder per capability."""
