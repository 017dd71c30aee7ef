"""doctor never says "ok" for configured hosts or printers nobody looked at."""

from __future__ import annotations

from types import SimpleNamespace

from workbench.core.doctor import CheckResult, check_configured
from workbench.core.settings import Settings


class LoadedPlugins(list):
    """The shape of context.plugins that check_configured reads: names and failures."""

    def __init__(self, names: list[str], failed: list[str] = ()) -> None:  # type: ignore[assignment]
        super().__init__(SimpleNamespace(name=name) for name in names)
        self.failures = [SimpleNamespace(name=name) for name in failed]


def lines_named(results: list[CheckResult], name: str) -> list[CheckResult]:
    return [result for result in results if result.name == name]


def test_ssh_hosts_without_the_hpc_plugin_are_a_warning_saying_nobody_checked_them() -> None:
    stub = SimpleNamespace(
        settings=Settings(ssh_hosts=["alice@cluster:22"]), plugins=LoadedPlugins(["topopt"])
    )
    [line] = lines_named(check_configured(stub), "ssh hosts")  # type: ignore[arg-type]
    assert line.level == "warn"
    assert "not checked" in line.detail and "HPC plugin" in line.detail
    assert "alice@cluster:22" in line.detail and line.fix


def test_printers_without_the_printing_plugin_are_not_checked() -> None:
    settings = Settings(printers=["/dev/ttyACM0"])
    for failed, why in (([], "is not installed"), (["printing"], "failed to load")):
        stub = SimpleNamespace(settings=settings, plugins=LoadedPlugins(["topopt"], failed))
        [line] = lines_named(check_configured(stub), "printers")  # type: ignore[arg-type]
        assert line.level == "warn" and why in line.detail and "/dev/ttyACM0" in line.detail


def test_nothing_configured_is_ok_and_a_loaded_plugin_reports_its_own() -> None:
    stub = SimpleNamespace(settings=Settings(), plugins=LoadedPlugins([]))
    results = check_configured(stub)  # type: ignore[arg-type]
    assert {(r.name, r.level, r.detail) for r in results} == {
        ("ssh hosts", "ok", "none configured"),
        ("printers", "ok", "none configured"),
    }
    with_printing = SimpleNamespace(
        settings=Settings(printers=["/dev/ttyACM0"]), plugins=LoadedPlugins(["printing"])
    )
    assert lines_named(check_configured(with_printing), "printers") == []  # type: ignore[arg-type]
