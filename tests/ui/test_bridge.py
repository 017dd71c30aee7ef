"""Events published on any thread reach GUI handlers on the GUI thread, in publication order."""

from __future__ import annotations

import sys
import threading

import pytest
import shiboken6
from PySide6.QtCore import QObject, QThread, Signal
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from workbench.core.events import EventBus, JobProgress, Notice
from workbench.ui.bridge import subscribe_in_gui


def test_events_from_threads_arrive_on_the_gui_thread_in_order(qtbot: QtBot) -> None:
    bus = EventBus()
    owner = QWidget()
    qtbot.addWidget(owner)
    seen: list[tuple[str, bool]] = []

    def record(event: Notice | JobProgress) -> None:
        on_gui = QThread.currentThread() == QApplication.instance().thread()
        seen.append((event.text if isinstance(event, Notice) else event.message, on_gui))

    subscribe_in_gui(bus, Notice, record, owner)
    subscribe_in_gui(bus, JobProgress, record, owner)

    def publish_from_worker() -> None:
        for number in range(50):
            if number % 2:
                bus.publish(Notice(text=str(number)))
            else:
                bus.publish(JobProgress(job_id="j", message=str(number)))

    worker = threading.Thread(target=publish_from_worker)
    worker.start()
    worker.join()
    assert seen == []  # nothing ran on the publishing thread
    qtbot.waitUntil(lambda: len(seen) == 50)
    assert seen == [(str(number), True) for number in range(50)]


def test_a_deleted_owner_gets_nothing_more(qtbot: QtBot) -> None:
    bus = EventBus()
    owner = QWidget()
    seen: list[Notice] = []
    subscribe_in_gui(bus, Notice, seen.append, owner)
    bus.publish(Notice(text="queued before the owner goes"))
    shiboken6.delete(owner)  # the C++ widget goes now, with that event still queued
    assert not bus._subscriptions  # unsubscribed when destroyed
    bus.publish(Notice(text="after"))
    qtbot.wait(50)
    assert seen == []


class _Emitter(QObject):
    ping = Signal()


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="True is immortal from Python 3.12 on")
def test_the_qt_binding_keeps_reference_counts() -> None:
    """PySide6 6.12.0 drops a reference to True on every Python-side emit(); on Python 3.11 the
    interpreter aborts ("deallocating True or False") after a few thousand signals."""
    emitter = _Emitter()
    before = sys.getrefcount(True)
    for _ in range(200):
        emitter.ping.emit()
    lost = before - sys.getrefcount(True)
    assert lost < 100, (
        f"This PySide6 build lost {lost} references to True in 200 emits and will crash the GUI "
        "on this Python; install pyside6-essentials<6.12 (6.11.3 works) or use Python >= 3.12."
    )
