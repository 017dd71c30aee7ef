"""The supervisor's routing prior: a request scored against each specialist's description and
examples with the offline MiniLM embedder, confirmed or overridden by the model by one rule.

embedder.py   all-MiniLM-L6-v2 from the `dense` extra, loaded once per process
prior.py      RoutingPrior.rank(request, specialists) -> Ranking; default_prior()
decision.py   decide(ranking, proposed) -> Decision: the rule and why
requests.toml the request set (one-line requests, each with the one specialist that can do it),
              measured by `python -m workbench.agents.routing_measure` (beside this package)
"""

from workbench.agents.routing.decision import Decision, decide
from workbench.agents.routing.prior import Ranking, RoutingPrior, default_prior

__all__ = ["Decision", "Ranking", "RoutingPrior", "decide", "default_prior"]
