"""The walkthrough's heartbeat (tests/ui/heartbeat.py) sees a freeze of the GUI thread, names
its step and where the thread was, and does not call a quiet window frozen."""

from __future__ import annotations

import time

from PySide6.QtCore import QTimer
from pytestqt.qtbot import QtBot

from tests.ui.heartbeat import Heartbeat

LIMIT_S = 0.100


def block_the_gui_thread() -> None:
    time.sleep(0.3)  # what a synchronous import or file read on the GUI thread does


def test_a_blocked_gui_thread_is_a_freeze_named_by_its_step(qtbot: QtBot) -> None:
    heartbeat = Heartbeat()
    heartbeat.start()
    heartbeat.step = "quiet"
    qtbot.wait(300)
    heartbeat.step = "blocking"
    QTimer.singleShot(50, block_the_gui_thread)
    qtbot.wait(500)
    heartbeat.stop()

    [freeze] = heartbeat.over(LIMIT_S)
    assert freeze.step == "blocking" and 0.25 < freeze.frozen_s < 1.0, freeze
    assert "block_the_gui_thread" in heartbeat.stalls["blocking"]  # where the thread was
    assert heartbeat.ticks > 30


def test_a_paused_heartbeat_leaves_the_tests_own_work_out(qtbot: QtBot) -> None:
    heartbeat = Heartbeat()
    heartbeat.start()
    qtbot.wait(100)
    with heartbeat.paused():
        block_the_gui_thread()
    qtbot.wait(100)
    heartbeat.stop()
    assert heartbeat.over(LIMIT_S) == [], [str(gap) for gap in heartbeat.longest()]
