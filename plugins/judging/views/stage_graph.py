"""The 8 stages as a dependency graph: a node per stage coloured by its score, an arrow per edge of
the chosen graph (dag, chain or flat), drawn on a QGraphicsScene.

The nodes keep their places whatever the graph, so switching graphs only changes the arrows:

    row 0:        AS ─────────────────── PI
    row 1:  PC               LR                FA
    row 2:        VI ── ES ───────────── AA

(the default DAG's edges never cross a node in this layout; the chain's do not either). Each node
item carries its stage, propagated and raw score as item data (NODE_* keys), each arrow its
(parent, child) pair (EDGE_KEY): what a test or a screen reader asks for.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QWidget,
)

NODE_STAGE, NODE_SCORE, NODE_RAW = 0, 1, 2  # QGraphicsItem.data keys of a node
EDGE_KEY = 3  # QGraphicsItem.data key of an arrow: (parent, child)
PLACES: dict[str, tuple[float, float]] = {  # (column, row), see the module docstring
    "PC": (0, 1),
    "AS": (1, 0),
    "VI": (1, 2),
    "ES": (2, 2),
    "LR": (3, 1),
    "PI": (4, 0),
    "AA": (4, 2),
    "FA": (5, 1),
}
COLUMN_STEP, ROW_STEP = 128.0, 78.0
NODE_W, NODE_H = 88.0, 50.0
UNSCORED = QColor("#d9d9d9")
EDGE_COLOUR = QColor("#505050")
ARROW_SIZE = 8.0


def score_colour(score: float | None) -> QColor:
    """Red at 0, amber at 5, green at 10 (pastel, so the dark text stays readable)."""
    if score is None or math.isnan(score):
        return QColor(UNSCORED)
    share = min(max(score / 10.0, 0.0), 1.0)
    return QColor.fromHsvF(share / 3.0, 0.55, 0.97)


class StageNode(QGraphicsRectItem):
    """One stage: its code, its propagated score, and its raw score below."""

    def __init__(self, stage: str, name: str, centre: QPointF) -> None:
        super().__init__(QRectF(-NODE_W / 2, -NODE_H / 2, NODE_W, NODE_H))
        self.setPos(centre)
        self.setData(NODE_STAGE, stage)
        self.name = name
        self.label = QGraphicsSimpleTextItem(self)
        bold = QFont()
        bold.setBold(True)
        bold.setPointSizeF(10.5)
        self.label.setFont(bold)
        self.detail = QGraphicsSimpleTextItem(self)
        small = QFont()
        small.setPointSizeF(8.0)
        self.detail.setFont(small)
        self.show_scores(None, None, "not graded yet")

    def show_scores(
        self, propagated: float | None, raw: float | None, note: str = "", badge: str = ""
    ) -> None:
        """Colour and label the node; `badge` (two words) shows in it, `note` in its tooltip."""
        stage = str(self.data(NODE_STAGE))
        self.setData(NODE_SCORE, propagated)
        self.setData(NODE_RAW, raw)
        self.setBrush(QBrush(score_colour(propagated)))
        dashed = propagated is None
        self.setPen(
            QPen(EDGE_COLOUR, 1.2, Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine)
        )
        self.label.setText(f"{stage}  {_figure(propagated)}")
        raw_text = f"raw {_figure(raw)}" if raw is not None else ""
        self.detail.setText(badge or raw_text or note or "no score")
        _centre_text(self.label, -9.0)
        _centre_text(self.detail, 11.0)
        tip = [f"{stage}: {self.name}", f"propagated {_figure(propagated)}", f"raw {_figure(raw)}"]
        self.setToolTip("\n".join(tip + ([note] if note else [])))


class StageGraphView(QGraphicsView):
    """The graph of one grading: `show_graph` places nodes and arrows, `show_scores` colours."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("judging-stage-graph")
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setScene(QGraphicsScene(self))
        self.setBackgroundBrush(QBrush(QColor("#ffffff")))
        self.setMinimumHeight(170)
        self.nodes: dict[str, StageNode] = {}
        self.edges: list[QGraphicsPathItem] = []

    def show_graph(
        self, stages: Sequence[tuple[str, str]], parents: Mapping[str, Sequence[str]]
    ) -> None:
        """(Re)draw the stages (code, name) and the arrows parent -> stage; scores are kept."""
        kept = {
            code: (node.data(NODE_SCORE), node.data(NODE_RAW)) for code, node in self.nodes.items()
        }
        scene = self.scene()
        scene.clear()
        self.nodes, self.edges = {}, []
        for index, (code, name) in enumerate(stages):
            column, row = PLACES.get(code, (index, 3))
            node = StageNode(code, name, QPointF(column * COLUMN_STEP, row * ROW_STEP))
            node.setZValue(1)
            scene.addItem(node)
            self.nodes[code] = node
        for child, its_parents in parents.items():
            for parent in its_parents:
                if parent in self.nodes and child in self.nodes:
                    self.edges.append(self._arrow(parent, child))
        for code, (score, raw) in kept.items():
            if code in self.nodes and (score is not None or raw is not None):
                self.nodes[code].show_scores(score, raw)
        scene.setSceneRect(scene.itemsBoundingRect().adjusted(-8, -8, 8, 8))
        self._fit()

    def show_scores(
        self,
        propagated: Mapping[str, float | None],
        raw: Mapping[str, float | None],
        notes: Mapping[str, tuple[str, str]] | None = None,
    ) -> None:
        """Scores per stage; `notes`: stage -> (badge, note) for a stage without a score."""
        for code, node in self.nodes.items():
            badge, note = (notes or {}).get(code, ("", ""))
            node.show_scores(propagated.get(code), raw.get(code), note, badge)

    def clear_scores(self, note: str = "not graded yet") -> None:
        for node in self.nodes.values():
            node.show_scores(None, None, note)

    def edge_pairs(self) -> set[tuple[str, str]]:
        return {tuple(edge.data(EDGE_KEY)) for edge in self.edges}  # type: ignore[misc]

    def _arrow(self, parent: str, child: str) -> QGraphicsPathItem:
        start, end = self.nodes[parent].pos(), self.nodes[child].pos()
        a, b = _border_point(start, end), _border_point(end, start)
        path = QPainterPath(a)
        path.lineTo(b)
        angle = math.atan2(b.y() - a.y(), b.x() - a.x())
        head = QPolygonF(
            [
                b,
                b - QPointF(math.cos(angle - 0.4), math.sin(angle - 0.4)) * ARROW_SIZE,
                b - QPointF(math.cos(angle + 0.4), math.sin(angle + 0.4)) * ARROW_SIZE,
            ]
        )
        path.addPolygon(head)
        path.closeSubpath()
        item = QGraphicsPathItem(path)
        item.setPen(QPen(EDGE_COLOUR, 1.3))
        item.setBrush(QBrush(EDGE_COLOUR))
        item.setData(EDGE_KEY, (parent, child))
        item.setToolTip(f"{child} depends on {parent}")
        item.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, False)
        self.scene().addItem(item)
        return item

    def resizeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        if not self.scene().sceneRect().isEmpty():
            self.fitInView(self.scene().sceneRect(), Qt.AspectRatioMode.KeepAspectRatio)


def _figure(score: float | None) -> str:
    return "-" if score is None else f"{score:.1f}"


def _centre_text(item: QGraphicsSimpleTextItem, y: float) -> None:
    box = item.boundingRect()
    item.setPos(-box.width() / 2, y - box.height() / 2)


def _border_point(centre: QPointF, towards: QPointF) -> QPointF:
    """Where the line from `centre` to `towards` leaves the node's rectangle."""
    dx, dy = towards.x() - centre.x(), towards.y() - centre.y()
    if dx == 0 and dy == 0:
        return QPointF(centre)
    scale = min(
        (NODE_W / 2) / abs(dx) if dx else math.inf,
        (NODE_H / 2) / abs(dy) if dy else math.inf,
    )
    return QPointF(centre.x() + dx * scale, centre.y() + dy * scale)
