"""Issue 14, the window fits: at 1024x700 and 1920x1080, with a long model name whose server does
not answer and a message holding a long path, the model status stays one line on its own row
(elided, whole in its tooltip), the offer stays compact, no word of a chat bubble is wider than
the bubble, and a long model name does not widen the window.

Screenshots in $WORKBENCH_TEST_ARTIFACTS (else tests/artifacts/) under desk/.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from PySide6.QtWidgets import QFrame, QLabel
from pytestqt.qtbot import QtBot

from tests.rigs.fake_ollama import FakeOllama
from tests.support.artifacts import artifact_folder
from workbench.core.context import AppContext
from workbench.ui.chat.cards import MessageBubble
from workbench.ui.elided_label import ElidedLabel
from workbench.ui.main_window import MainWindow

CHECK_TIMEOUT_MS = 30_000
LONG_PATH = (
    "/home/engineer/workbench/workspaces/bridge-study/artifacts/topopt/"
    "beams2d_volfrac0.4_forcedist0.65_rmin4.0_seed0_iteration0200_design.stl"
)
UNBREAKABLE = re.compile("[\\s\u200b]+")  # where a line may break


@pytest.mark.parametrize("size", [(1024, 700), (1920, 1080)], ids=["1024x700", "1920x1080"])
def test_the_chat_fits_with_a_long_model_name_and_a_long_path(
    size: tuple[int, int],
    monkeypatch: pytest.MonkeyPatch,
    open_window: Callable[..., MainWindow],
    qtbot: QtBot,
) -> None:
    server = FakeOllama().start()
    server.kill()  # nothing answers there
    monkeypatch.setenv("OLLAMA_HOST", server.url)
    context = AppContext.open()
    context.settings.model = f"openai:qwen2.5-coder-32b-instruct-q4_K_M@{server.url}/v1"
    try:
        window = open_window(context)
        window.resize(*size)
        panel = window.chat_dock.panel
        offer = window.findChild(QFrame, "model-offer")
        assert offer is not None
        qtbot.waitUntil(offer.isVisible, timeout=CHECK_TIMEOUT_MS)
        bubble = panel.message("Workbench", f"The design is in {LONG_PATH}.", role="workbench")
        qtbot.wait(200)  # laid out and painted
        window.grab().save(str(artifact_folder("desk") / f"chat-{size[0]}x{size[1]}.png"))

        assert window.width() == size[0]  # a long model name did not widen the window
        assert window.minimumSizeHint().width() <= 1024
        status = window.findChild(QLabel, "model-status")
        assert isinstance(status, ElidedLabel)
        assert status.height() < 2 * status.fontMetrics().height()  # one line, never a column
        picker = panel.model_picker
        assert picker.text() == f"Model: {context.settings.model} ▾"  # whole, though elided
        assert context.settings.model in picker.button.toolTip()
        dock_height = window.chat_dock.height()
        assert offer.height() < dock_height / 4, (offer.height(), dock_height)
        assert_no_word_wider_than_its_bubble(bubble)
    finally:
        context.close()


def assert_no_word_wider_than_its_bubble(bubble: MessageBubble) -> None:
    body = bubble.body
    assert body.text() == f"The design is in {LONG_PATH}."  # as given, for copying
    shown = QLabel.text(body)  # what is drawn, with its break opportunities
    metrics, width = body.fontMetrics(), body.contentsRect().width()
    widest = max(metrics.horizontalAdvance(word) for word in UNBREAKABLE.split(shown) if word)
    assert widest <= width, (widest, width)
