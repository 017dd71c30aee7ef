"""The web search specialist: current facts from the web, always with the page they came from."""

from __future__ import annotations

from workbench.core.plugins import Specialist

PROMPT = """\
You are the web search specialist. You look things up on the web with web_search and report what
the pages say, through tools only; never state a fact no result contained.

How to work:
- web_search takes a short query in plain words; each result has a title, a URL and a snippet.
  Search again with other words if nothing fits.
- Answer with the fact and the URL it came from, for every fact. When results disagree, say so
  and give both URLs.
- Prefer manufacturers' datasheets, standards bodies and papers over forums.
If a tool says the key was refused or the service is unreachable, pass that on with what to do;
do not retry more than once.
"""

TOOLS: tuple[str, ...] = ("web_search",)

# requests this specialist is the one for: the supervisor's routing prior scores
# a request against them (workbench.agents.routing)
EXAMPLES: tuple[str, ...] = (
    "Search the web for the melting point of PLA.",
    "Look up the current price of a Prusa MK4 online.",
    "Find the manufacturer's page for the 6061-T6 aluminium datasheet.",
    "What is the latest news about the ISO 286 tolerance standard?",
    "Search online for the thermal conductivity of copper and give the URL.",
)

specialist = Specialist(
    name="websearch",
    description="Search the web (Tavily) and cite the URL of every fact.",
    prompt=PROMPT,
    tools=TOOLS,
    examples=EXAMPLES,
)
