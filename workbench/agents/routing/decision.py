"""Who gets the request: the prior's ranking and the model's hand-off, combined by one rule.

- The model names the prior's best specialist: CONFIRMED.
- The model names another installed specialist: it OVERRIDES the prior only when the prior is
  unsure between the two, i.e. its score for the model's choice is within OVERRIDE_MARGIN of
  the best; otherwise the prior's choice is KEPT. Why: on the request set the prior alone routes
  87% right and 6 of its 7 misses lead by less than 0.06, while a small local model (the
  embedded SmolLM2-135M) names the right specialist in a third of the requests. Where the prior
  is sure, a different choice by such a model is far more often wrong than right; where the
  prior hesitates, the model, which reads the whole conversation and writes the task, breaks
  the tie.
- The model hands over to no installed specialist (it names an unknown one, its arguments do not
  parse, or it answers in plain text): the prior routes ALONE if its best score reaches
  PRIOR_ALONE_FLOOR, else the model's reply stands (an answer is given; a broken hand-off is
  retried as before). Below the floor a request matches no specialist well ("thanks!", "what
  can you do?"), and answering it is the supervisor's job; above it, a specialist's tools can
  do the work, and a small model's own answer would be made up (the embedded model answered
  "Make a stiffer MBB beam using at most half the material." in plain text).
- No prior (the `dense` extra is missing, a single specialist, a later hand-off of the same
  request such as "then export it"): the MODEL decides, as before the prior existed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from workbench.agents.routing.prior import Ranking

OVERRIDE_MARGIN = 0.05  # cosine similarity; 6 of the prior's 7 misses on the set lead by < 0.06
PRIOR_ALONE_FLOOR = 0.30  # chit-chat ("hello", "thanks!") scores 0.12-0.27 on every specialist

How = Literal["confirmed", "overridden", "kept", "alone", "model"]
CONFIRMED: How = "confirmed"  # model and prior agree
OVERRIDDEN: How = "overridden"  # the model's choice, over an unsure prior
KEPT: How = "kept"  # the prior's choice, over the model's
ALONE: How = "alone"  # the prior's choice: the model's hand-off was unusable
MODEL: How = "model"  # the model's choice: no prior for this hand-off


@dataclass(frozen=True)
class Decision:
    specialist: str  # "" when nobody gets the request (the model tries again)
    how: How
    proposed: str  # the installed specialist the model named ("" if none)
    prior: str = ""  # the prior's best ("" without a prior)
    scores: dict[str, float] = field(default_factory=dict)  # the prior's, rounded


def decide(ranking: Ranking | None, proposed: str) -> Decision:
    """`proposed`: the installed specialist the model's usable hand-off names, or ""."""
    if ranking is None:
        return Decision(proposed, MODEL, proposed)
    best, scores = ranking.top, ranking.rounded()
    if not proposed:
        chosen = best if ranking.top_score >= PRIOR_ALONE_FLOOR else ""
        return Decision(chosen, ALONE, "", best, scores)
    if proposed == best:
        return Decision(best, CONFIRMED, proposed, best, scores)
    score = ranking.score(proposed)
    if score is not None and ranking.top_score - score < OVERRIDE_MARGIN:
        return Decision(proposed, OVERRIDDEN, proposed, best, scores)
    return Decision(best, KEPT, proposed, best, scores)
