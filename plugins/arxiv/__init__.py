"""arXiv: search papers and bring one into the workspace's document index.

client.py         the arXiv Atom API and PDF download (httpx, stdlib XML)
tools/            search.py (search_arxiv), download.py (download_arxiv_paper: indexes through
                  add_document when the retrieval plugin provides it), common.py (shared)
specialist.py     the arXiv specialist and its tool names
config.py         settings ([plugins.arxiv]): API and PDF addresses, papers folder, timeouts
doctor_checks.py  does the API answer (which host did not)
"""

from workbench.core.plugins import Plugin
from workbench_plugins.arxiv.config import ArxivSettings
from workbench_plugins.arxiv.specialist import specialist

plugin = Plugin(
    name="arxiv",
    title="arXiv",
    description="Search arXiv; download a paper's PDF into the workspace and index it.",
    tools="workbench_plugins.arxiv.tools:tools",
    specialist=specialist,
    settings=ArxivSettings,
    checks="workbench_plugins.arxiv.doctor_checks:checks",
)
