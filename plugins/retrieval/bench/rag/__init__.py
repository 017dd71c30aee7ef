"""The gated RAG suite rag-beams2d (EngiAI Appendix A.2); see suite.py."""
