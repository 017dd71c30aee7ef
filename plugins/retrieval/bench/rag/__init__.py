"""The gated RAG suite rag-beams2d (EngiAI Appendix A.2); see suite.py.

suite.py       the tasks (prompts P0-P3 x conditions) and running a cell
prompts.py     the prompts and the values they ask for;  conditions.py  rag, no_rag, empty_rag
policies.py    who plays a cell (the reference, off-target policies, an agent)
scoring.py     the gated scores;  validate.py  the evaluator's validation
report.py      rag-beams2d.html: EngiAI Fig 6 (contributions per prompt, model, condition)
documents.py   the reference documents (sources/) written into a cell's workspace
"""
