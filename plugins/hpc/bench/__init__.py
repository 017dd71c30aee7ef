"""The `hpc-beams2d` bench suite: prompts, scoring (Appendix A.3), policies, validation."""
