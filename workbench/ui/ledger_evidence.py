"""The ledger view's evidence detail: a chosen candidate x invariant cell, in words and as a plot.

The text gives the evidence's observables, measured values, the invariant's condition and the
adjudication; the plot draws the trajectory the evidence was drawn from with the condition's
bound as a dashed line (or a shaded band for target +- tolerance). Everything is read off the
GUI thread (`ledger_evidence_data`); a newer choice wins over a read still under way.
"""

from __future__ import annotations

import asyncio
import html
import time
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from workbench.core.context import AppContext
from workbench.core.ledger import Evidence
from workbench.ui.async_loop import start_task
from workbench.ui.ledger_evidence_data import (
    Bound,
    EvidenceDetail,
    describe_condition,
    read_evidence_detail,
)

if TYPE_CHECKING:  # pyqtgraph (with numpy, 0.3 s) is imported when the first trajectory is shown
    import pyqtgraph as pg

CURVE_COLOUR = "#1f77b4"
BOUND_COLOUR = "#b00020"
BAND_BRUSH = (176, 0, 32, 40)  # the bound colour, faint
MARKER_COLOUR = "#2ca02c"
SHOWN_MEASUREMENTS = 6  # more measurement entries than this are summarised
PLOT_HEIGHT = 240  # the height the pane asks for its plot (the splitter may give it more)


class EvidencePanel(QWidget):
    """Shows one cell's evidence; `show_cell` is cheap, the reading happens in a thread."""

    shown = Signal()

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ledger-evidence")
        self.context = context
        self.detail: EvidenceDetail | None = None
        self.cell: tuple[str, str] | None = None  # (candidate id, invariant name) being shown
        self.curve: pg.PlotDataItem | None = None
        self.bound_items: list[Any] = []  # InfiniteLine and LinearRegionItem, for tests
        self._reading = 0  # the number of the newest read; older ones are dropped

        self.text = QLabel("Choose a cell of the table to see its evidence.")
        self.text.setObjectName("ledger-evidence-text")
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.RichText)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._plot_widget: pg.PlotWidget | None = None  # made when first needed (`plot`)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.addWidget(self.text)

    @property
    def plot(self) -> pg.PlotWidget:
        """The trajectory's plot, made on first use: the window starts without pyqtgraph."""
        if self._plot_widget is None:
            import pyqtgraph as pg

            from workbench.ui.plot_theme import ensure_plot_theme

            ensure_plot_theme()  # before the plot widget exists
            plot = pg.PlotWidget()
            plot.setObjectName("ledger-evidence-plot")
            plot.showGrid(x=True, y=True, alpha=0.3)
            plot.setLabel("bottom", "time", units="s")
            plot.setMinimumHeight(160)
            plot.hide()
            self._layout.addWidget(plot, 1)
            self._plot_widget = plot
        return self._plot_widget

    def sizeHint(self) -> QSize:
        """Room for all of the text and, when there is a trajectory, a readable plot."""
        text = self.text.heightForWidth(max(self.width(), 200))
        text = text if text > 0 else self.text.sizeHint().height()
        shown = self._plot_widget is not None and not self._plot_widget.isHidden()
        plot = PLOT_HEIGHT if shown else 0
        return QSize(super().sizeHint().width(), text + plot)

    # -- reading --------------------------------------------------------------------------------
    def show_cell(self, candidate_id: str, invariant_name: str) -> None:
        self.cell = (candidate_id, invariant_name)
        self.refresh()

    def refresh(self) -> None:
        """Read the chosen cell again (the ledger changed); nothing when no cell is chosen."""
        if self.cell is None:
            return
        self._reading += 1
        start_task(self._read_and_show(self._reading, *self.cell), name="ledger-evidence")

    async def _read_and_show(self, number: int, candidate_id: str, invariant: str) -> None:
        ledger, store = self.context.ledger, self.context.store
        detail = await asyncio.to_thread(
            read_evidence_detail, ledger, store, candidate_id, invariant
        )
        if shiboken6.isValid(self) and number == self._reading:
            self.show_detail(detail)

    # -- painting -------------------------------------------------------------------------------
    def show_detail(self, detail: EvidenceDetail) -> None:
        self.detail = detail
        self.text.setText(describe_detail(detail))
        self._plot(detail)
        self.shown.emit()

    def _plot(self, detail: EvidenceDetail) -> None:
        self.curve, self.bound_items = None, []
        trajectory = detail.trajectory
        if trajectory is None:
            if self._plot_widget is not None:
                self._plot_widget.clear()
                self._plot_widget.hide()
            return
        import pyqtgraph as pg

        self.plot.clear()
        self.plot.show()
        self.plot.setTitle(f"{html.escape(trajectory.variable)} · {trajectory.source}", size="9pt")
        self.plot.setLabel("left", trajectory.variable)
        self.curve = self.plot.plot(
            trajectory.time, trajectory.values, pen=pg.mkPen(CURVE_COLOUR, width=2)
        )
        for bound in detail.bounds:
            self._draw_bound(bound)
        for marker in detail.markers:
            self.plot.plot(
                [marker.time],
                [marker.value],
                pen=None,
                symbol="o",
                symbolBrush=MARKER_COLOUR,
                symbolSize=9,
            )

    def _draw_bound(self, bound: Bound) -> None:
        import pyqtgraph as pg

        angle = 0 if bound.axis == "y" else 90
        if bound.is_band:
            orientation = "horizontal" if bound.axis == "y" else "vertical"
            region = pg.LinearRegionItem(
                (bound.low, bound.high), orientation=orientation, movable=False, brush=BAND_BRUSH
            )
            self.plot.addItem(region)
            self.bound_items.append(region)
        edges = (bound.low, bound.high) if bound.is_band else (bound.low,)
        for index, value in enumerate(edges):
            line = pg.InfiniteLine(
                pos=value,
                angle=angle,
                pen=pg.mkPen(BOUND_COLOUR, width=1.5, style=Qt.PenStyle.DashLine),
                label=bound.label if index == len(edges) - 1 else None,
                labelOpts={"position": 0.85, "color": BOUND_COLOUR},
            )
            self.plot.addItem(line)
            self.bound_items.append(line)


def describe_detail(detail: EvidenceDetail) -> str:
    """The detail in words (rich text, escaped): what was measured, against what, the verdict."""
    invariant = detail.invariant
    if invariant is None:
        return html.escape(detail.problem)
    status = detail.status.status.value if detail.status else "open"
    lines = [
        f"<b>{html.escape(invariant.name)}</b> for candidate {detail.candidate_id[:12]}: "
        f"<b>{status}</b>",
        f"<i>{html.escape(invariant.proposition)}</i>",
        f"Condition: {html.escape(describe_condition(invariant.condition))}",
    ]
    chosen = detail.chosen
    if chosen is not None:
        lines += _evidence_lines(chosen, detail)
        earlier = len(detail.evidence) - 1
        if earlier:
            lines.append(f"({earlier} other evidence record(s) for this cell in the history)")
    if detail.problem:
        lines.append(html.escape(detail.problem))
    return "<br>".join(lines)


def _evidence_lines(evidence: Evidence, detail: EvidenceDetail) -> list[str]:
    when = time.strftime("%H:%M:%S", time.localtime(evidence.created))
    measured = [f"{key} = {value}" for key, value in evidence.measurements.items()]
    if len(measured) > SHOWN_MEASUREMENTS:
        measured = [*measured[:SHOWN_MEASUREMENTS], f"... ({len(measured)} in all)"]
    read_off = [f"{m.variable}({m.time:g}) = {m.value:.6g}" for m in detail.markers]
    lines = [
        f"Evidence #{evidence.id}, scenario {html.escape(evidence.scenario)}, {when}: "
        f"<b>{evidence.adjudication.value}</b>",
        "Observables: " + html.escape(", ".join(evidence.observables) or "none named"),
        "Measured: " + html.escape("; ".join(measured) or "no values recorded"),
    ]
    if read_off:
        lines.append("On the trajectory: " + html.escape("; ".join(read_off)))
    if evidence.note:
        lines.append("Note: " + html.escape(evidence.note))
    return lines
