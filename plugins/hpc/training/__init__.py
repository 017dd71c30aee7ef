"""Training of small conditional generative models of Beams2D designs, run as a Slurm job."""
