"""The four prompts of rag-beams2d (rising retrieval demand, as the spec's P0-P3) and the three
conditions. The targets are the values the reference documents state; the lookups say where a
careful reader finds each one (what the reference policy searches for and reads)."""

from __future__ import annotations

from dataclasses import dataclass

from workbench_plugins.retrieval.bench.rag import documents

CONDITIONS = ("rag", "no_rag", "empty_rag")
CONDITION_ABOUT = {
    "rag": "retrieval tools on an index of the reference documents (read-only)",
    "no_rag": "no retrieval tools",
    "empty_rag": "retrieval tools on an empty index",
}
# The parameters scored, their tolerances and the argument names read for each (spec section 4)
TOLERANCES = {"volfrac": 0.05, "forcedist": 0.05, "rmin": 0.5}
ALIASES = {
    "volfrac": ("volfrac", "volume_fraction", "vol_frac", "volume"),
    "forcedist": ("forcedist", "force_distribution", "force_dist", "forcedistribution"),
    "rmin": ("rmin", "filter_radius", "r_min"),
}
# Beams2D's library defaults: what a model that does not read falls back to
DEFAULTS = {"volfrac": 0.35, "forcedist": 0.0, "rmin": 2.0}
SUFFIX = " Do not ask for clarification; keep every other parameter at its default value."


@dataclass(frozen=True)
class Lookup:
    """Where a parameter's value is stated: passages about `subject` that are not superseded."""

    parameter: str
    query: str
    subject: str  # the passage is about this (a bracket, a campaign, the house default)
    document: str  # the reference document stating the right value (for the record)


@dataclass(frozen=True)
class RagPrompt:
    id: str
    text: str
    targets: dict[str, float]
    lookups: tuple[Lookup, ...]
    distractors: dict[str, float]  # the superseded values the notes state

    @property
    def searches(self) -> tuple[str, ...]:
        """The distinct queries the reference sends, in order."""
        return tuple(dict.fromkeys(lookup.query for lookup in self.lookups))


HOUSE = "house default volume fraction Beams2D"
CB7 = "bracket CB-7 volume fraction force position"
TC3 = "TC-3 cantilever specimens volume fraction filter radius"
PDF_REPORT = documents.REPORT.replace(".md", ".pdf")

PROMPTS: tuple[RagPrompt, ...] = (
    RagPrompt(
        "P0",
        "Our lab's Beams2D design guide states a house default volume fraction. Find it in "
        "the indexed documents and optimise a Beams2D beam with that volume fraction." + SUFFIX,
        {"volfrac": 0.46},
        (Lookup("volfrac", HOUSE, "house default", documents.GUIDE),),
        {"volfrac": 0.55},
    ),
    RagPrompt(
        "P1",
        "Find the volume fraction and the force position that the design guide gives for "
        "bracket CB-7, and optimise a Beams2D design with both values." + SUFFIX,
        {"volfrac": 0.58, "forcedist": 0.62},
        (
            Lookup("volfrac", CB7, "CB-7", documents.GUIDE),
            Lookup("forcedist", CB7, "CB-7", documents.GUIDE),
        ),
        {"volfrac": 0.71, "forcedist": 0.85},
    ),
    RagPrompt(
        "P2",
        "The final report of the cantilever test campaign TC-3 states the volume fraction and "
        "the filter radius its specimens were designed with. Find both and optimise a Beams2D "
        "design with them." + SUFFIX,
        {"volfrac": 0.27, "rmin": 3.7},
        (
            Lookup("volfrac", TC3, "TC-3", PDF_REPORT),
            Lookup("rmin", TC3, "TC-3", PDF_REPORT),
        ),
        {"volfrac": 0.19, "rmin": 5.2},
    ),
    RagPrompt(
        "P3",
        "Optimise a Beams2D design for bracket CB-7 with the volume fraction and force position "
        "from the design guide and the filter radius from the TC-3 campaign report; look all "
        "three up in the indexed documents." + SUFFIX,
        {"volfrac": 0.58, "forcedist": 0.62, "rmin": 3.7},
        (
            Lookup("volfrac", CB7, "CB-7", documents.GUIDE),
            Lookup("forcedist", CB7, "CB-7", documents.GUIDE),
            Lookup("rmin", TC3, "TC-3", PDF_REPORT),
        ),
        {"volfrac": 0.71, "forcedist": 0.85, "rmin": 5.2},
    ),
)
BY_ID = {prompt.id: prompt for prompt in PROMPTS}


def prompt(prompt_id: str) -> RagPrompt:
    if prompt_id not in BY_ID:
        raise KeyError(f"No rag-beams2d prompt {prompt_id!r}; known: {', '.join(BY_ID)}.")
    return BY_ID[prompt_id]
