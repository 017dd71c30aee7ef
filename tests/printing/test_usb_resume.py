"""The pieces behind a safe USB resume and the lost-`ok` watchdog, without a printer.

What the streamed file told the printer (gcode_state), the plans that restore it (resume_plan),
the ledger's lost-ok bookkeeping (serial_protocol) and the watchdog's timing rules.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench_plugins.printing.usb.gcode_state import GcodeState, read_print, state_before
from workbench_plugins.printing.usb.link_watchdog import LinkWatchdog
from workbench_plugins.printing.usb.resume_plan import (
    Motion,
    layer_plan,
    park_commands,
    reconnect_plan,
    unpark_commands,
)
from workbench_plugins.printing.usb.serial_protocol import LineLedger, Outgoing

LAYERED = """\
M104 S215
M140 S60
G28 W
G90
M83
M201 X1000 Y1000
G1 Z0.2 F720
;LAYER_CHANGE
;Z:0.2
G1 X10 Y10 F3000
G1 X20 Y10 E1.5 F1200 ; perimeter
M106 S128
;LAYER_CHANGE
;Z:0.4
G1 Z0.4 F720
G1 X20 Y20 E1.0
G92 E0
G91
G1 X-5 E0.5
"""


def followed(commands: list[str]) -> GcodeState:
    state = GcodeState()
    for command in commands:
        state.apply(command)
    return state


def test_the_state_follows_modes_positions_temperatures_fan_and_settings() -> None:
    state = followed(LAYERED.splitlines())
    assert (state.absolute_xyz, state.relative_e, state.e_relative) == (False, True, True)
    assert (state.x, state.y, state.z) == (15.0, 20.0, 0.4)  # G91 made the last move relative
    assert state.e == pytest.approx(0.5)  # G92 E0, then +0.5
    assert (state.nozzle, state.bed, state.fan, state.feed) == (215.0, 60.0, 128, 720.0)
    assert state.settings == {"M201": "M201 X1000 Y1000"} and state.homed


def test_e_is_absolute_after_m82_and_g92_sets_it() -> None:
    state = followed(["M82", "G1 X1 E5", "G1 X2 E7", "G92 E1", "G1 X3 E2", "M107"])
    assert state.e == 2.0 and not state.e_relative and state.fan == 0


def test_prusa_firmware_keeps_relative_e_across_g90() -> None:
    assert followed(["M83", "G91", "G90"]).e_relative


def test_layers_come_from_markers_or_else_from_heights(tmp_path: Path) -> None:
    marked = tmp_path / "marked.gcode"
    marked.write_text(LAYERED)
    commands, layers = read_print(marked)
    assert [(layer.number, layer.z, commands[layer.index]) for layer in layers] == [
        (1, 0.2, "G1 X10 Y10 F3000"),
        (2, 0.4, "G1 Z0.4 F720"),
    ]
    bare = tmp_path / "bare.gcode"
    bare.write_text("".join(line + "\n" for line in commands))  # comments gone
    _, found = read_print(bare)
    assert [(layer.number, layer.z) for layer in found] == [(1, 0.2), (2, 0.4)]
    assert commands[found[1].index] == "G1 Z0.4 F720"


def test_a_reconnect_plan_heats_lifts_homes_xy_returns_and_restores_in_that_order() -> None:
    state = followed(LAYERED.splitlines()[:11])  # on layer 1, fan not yet on
    plan = reconnect_plan(state, line=10, layer=1, motion=Motion())
    assert plan.commands == [
        "M140 S60",
        "M104 S215",
        "G91",
        "G1 Z2 F720",
        "G90",
        "M190 S60",
        "M109 S215",
        "G28 X Y",
        "G1 X20 Y10 F3000",
        "G1 Z0.2 F720",
        "G92 E1.5",
        "G90",
        "M83",
        "M107",
        "G1 F1200",
    ]
    assert plan.line == 10 and "home X and Y only" in " ".join(plan.steps)


def test_a_layer_plan_declares_z_before_moving_and_replays_forgotten_settings(
    tmp_path: Path,
) -> None:
    path = tmp_path / "part.gcode"
    path.write_text(LAYERED)
    commands, layers = read_print(path)
    at_start = state_before(commands, layers[1].index)
    plan = layer_plan(layers[1], at_start, declared_z=0.2, motion=Motion())
    declare = plan.commands.index("G92 Z0.2")
    assert plan.commands[:declare] == ["M140 S60", "M104 S215"]
    assert plan.commands[declare + 1 : declare + 4] == ["G91", "G1 Z2 F720", "G90"]
    assert plan.commands.index("M109 S215") < plan.commands.index("G28 X Y")
    assert "M201 X1000 Y1000" in plan.commands
    assert plan.commands[-6:] == ["G1 Z0.4 F720", "G92 E1.5", "G90", "M83", "M106 S128", "G1 F1200"]
    assert (plan.layer, plan.z, plan.line) == (2, 0.4, layers[1].index)
    assert plan.offer("the printer restarted")["steps"] == plan.steps


def test_unpark_goes_back_exactly_where_park_left() -> None:
    state = followed(["G90", "M82", "G1 X30 Y40 Z5 E12 F1500"])
    motion = Motion(park_xy=(0.0, 200.0), park_lift_mm=10.0, retract_mm=1.0)
    assert park_commands(state, motion) == [
        "M83",
        "G1 E-1 F2100",
        "G90",
        "G1 Z15 F720",
        "G1 X0 Y200 F3000",
    ]
    back = unpark_commands(state, motion)
    assert back[:5] == ["G90", "G1 X30 Y40 F3000", "G1 Z5 F720", "M83", "G1 E1 F2100"]
    assert back[5:] == ["G92 E12", "G90", "M82", "M107", "G1 F1500"]


def test_a_released_line_is_presumed_until_the_next_ok_proves_it() -> None:
    ledger = LineLedger(window=1)
    first = Outgoing("G1 X1", 0)
    ledger.sent(ledger.assign(first))
    assert ledger.credits == 0
    assert ledger.release_oldest() is first and ledger.credits == 1
    poke = Outgoing("M105")
    ledger.sent(ledger.assign(poke))
    assert ledger.acknowledge() == [first, poke]  # line 2 accepted: line 1 had arrived


def test_a_released_line_the_printer_asks_again_is_not_presumed() -> None:
    ledger = LineLedger(window=1)
    ledger.sent(ledger.assign(Outgoing("G1 X1", 0)))
    ledger.release_oldest()
    ledger.sent(ledger.assign(Outgoing("M105")))
    ledger.refuse_oldest()  # "Error: expected line 1 got 2"
    assert ledger.request_resend(1)
    assert ledger.acknowledge() == []  # the ok after the resend request confirms nothing
    assert ledger.resend_next() == (1, "G1 X1")


def test_the_watchdog_waits_for_busy_printers_and_long_commands_but_not_forever() -> None:
    dog = LinkWatchdog(timeout_s=10, long_timeout_s=100, max_timeouts=2)
    start = dog.last_ok
    assert not dog.due("G1 X5", start, now=start + 9)
    assert dog.due("G1 X5", start, now=start + 11)
    dog.last_busy = start + 8  # `busy: processing` keeps a long move alive
    assert not dog.due("G1 X5", start, now=start + 11)
    dog.last_line = start + 50  # a heat-up reporting temperatures
    assert not dog.due("M109 S215", start, now=start + 55)
    assert dog.due("M109 S215", start, now=start + 61)  # silent for more than timeout_s
    dog.last_line = start + 150
    assert dog.due("M190 S60", start, now=start + 151)  # over long_timeout_s without an ok
    assert [dog.timed_out() for _ in range(3)] == [False, False, True]
    dog.answered()
    assert not dog.timed_out()
