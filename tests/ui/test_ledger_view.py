"""The ledger view: subjects, candidate x invariant status in colour, readiness, submissions."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtGui import QColor
from pytestqt.qtbot import QtBot

from workbench.core.context import AppContext
from workbench.ui.ledger_view import STATUS_COLOURS, LedgerView


@pytest.fixture
def view(context: AppContext, qtbot: QtBot) -> Iterator[LedgerView]:
    ledger_view = LedgerView(context)
    qtbot.addWidget(ledger_view)
    ledger_view.show()
    qtbot.waitUntil(lambda: not ledger_view._refreshing)
    yield ledger_view
    ledger_view.close()
    qtbot.waitUntil(lambda: not ledger_view._refreshing)


def cell(view: LedgerView, row: int, column: int) -> tuple[str, str]:
    item = view.status_table.item(row, column)
    assert item is not None
    return item.text(), item.background().color().name()


def test_empty_ledger_says_so(view: LedgerView) -> None:
    assert view.subject_box.count() == 0
    assert "ledger is empty" in view.readiness_label.text()


def test_view_follows_ledger_changes(view: LedgerView, context: AppContext, qtbot: QtBot) -> None:
    ledger = context.ledger
    with qtbot.waitSignal(view.refreshed, timeout=5000):
        ledger.define_invariant(
            "bracket", "mass", "mass stays under 2 kg", kind="constraint", observables=["mass"]
        )
        ledger.define_invariant(
            "bracket",
            "stiffness",
            "deflects less than 1 mm",
            kind="behavioural",
            required=False,
        )
        first = ledger.propose("bracket", "density", {"volfrac": 0.3}, label="first try")
        ledger.record_evidence(candidate=first, invariant="mass", adjudication="supported")
        ledger.record_evidence(candidate=first, invariant="stiffness", adjudication="violated")
        second = ledger.propose("bracket", "density", {"volfrac": 0.5}, parent=first)
        ledger.submit(second, override=True, note="deadline")
    qtbot.waitUntil(lambda: view.status_table.rowCount() == 2 and not view._refreshing)

    assert view.subject_box.currentText() == "bracket"
    headers = [view.status_table.horizontalHeaderItem(c).text() for c in range(3)]
    assert headers == ["Ready", "mass", "stiffness"]
    assert view.status_table.horizontalHeaderItem(2).font().italic()  # optional invariant
    assert view.status_table.verticalHeaderItem(0).text() == "first try"
    assert cell(view, 0, 0)[0] == "ready"  # only the required invariant counts
    assert cell(view, 0, 1) == ("supported", QColor(STATUS_COLOURS["supported"]).name())
    assert cell(view, 0, 2) == ("violated", QColor(STATUS_COLOURS["violated"]).name())
    assert cell(view, 1, 0)[0] == "not ready"
    assert cell(view, 1, 1) == ("open", QColor(STATUS_COLOURS["open"]).name())
    assert "not ready" in view.readiness_label.text()  # the newest candidate by default
    view.status_table.selectRow(0)
    assert "is ready" in view.readiness_label.text()

    assert view.submissions_table.rowCount() == 1
    assert view.submissions_table.item(0, 1).text() == second.id[:12]
    assert view.submissions_table.item(0, 3).text() == "overridden"
    assert view.submissions_table.item(0, 4).text() == "deadline"


def test_choosing_a_subject_shows_its_candidates(
    view: LedgerView, context: AppContext, qtbot: QtBot
) -> None:
    context.ledger.propose("alpha", "mesh", {"n": 1})
    context.ledger.propose("beta", "mesh", {"n": 2})
    context.ledger.propose("beta", "mesh", {"n": 3})
    qtbot.waitUntil(lambda: view.subject_box.count() == 2 and not view._refreshing)
    with qtbot.waitSignal(view.refreshed, timeout=5000):
        view.subject_box.setCurrentText("beta")
    assert view.snapshot.subject == "beta"
    assert view.status_table.rowCount() == 2
