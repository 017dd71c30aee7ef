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


def test_each_model_profile_has_a_line_saying_whether_it_can_run_now(memory_keyring) -> None:
    """Against a fake Ollama (an LLM server cannot run here): a pulled model is ok, a model not
    pulled, a closed server and a cloud profile without its key each fail and say why."""
    from tests.rigs.fake_ollama import FakeOllama
    from workbench.core import secrets
    from workbench.core.doctor import check_model_profiles
    from workbench.core.settings_models import ModelProfile

    server = FakeOllama(models=["qwen3:8b"]).start()
    closed = FakeOllama().start()
    closed.kill()
    try:
        settings = Settings(
            model_profiles=[
                ModelProfile(name="lab", kind="ollama", model="qwen3:8b", base_url=server.url),
                ModelProfile(name="absent", kind="ollama", model="gone:1b", base_url=server.url),
                ModelProfile(name="down", kind="ollama", model="qwen3:8b", base_url=closed.url),
                ModelProfile(
                    name="cloud", kind="openai-compatible", model="m", base_url=server.url
                ),
                ModelProfile(
                    name="keyed", kind="openai-compatible", model="m", base_url=closed.url
                ),
            ]
        )
        secrets.set_secret("model:keyed:api_key", "k")
        lines = {r.name: r for r in check_model_profiles(SimpleNamespace(settings=settings))}  # type: ignore[arg-type]
    finally:
        server.stop()
    assert lines["model profile lab"].level == "ok"
    assert lines["model profile absent"].level == "fail"
    assert "ollama pull gone:1b" in lines["model profile absent"].fix
    assert (
        lines["model profile down"].level == "fail"
        and "does not answer" in lines["model profile down"].detail
    )
    assert "model:cloud:api_key" in lines["model profile cloud"].detail  # no key stored
    assert "does not answer" in lines["model profile keyed"].detail  # key found, server down
