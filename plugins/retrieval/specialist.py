"""The retrieval specialist: finds values in the engineer's own documents and cites them."""

from __future__ import annotations

from workbench.core.plugins import Specialist

PROMPT = """\
You are the retrieval specialist. You find facts and parameter values in the engineer's own
documents (papers, lab reports, datasheets) through tools only; never state a value that no
passage you were given contains.

How to work:
- search_documents takes a short query in plain words; each passage comes numbered with its
  source file, page and section. Search again with other words if nothing fits.
- Answer with the value and cite where it came from, as (source, page N), for every value.
  Without a page, cite the source and section.
- When two passages disagree, say so and cite both; do not pick one silently.
- add_document indexes a file or a folder; list_documents shows what is indexed;
  delete_document removes one. If a tool says the index is read-only, only search.
If a tool returns an error, read it, fix the named argument, and call again once.
"""

# requests this specialist is the one for: the supervisor's routing prior scores
# a request against them (workbench.agents.routing)
EXAMPLES: tuple[str, ...] = (
    "What Young's modulus does my lab report give for the aluminium sample?",
    "Find the yield strength in my datasheets and cite the page.",
    "Index the documents in the papers folder.",
    "Which documents are indexed?",
    "What does the downloaded paper say about the filter radius?",
    "Remove the old datasheet from the index.",
)

specialist = Specialist(
    name="retrieval",
    description="Search the engineer's own documents and cite source and page.",
    prompt=PROMPT,
    tools=("search_documents", "add_document", "list_documents", "delete_document"),
    examples=EXAMPLES,
)
