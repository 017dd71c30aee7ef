"""Plugin discovery through entry points: a good plugin is used, a broken one is reported."""

from __future__ import annotations

from workbench.bench.runner import load_suites
from workbench.core.context import AppContext
from workbench.core.doctor import run_checks
from workbench.core.plugins import discover, load_reference


def test_sample_plugin_discovered_with_tool_view_and_suite(sample_plugins) -> None:
    found = discover()
    assert {"workspace", "sample"} <= set(found.plugins)
    sample = found.plugins["sample"]
    assert sample.specialist is not None and sample.specialist.tools == ("sample_add",)
    assert [view.name for view in sample.views] == ["sample.counter"]
    app = AppContext.open()
    try:
        assert "sample_add" in app.registry.names()
        assert {"sample", "sample_faulty", "spine"} <= set(load_suites(app))
    finally:
        app.close()


def test_broken_plugin_is_reported_and_skipped(sample_plugins) -> None:
    app = AppContext.open()
    try:
        assert "broken" not in app.plugins.plugins
        [failure] = [f for f in app.plugins.failures if f.name == "broken"]
        assert failure.stage == "import"
        assert "a_dependency_that_is_not_installed" in failure.error
        assert any("'broken'" in notice and "skipped" in notice for notice in app.notices)
        lines = [r.line() for r in run_checks(app)]
        assert any("plugin broken" in line and "fail" in line for line in lines)
        assert app.registry.call("sample_add", {"a": 1, "b": 2}, caller="t").ok  # app still works
    finally:
        app.close()


def test_view_reference_loads_lazily(sample_plugins, monkeypatch) -> None:
    import sys

    # as in a new process: an earlier test in this worker may have opened the view
    monkeypatch.delitem(sys.modules, "wb_sample_plugin.views", raising=False)
    sample = discover().plugins["sample"]
    assert "wb_sample_plugin.views" not in sys.modules  # discovery never imports views
    factory = load_reference(sample.views[0].factory)
    assert factory.__name__ == "CounterView"
