"""The trajectories view: every simulation of the workspace, overlaid, any variable plotted.

At opening it lists every simulation the workspace's store holds (also those of earlier
sessions), draws the newest few, and adds each new one as its `SimulationRecorded` event
arrives. A run's trajectories are read from the store when it is first ticked, off the GUI
thread when an asyncio loop is attached. Every variable of the drawn runs is in the variable
list (tick to plot, filter by name); the legend is a column of Qt labels under the plot, so
long run names wrap instead of being cut off.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from workbench.core.store import Store, StoreError
from workbench.ui.async_loop import start_task
from workbench.ui.bridge import subscribe_in_gui
from workbench.ui.plot_theme import ensure_plot_theme
from workbench_plugins.modelica.backend_base import SimulationResult
from workbench_plugins.modelica.events import SimulationRecorded
from workbench_plugins.modelica.views.legend import LegendEntry, PlotLegend
from workbench_plugins.modelica.views.marks import InvariantMarks
from workbench_plugins.modelica.views.stored_runs import (
    read_trajectories,
    run_label,
    stored_simulations,
)

PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2"]
STYLES = [Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine]
SHOWN_AT_OPENING = 3  # the newest stored runs drawn when the view opens; the rest are listed
KEY = Qt.ItemDataRole.UserRole  # a run item's artifact id (None for a run given directly)


class TrajectoryView(QWidget):
    """Runs (one per candidate or scenario) overlaid; pick variables; invariant marks."""

    def __init__(self, context: Any = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("modelica-trajectory-view")
        self.context = context
        self.runs: dict[str, SimulationResult] = {}  # by label: the runs read so far
        self._labels: dict[int, str] = {}  # artifact id -> label, for every listed stored run
        self._loading: set[int] = set()
        ensure_plot_theme()  # before the plot widget exists
        self.plot = pg.PlotWidget()
        self.plot.setObjectName("modelica-trajectory-plot")
        self.plot.showGrid(x=True, y=True, alpha=0.3)
        self.plot.setLabel("bottom", "time", units="s")
        self.marks = InvariantMarks(self.plot)
        self.legend = PlotLegend()
        self.run_list = _check_list("modelica-trajectory-runs")
        self.variable_list = _check_list("modelica-trajectory-variables")
        self.variable_filter = QLineEdit()
        self.variable_filter.setObjectName("modelica-variable-filter")
        self.variable_filter.setPlaceholderText("filter variables")
        self.variable_filter.setClearButtonEnabled(True)
        self.variable_filter.textChanged.connect(self._filter_variables)
        self.run_list.itemChanged.connect(self._run_ticked)
        self.variable_list.itemChanged.connect(lambda *_: self.redraw())
        self._lay_out()
        if context is not None:
            subscribe_in_gui(context.bus, SimulationRecorded, self._on_simulation, self)
            self._list_stored()

    def _lay_out(self) -> None:
        side = QWidget()
        column = QVBoxLayout(side)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(QLabel("Runs"))
        column.addWidget(self.run_list, 1)
        column.addWidget(QLabel("Variables"))
        column.addWidget(self.variable_filter)
        column.addWidget(self.variable_list, 1)
        plot_and_legend = QSplitter(Qt.Orientation.Vertical)
        plot_and_legend.addWidget(self.plot)
        plot_and_legend.addWidget(self.legend)
        plot_and_legend.setStretchFactor(0, 3)
        plot_and_legend.setStretchFactor(1, 1)
        plot_and_legend.setSizes([450, 150])
        splitter = QSplitter()
        splitter.addWidget(side)
        splitter.addWidget(plot_and_legend)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([220, 620])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)

    # -- runs ----------------------------------------------------------------------------------
    def _list_stored(self) -> None:
        """List every stored simulation; draw the newest few."""
        listed = stored_simulations(self.context.store)
        newest = {simulation.artifact_id for simulation in listed[-SHOWN_AT_OPENING:]}
        for simulation in listed:
            self._add_item(simulation.label, simulation.artifact_id, False)
        self._load([artifact_id for artifact_id in self._labels if artifact_id in newest])

    def _on_simulation(self, event: SimulationRecorded) -> None:
        if event.artifact_id is None or not event.ok or event.artifact_id in self._labels:
            return
        candidate = event.candidate_id
        label = run_label(event.sim_id, event.model, candidate, event.scenario, event.artifact_id)
        self._add_item(label, event.artifact_id, False)
        # just written by this process and usually small: read at once, drawn with its event
        self._load([event.artifact_id], in_thread=False)

    def _add_item(self, label: str, artifact_id: int | None, checked: bool) -> str:
        """A run list entry (labels are unique: a repeated one gets its artifact number)."""
        if artifact_id is not None and label in self._item_labels():
            label = f"{label} #{artifact_id}"
        existing = self._find_item(label)
        item = existing or QListWidgetItem(label)
        item.setData(KEY, artifact_id)
        item.setToolTip(label)
        self.run_list.blockSignals(True)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
        if existing is None:
            self.run_list.addItem(item)
        self.run_list.blockSignals(False)
        if artifact_id is not None:
            self._labels[artifact_id] = label
        return label

    def add_run(self, label: str, result: SimulationResult, *, checked: bool = True) -> None:
        """Show a run given directly (not from the store)."""
        self._add_item(label, None, checked)
        self._add_result(label, result)

    def _add_result(self, label: str, result: SimulationResult) -> None:
        self.runs[label] = result
        self.variable_list.blockSignals(True)  # one redraw at the end, not one per variable
        known = set(self._texts(self.variable_list))
        for name in result.series:
            if name in known:
                continue
            variable = QListWidgetItem(name)
            variable.setFlags(variable.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            first = self.variable_list.count() == 0
            variable.setCheckState(Qt.CheckState.Checked if first else Qt.CheckState.Unchecked)
            self.variable_list.addItem(variable)
        self.variable_list.blockSignals(False)
        self._filter_variables(self.variable_filter.text())
        self.redraw()

    def _run_ticked(self, item: QListWidgetItem) -> None:
        artifact_id = item.data(KEY)
        ticked = item.checkState() == Qt.CheckState.Checked
        if ticked and item.text() not in self.runs and artifact_id is not None:
            self._load([int(artifact_id)])  # drawn once read
            return
        self.redraw()

    def _load(self, artifact_ids: list[int], *, in_thread: bool = True) -> None:
        """Read runs' trajectories (in a thread when a loop is attached), tick and draw them."""
        wanted = [a for a in artifact_ids if a not in self._loading]
        if not wanted:
            return
        self._loading.update(wanted)
        store = self.context.store
        if in_thread:
            try:
                start_task(self._read_in_thread(wanted), name="modelica-trajectories")
                return
            except RuntimeError:  # no asyncio loop (a bare widget): read here
                pass
        self._loaded(_read_all(store, wanted))

    async def _read_in_thread(self, artifact_ids: list[int]) -> None:
        results = await asyncio.to_thread(_read_all, self.context.store, artifact_ids)
        if shiboken6.isValid(self):
            self._loaded(results)

    def _loaded(self, results: list[tuple[int, SimulationResult | str]]) -> None:
        for artifact_id, result in results:
            self._loading.discard(artifact_id)
            label = self._labels[artifact_id]
            item = self._find_item(label)
            if item is not None:
                self.run_list.blockSignals(True)
                readable = isinstance(result, SimulationResult)
                item.setCheckState(Qt.CheckState.Checked if readable else Qt.CheckState.Unchecked)
                if not readable:
                    item.setToolTip(f"{label}: {result}")
                self.run_list.blockSignals(False)
            if isinstance(result, SimulationResult):
                self._add_result(label, result)

    # -- variables -----------------------------------------------------------------------------
    def set_variables(self, names: list[str]) -> None:
        self.variable_list.blockSignals(True)
        for index in range(self.variable_list.count()):
            item = self.variable_list.item(index)
            item.setCheckState(
                Qt.CheckState.Checked if item.text() in names else Qt.CheckState.Unchecked
            )
        self.variable_list.blockSignals(False)
        self.redraw()

    def _filter_variables(self, text: str) -> None:
        needle = text.strip().lower()
        for index in range(self.variable_list.count()):
            item = self.variable_list.item(index)
            item.setHidden(bool(needle) and needle not in item.text().lower())

    def checked(self, widget: QListWidget) -> list[str]:
        return [
            widget.item(i).text()
            for i in range(widget.count())
            if widget.item(i).checkState() == Qt.CheckState.Checked
        ]

    # -- invariant marks -----------------------------------------------------------------------
    def mark_window(self, start: float, end: float, label: str = "") -> None:
        self.marks.window(start, end, label)

    def mark_bound(self, value: float, label: str = "", colour: str = "#b00020") -> None:
        self.marks.bound(value, label, colour)

    def mark_invariant(self, name: str, condition: dict[str, Any], observable: dict | None) -> None:
        self.marks.invariant(name, condition, observable)

    # -- drawing -------------------------------------------------------------------------------
    def redraw(self) -> None:
        for item in list(self.plot.listDataItems()):
            self.plot.removeItem(item)
        entries: list[LegendEntry] = []
        variables = self.checked(self.variable_list)
        shown = [label for label in self.checked(self.run_list) if label in self.runs]
        for run_index, label in enumerate(shown):
            result = self.runs[label]
            for var_index, name in enumerate(variables):
                if name not in result.series:
                    continue
                # a colour per run (runs are many, colours tell them apart best), a dash per
                # variable
                colour = PALETTE[run_index % len(PALETTE)]
                style = STYLES[var_index % len(STYLES)]
                pen = pg.mkPen(colour, width=2, style=style)
                self.plot.plot(result.time, result.series[name], pen=pen)
                entries.append(LegendEntry(f"{name} · {label}", colour, style))
        self.legend.set_entries(entries)

    # -- helpers -------------------------------------------------------------------------------
    def _texts(self, widget: QListWidget) -> list[str]:
        return [widget.item(i).text() for i in range(widget.count())]

    def _item_labels(self) -> set[str]:
        return set(self._texts(self.run_list))

    def _find_item(self, label: str) -> QListWidgetItem | None:
        found = self.run_list.findItems(label, Qt.MatchFlag.MatchExactly)
        return found[0] if found else None


def _read_all(store: Store, artifact_ids: list[int]) -> list[tuple[int, SimulationResult | str]]:
    """Each run's trajectories, or why they could not be read (a person reads it)."""
    results: list[tuple[int, SimulationResult | str]] = []
    for artifact_id in artifact_ids:
        try:
            results.append((artifact_id, read_trajectories(store, artifact_id)))
        except (OSError, ValueError, StoreError) as error:
            results.append((artifact_id, f"its trajectories could not be read ({error})"))
    return results


def _check_list(name: str) -> QListWidget:
    widget = QListWidget()
    widget.setObjectName(name)
    widget.setWordWrap(True)  # long run names wrap instead of running out of the list
    widget.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    return widget
