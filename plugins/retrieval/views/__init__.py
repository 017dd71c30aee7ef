"""The retrieval plugin's Qt view (the only part of the plugin that imports Qt).

backend.py         the index work the view does (no Qt; runs on worker threads)
runner.py          jobs on worker threads, results back on the GUI thread
documents_view.py  the view: documents, add with progress and Cancel, delete, search, a page
search_pane.py     the query, the mode selector and the hits with the query's words marked
passage_pane.py    a hit's page with the hit shaded; "Open in system viewer" (PDFs at the page)
highlight.py       marking query words and finding a passage in its page (no Qt)
factory.py         the view on an app context, following the index's changes and citations
"""

from workbench_plugins.retrieval.views.documents_view import DocumentsView
from workbench_plugins.retrieval.views.factory import VIEW_NAME, documents_view

__all__ = ["VIEW_NAME", "DocumentsView", "documents_view"]
