"""Events of the HPC plugin (carried by workbench.core.events; no Qt here).

SlurmJobsUpdated lives with the Slurm layer that publishes it (slurm/events.py), so that the
package has no import circle; this module is where the rest of the app finds it.
"""

from __future__ import annotations

from workbench_plugins.hpc.slurm.events import SlurmJobsUpdated

__all__ = ["SlurmJobsUpdated"]
