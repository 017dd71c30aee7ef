"""The corpus documents (Markdown sources; some are rendered to PDF at run time)."""
