"""The `retrieval-quality` suite: recall@5 and MRR of the document index on our own corpus.

scoring.py  judging hits against the relevant passages, recall@k and reciprocal rank (pure)
corpus.py   the corpus written into a cell's folder (Markdown, and PDFs rendered from Markdown),
            its sha256s, and the queries with their relevant passages
suite.py    the suite: one cell per search mode, plus an off-target policy; the report's table
sources/    the corpus's own Markdown documents, manifest.json and queries.json (package data)
"""
