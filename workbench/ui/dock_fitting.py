"""How the main window shares its width: the chat is a proper column (a conversation should read
like one: about 36% of the window, never under CHAT_MIN_WIDTH), the ledger what its columns
need, the plugin views (the canvas) the rest.

`dock_widths` is the rule, plain arithmetic on pixel widths that can be tested without a window.
Left to itself Qt gives a growing window's new width to the canvas and takes a shrinking window's
width from the canvas first; `DockFitter` applies the rule to the main window instead, at its
first show, when it is resized and when the ledger's content changes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QMainWindow

CHAT_SHARE = 0.36  # of the window width: ~690 px at 1920
CHAT_MIN_WIDTH = 380  # a readable chat column (and input) in a 1024 px window
CHAT_MAX_WIDTH = 760  # lines longer than this read badly; the canvas profits more
LEDGER_MIN_WIDTH = 360  # room for a few invariants and the submissions before content arrives
LEDGER_MAX_SHARE = 0.32  # the ledger's columns scroll sideways beyond this
CANVAS_MIN_SHARE = 0.35  # the canvas keeps this much; the ledger gives way first, then the chat
SEPARATOR_ROOM = 12  # two dock separators and frames


@dataclass(frozen=True)
class DockWidths:
    chat: int
    ledger: int


@dataclass(frozen=True)
class WidthLimits:
    """The minimum widths Qt enforces (minimumSizeHint) and what the ledger's columns need."""

    chat_minimum: int
    ledger_minimum: int
    ledger_wanted: int
    canvas_minimum: int


def _clamp(value: float, low: int, high: int) -> int:
    return int(max(low, min(high, value)))


def dock_widths(window_width: int, limits: WidthLimits) -> DockWidths:
    """The chat's and the ledger's widths in a window this wide; the canvas keeps the rest."""
    chat_floor = max(limits.chat_minimum, CHAT_MIN_WIDTH)
    chat = _clamp(window_width * CHAT_SHARE, chat_floor, max(chat_floor, CHAT_MAX_WIDTH))
    ledger_target = max(limits.ledger_wanted, LEDGER_MIN_WIDTH)
    ledger = _clamp(ledger_target, limits.ledger_minimum, int(window_width * LEDGER_MAX_SHARE))
    canvas_floor = max(limits.canvas_minimum, int(window_width * CANVAS_MIN_SHARE))
    excess = chat + ledger + canvas_floor + SEPARATOR_ROOM - window_width
    if excess > 0:  # a narrow window: the docks give way, never below what Qt needs
        ledger_gives = min(excess, ledger - limits.ledger_minimum)
        ledger -= ledger_gives
        chat = max(limits.chat_minimum, chat - (excess - ledger_gives))
    return DockWidths(chat=chat, ledger=ledger)


class DockFitter(QObject):
    """Keeps the chat's and the ledger's widths in proportion to the window (and the ledger as
    wide as its columns) until a person drags a dock's edge; from then on the widths are theirs.

    Watches the window's events rather than overriding them: Show for the first widths, Resize
    for later ones, mouse press and release to notice a person dragging a separator (separators
    belong to the main window itself, so their mouse events arrive there).
    """

    def __init__(
        self,
        window: QMainWindow,
        chat: QDockWidget,
        ledger: QDockWidget,
        ledger_wanted: Callable[[], int],
    ) -> None:
        super().__init__(window)
        self.window = window
        self.chat = chat
        self.ledger = ledger
        self.ledger_wanted = ledger_wanted
        self.follows_window = True  # False once the person sized a dock; saved with the layout
        self.layout_restored = False  # a restored layout shows its saved widths first
        self._shown = False
        self._widths_at_press: tuple[int, int] | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)  # after Qt has laid out the new size or content
        self._timer.timeout.connect(self.fit)
        window.installEventFilter(self)

    def limits(self) -> WidthLimits:
        ledger_frame = self.ledger.minimumSizeHint().width()
        if self.ledger.widget() is not None:
            ledger_frame -= self.ledger.widget().minimumSizeHint().width()
        canvas = self.window.centralWidget()
        return WidthLimits(
            chat_minimum=self.chat.minimumSizeHint().width(),
            ledger_minimum=self.ledger.minimumSizeHint().width(),
            ledger_wanted=self.ledger_wanted() + max(0, ledger_frame),
            canvas_minimum=canvas.minimumSizeHint().width() if canvas is not None else 0,
        )

    def fit(self) -> None:
        """Size the chat and the ledger for the window's width now; the canvas keeps the most."""
        widths = dock_widths(self.window.width(), self.limits())
        sides = (Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea)
        docks, sizes = [], []
        for dock, width in ((self.chat, widths.chat), (self.ledger, widths.ledger)):
            area = self.window.dockWidgetArea(dock)
            if not dock.isHidden() and not dock.isFloating() and area in sides:
                docks.append(dock)
                sizes.append(width)
        if docks:
            self.window.resizeDocks(docks, sizes, Qt.Orientation.Horizontal)

    def schedule(self) -> None:
        """Fit soon (coalescing bursts of refreshes and resizes), unless the person has sized."""
        if self.follows_window and self._shown:
            self._timer.start()

    def _dock_widths(self) -> tuple[int, int]:
        return self.chat.width(), self.ledger.width()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt override
        kind = event.type()
        if kind == QEvent.Type.Show and not self._shown:
            self._shown = True
            if not self.layout_restored:
                self.fit()
        elif kind == QEvent.Type.Resize:
            self.schedule()
        elif kind == QEvent.Type.MouseButtonPress:
            self._widths_at_press = self._dock_widths()
        elif kind == QEvent.Type.MouseButtonRelease and self._widths_at_press is not None:
            if self._dock_widths() != self._widths_at_press:
                self.follows_window = False  # the person chose the widths: keep them
            self._widths_at_press = None
        return False  # watching only: the window handles every event as before
