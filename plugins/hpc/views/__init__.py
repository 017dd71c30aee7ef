"""The HPC plugin's Qt views: the SLURM queue view (the only part of the plugin that imports Qt
besides the benchmark's GUI half in perf.py)."""

from workbench_plugins.hpc.views.factory import queue_view
from workbench_plugins.hpc.views.job_table import JobTableModel
from workbench_plugins.hpc.views.queue_view import QueueView

__all__ = ["JobTableModel", "QueueView", "queue_view"]
