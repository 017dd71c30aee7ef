"""Slurm over SSH: batch scripts, a client of the Slurm commands, and the job tracker."""
