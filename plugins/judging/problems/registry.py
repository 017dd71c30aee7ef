"""Find the problem families (every module in problems/families/ that defines `FAMILY` or
`FAMILIES`) and make problems by id or as a whole set."""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Iterable
from functools import cache

from workbench_plugins.judging.problems import families as families_package
from workbench_plugins.judging.problems.model import Family, Problem

PROBLEM_ID = re.compile(r"^(?P<family>[a-z0-9_]+)-s(?P<seed>\d+)$")
DEFAULT_SEEDS: tuple[int, ...] = (1, 2, 3)


class UnknownProblem(ValueError):
    """A problem id that is malformed or names no family; the message lists the known families."""


@cache
def families() -> dict[str, Family]:
    """Every family by name, sorted by name (modules imported once)."""
    found: dict[str, Family] = {}
    for module_info in pkgutil.iter_modules(families_package.__path__):
        module = importlib.import_module(f"{families_package.__name__}.{module_info.name}")
        declared: list[object] = []
        if hasattr(module, "FAMILY"):
            declared.append(module.FAMILY)
        declared.extend(getattr(module, "FAMILIES", []))
        for family in declared:
            if not isinstance(family, Family):
                raise TypeError(
                    f"{module.__name__} declares {family!r} as a family; FAMILY and FAMILIES "
                    "must hold problems.model.Family objects"
                )
            if family.name in found:
                raise ValueError(f"two problem families are named {family.name!r}; rename one")
            found[family.name] = family
    return dict(sorted(found.items()))


def problem(problem_id: str) -> Problem:
    """The problem with this id, e.g. "beam_point_load-s3" (family name, "-s", seed)."""
    match = PROBLEM_ID.match(problem_id.strip())
    known = families()
    if match is None:
        raise UnknownProblem(
            f"{problem_id!r} is not a problem id; write '<family>-s<seed>', e.g. "
            f"'{next(iter(known), 'beam_point_load')}-s1'. Families: {', '.join(known)}"
        )
    name = match["family"]
    if name not in known:
        raise UnknownProblem(
            f"no problem family named {name!r}; known families: {', '.join(known)}"
        )
    return known[name].make(int(match["seed"]))


def problem_set(seeds: Iterable[int] = DEFAULT_SEEDS) -> list[Problem]:
    """Every family with every seed, family by family in name order."""
    seed_list = list(seeds)
    return [family.make(seed) for family in families().values() for seed in seed_list]
