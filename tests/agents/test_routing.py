"""The routing prior on its own: the request set, the rule, and the accuracy that must not drop.

The prior is the real offline MiniLM (the `dense` extra, installed in CI); no language model."""

from __future__ import annotations

import pytest

from tests.rigs.require import require_rig
from workbench.agents.routing.decision import (
    ALONE,
    CONFIRMED,
    KEPT,
    MODEL,
    OVERRIDDEN,
    OVERRIDE_MARGIN,
    PRIOR_ALONE_FLOOR,
    decide,
)
from workbench.agents.routing.embedder import INSTALL, minilm_installed
from workbench.agents.routing.prior import Ranking, RoutingPrior, default_prior
from workbench.agents.routing.requests import request_set
from workbench.agents.routing_measure import declared_specialists, measure_prior, summary

MIN_PRIOR_ACCURACY = 0.80


@pytest.fixture(scope="module")
def prior() -> RoutingPrior:
    require_rig("offline MiniLM", minilm_installed(), INSTALL)
    made = default_prior()
    assert made is not None
    return made


def test_the_request_set_covers_every_specialist_apart_from_their_examples() -> None:
    requests = request_set()
    assert len(requests) >= 40
    specialists = declared_specialists(sorted({r.specialist for r in requests}))
    names = {s.name for s in specialists}
    counts = {name: sum(r.specialist == name for r in requests) for name in names}
    every = {"arxiv", "hpc", "judging", "modelica", "printing", "retrieval", "shell", "topopt"}
    assert every | {"websearch"} <= set(counts) <= names
    assert min(counts.values()) >= 4, counts  # every specialist, not a few
    examples = {e.lower() for s in specialists for e in s.examples}
    assert all(s.examples for s in specialists if s.name in counts)
    assert not [r.text for r in requests if r.text.lower() in examples]  # no answer key
    assert len({r.text for r in requests}) == len(requests)


def test_the_prior_alone_routes_the_request_set(prior: RoutingPrior) -> None:
    requests = request_set()
    specialists = declared_specialists(sorted({r.specialist for r in requests}))
    result = summary(measure_prior(prior, requests, specialists))
    accuracy = result["accuracy"]
    assert isinstance(accuracy, float) and accuracy >= MIN_PRIOR_ACCURACY, result["misses"]


def test_the_prior_ranks_the_issue_request_for_topology_optimisation(prior) -> None:
    specialists = declared_specialists(["websearch"])
    ranking = prior.rank("optimise a 2D beam, volume fraction 0.4, then export an STL", specialists)
    assert ranking.top == "topopt"
    assert ranking.score("topopt") - ranking.score("hpc") >= OVERRIDE_MARGIN
    chit_chat = prior.rank("thanks!", specialists)
    assert chit_chat.top_score < PRIOR_ALONE_FLOOR  # nothing to hand over


RANKING = Ranking((("topopt", 0.50), ("printing", 0.47), ("hpc", 0.30)))


@pytest.mark.parametrize(
    ("ranking", "proposed", "chosen", "how"),
    [
        (RANKING, "topopt", "topopt", CONFIRMED),
        (RANKING, "printing", "printing", OVERRIDDEN),  # the prior hesitates: the model decides
        (RANKING, "hpc", "topopt", KEPT),  # the prior is sure: the model's pick is set aside
        (RANKING, "", "topopt", ALONE),  # no usable hand-off, a clear match
        (Ranking((("topopt", 0.2), ("hpc", 0.1))), "", "", ALONE),  # below the floor: nobody
        (None, "hpc", "hpc", MODEL),
        (None, "", "", MODEL),
    ],
)
def test_the_rule_between_the_prior_and_the_model(ranking, proposed, chosen, how) -> None:
    decision = decide(ranking, proposed)
    assert (decision.specialist, decision.how, decision.proposed) == (chosen, how, proposed)
    if ranking is not None:
        assert decision.prior == ranking.top and decision.scores["topopt"] == ranking.score(
            "topopt"
        )
