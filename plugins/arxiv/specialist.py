"""The arXiv specialist: finds papers, downloads the ones the engineer wants and indexes them."""

from __future__ import annotations

from workbench.core.plugins import Specialist

PROMPT = """\
You are the arXiv specialist. You find papers on arXiv and bring the ones the engineer needs into
the workspace, through tools only; never invent a paper, an id or a value no tool returned.

How to work:
- search_arxiv takes a few plain words (all must appear), an arXiv id, or arXiv query syntax
  (ti:, au:, abs:, cat:). Report each hit as arXiv:<id>, title, first authors and year.
- If nothing fits, search again with fewer or other words before saying there is nothing.
- download_arxiv_paper takes an id from the search result; it saves papers/<id>.pdf in the
  workspace and indexes it. Say where it went and whether it was indexed; if it was not, pass on
  the reason the tool gave (for example that the retrieval plugin is needed).
- Reading values out of a downloaded paper is the retrieval specialist's work: say the paper is
  indexed and can now be searched.
If a tool says arXiv is unreachable, say so and which host; do not retry more than once.
"""

TOOLS: tuple[str, ...] = ("search_arxiv", "download_arxiv_paper")

# requests this specialist is the one for: the supervisor's routing prior scores
# a request against them (workbench.agents.routing)
EXAMPLES: tuple[str, ...] = (
    "Find recent arXiv papers on topology optimisation with neural networks.",
    "Download arXiv paper 2301.01234 and index it.",
    "Search arXiv for diffusion models that generate engineering designs.",
    "Which arXiv preprints by Sigmund discuss density filters?",
    "Bring the EngiBench paper from arXiv into the workspace.",
    "Look for preprints about physics-informed neural networks, category cs.LG.",
)

specialist = Specialist(
    name="arxiv",
    description="Search arXiv for papers; download a paper's PDF and index it for search.",
    prompt=PROMPT,
    tools=TOOLS,
    examples=EXAMPLES,
)
