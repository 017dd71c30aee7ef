"""Rigs start the real services tests need (an X server, sshd, SLURM, ...) and stop them after."""
