"""Events from any thread, handled on the GUI thread, in the order they were published.

`gui_deliver` is the `deliver` function handed to `EventBus.subscribe`: it emits a signal through a
queued connection, so the handler runs later on the GUI thread. One queue serves every subscriber,
which keeps publication order across event types (a JobStarted is never handled after its
JobFinished).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, Qt, Signal, Slot

from workbench.core.events import Event, EventBus

log = logging.getLogger(__name__)
E = TypeVar("E", bound=Event)


class _GuiBridge(QObject):
    """Lives on the GUI thread; `posted` is emitted from any thread and handled there."""

    posted = Signal(object, object)

    def __init__(self) -> None:
        super().__init__()
        self.posted.connect(self._run, Qt.ConnectionType.QueuedConnection)

    @Slot(object, object)
    def _run(self, handler: Callable[[Any], None], event: Any) -> None:
        try:
            handler(event)
        except Exception:  # one broken handler must not take the window down
            log.exception("GUI handler %r failed on %r", handler, event)


_bridge: _GuiBridge | None = None
_bridge_lock = threading.Lock()


def _gui_bridge() -> _GuiBridge | None:
    """The bridge of the running QApplication; None once the application is gone."""
    global _bridge
    with _bridge_lock:
        if _bridge is None or not shiboken6.isValid(_bridge):
            application = QCoreApplication.instance()
            if application is None:
                return None
            bridge = _GuiBridge()
            if bridge.thread() != application.thread():
                bridge.moveToThread(application.thread())
            _bridge = bridge
        return _bridge


def gui_deliver(handler: Callable[[Any], None], event: Any) -> None:
    """EventBus `deliver`: queue `handler(event)` for the GUI thread; never blocks the publisher."""
    bridge = _gui_bridge()
    if bridge is None:  # the application has quit; late events (a job ending) have no audience
        log.debug("dropped %r: no QApplication", event)
        return
    bridge.posted.emit(handler, event)


def subscribe_in_gui(
    bus: EventBus, event_type: type[E], handler: Callable[[E], None], owner: QObject
) -> Callable[[], None]:
    """Subscribe `handler` for as long as `owner` lives; it runs on the GUI thread.

    An event already queued when `owner` is deleted is dropped instead of reaching a dead widget.
    """
    if _gui_bridge() is None:  # created here, on the GUI thread, before any worker publishes
        raise RuntimeError("subscribe_in_gui needs a QApplication; create it first.")

    def guarded(event: E) -> None:
        if shiboken6.isValid(owner):
            handler(event)

    unsubscribe = bus.subscribe(event_type, guarded, gui_deliver)
    owner.destroyed.connect(lambda *_: unsubscribe())
    return unsubscribe
