"""The document index, without Qt: load files, cut them into passages, store and search them.

loaders.py     PDF (pypdf, with page numbers), Markdown (with section headings), text, HTML
chunking.py    passages of a few hundred words with overlap; each keeps source, page, section
database.py    the SQLite database in the workspace: documents, passages, FTS5, vectors
adding.py      add a file or a folder (file-level transactions, sha256: resumable, re-index)
embeddings.py  dense embedders: Ollama's /api/embed, the offline all-MiniLM-L6-v2
search.py      keyword (BM25), dense (cosine) and fused (reciprocal rank fusion) search
progress.py    a headless progress bar (rich) for folder imports
"""
