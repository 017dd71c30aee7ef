"""The tests side by side (pytest-xdist: `-n auto --dist loadgroup` in pyproject's addopts), each
rig started once.

A fixture that lives longer than one test (a rig started once per session or module: the real
PrusaLink, the Slurm cluster, the Modelica validation grid, the workflow reference run, ...) is set
up once per worker process. So the tests sharing one go to one worker: an `xdist_group` named
after it. Tests that share two such fixtures join their groups (one group for all of them).

Then the modules with slow tests are handed out first (a stable sort: each module stays whole and
in its order): a long test that starts last ends the run alone while the other workers wait.

Workers must not collide: each test has its own WORKBENCH_HOME and tmp_path (pytest gives each
worker its own base folder), the rigs take free ports, free display numbers (Xvfb) and their own
pseudo-terminals, and the Unix sockets live in folders named after the data folder.
"""

from __future__ import annotations

import pytest

# shared fixtures that are cheap to make again in another worker: not a reason to group tests
# (the sliced cube takes PrusaSlicer ~5 s; grouped, its 19 tests ran ~6 min in one worker)
CHEAP_TO_REPEAT: frozenset[str] = frozenset({"sliced_cube"})


def _shared_fixtures(item: pytest.Item) -> list[str]:
    """The fixtures of ours (defined under tests/) that `item` uses and that outlive a test."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return []
    shared = []
    for name in info.names_closure:
        definitions = info.name2fixturedefs.get(name, ())
        if not definitions or name in CHEAP_TO_REPEAT:
            continue
        fixture = definitions[-1]  # the one that applies to this test
        node = getattr(fixture, "node", None)  # pytest >= 9 (baseid before)
        where = node.nodeid if node is not None else getattr(fixture, "baseid", "")
        if fixture.scope != "function" and where.startswith("tests"):
            shared.append(f"{where.rsplit('/', 1)[-1]}:{name}")
    return shared


def rig_groups(items: list[pytest.Item]) -> dict[str, str]:
    """nodeid -> group name, for the tests that share a fixture outliving a test."""
    parent: dict[str, str] = {}

    def root(key: str) -> str:
        while parent[key] != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    used = {item.nodeid: _shared_fixtures(item) for item in items}
    for fixtures in used.values():
        for fixture in fixtures:
            parent.setdefault(fixture, fixture)
        for other in fixtures[1:]:
            first, second = sorted((root(fixtures[0]), root(other)))
            parent[second] = first  # the name that sorts first names the group
    return {nodeid: root(fixtures[0]) for nodeid, fixtures in used.items() if fixtures}


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups into the test ids
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if getattr(config.option, "loadgroup", False):  # an xdist worker under --dist loadgroup
        groups = rig_groups(items)
        for item in items:
            if item.nodeid in groups:
                item.add_marker(pytest.mark.xdist_group(groups[item.nodeid]))
    # whole modules move (a module's fixtures are set up once only while its tests stay together)
    slow_modules = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_modules)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Fail loudly if xdist did not take the groups (pytest 9.2 ignores the ids xdist 3.8 sets:
    pyproject pins pytest below it), rather than start each rig in every worker unnoticed."""
    if getattr(session.config.option, "loadgroup", False):
        for item in session.items:
            if item.get_closest_marker("xdist_group") and "@" not in item.nodeid:
                raise pytest.UsageError(
                    f"pytest-xdist did not put {item.nodeid} in its group: this pytest and "
                    "pytest-xdist do not work together for --dist loadgroup (see pyproject.toml)"
                )
