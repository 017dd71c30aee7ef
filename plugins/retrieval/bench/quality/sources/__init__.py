"""The retrieval-quality bench corpus.

documents/     our own Markdown sources; the manifest says which become PDFs at run time
manifest.json  the documents, their format, and which are outdated or corrected by another
queries.json   the queries and, for each, the relevant passages (document, page or section, phrase)
"""
