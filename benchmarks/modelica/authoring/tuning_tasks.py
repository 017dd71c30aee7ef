"""Tuning tasks: a frozen model whose tunable parameters start off-target.

The reference holds the known-valid values; the initial model carries the start values. Public
targets (value_at_time, monotonic, as in the public benchmark files) are computed from the
known-valid run; hidden checks (overshoot, settling, other scenarios) are stated in words in the
acceptance list and measured privately.
"""

from __future__ import annotations

from authoring.models import PI_FIRST_ORDER, RC_LOWPASS, ROOM_HEATING, SPRING_DAMPER, TWO_MASS
from authoring.taskdef import (
    OffTarget,
    TaskDef,
    mono,
    overshoot,
    settle,
    steady,
    vat,
    with_parameter_values,
)

GOAL = (
    "Tune only the tunable parameters, within their ranges, so the model meets the target "
    "metrics; the model structure stays frozen. "
)

TANK_P = """model WbTuneTankLevelP "Tank level under proportional inflow control"
  parameter Real A = 1.5 "tank cross-section [m2]";
  parameter Real k_out = 0.04 "linear outflow coefficient [m2/s]";
  parameter Real h_ref = 2.0 "level setpoint [m]";
  parameter Real Kp = 0.4 "proportional gain [m2/s]";
  parameter Real h0 = 0.5 "initial level [m]";
  Real h(start = h0, fixed = true) "level [m]";
  Real q_in "inflow [m3/s]";
  Real q_out "outflow [m3/s]";
equation
  q_in = max(0, Kp * (h_ref - h));
  q_out = k_out * h;
  A * der(h) = q_in - q_out;
end WbTuneTankLevelP;
"""


def tuning_tasks() -> list[TaskDef]:
    return [*_easy(), *_medium(), *_hard()]


def _easy() -> list[TaskDef]:
    return [
        TaskDef(
            task_id="wb_tuning_electrical_01",
            difficulty="easy",
            model_name="WbTuneRCFilter",
            workflow_goal=GOAL + "Choose the filter capacitance C so the measured step response "
            "of the RC low-pass is reproduced.",
            reference=RC_LOWPASS.replace("WbRCLowPass", "WbTuneRCFilter"),
            tunable={"C": (1e-6, 2e-5)},
            start_values={"C": 1e-5},
            public_targets=[vat("v_out", 0.005), vat("v_out", 0.012), mono("v_out")],
            stop_time=0.03,
            intervals=300,
            acceptance=["v_out meets the value_at_time targets and rises monotonically"],
            variables=["v_out"],
            parameters=["C"],
            metrics=[vat("v_out", 0.004), steady("v_out")],
            off_targets=[
                OffTarget("c_too_large", "time constant 45 % too long", parameters={"C": 6.8e-6})
            ],
        ),
        TaskDef(
            task_id="wb_tuning_control_01",
            difficulty="easy",
            model_name="WbTuneTankLevelP",
            workflow_goal=GOAL + "Choose the proportional gain Kp of the level controller.",
            reference=TANK_P,
            tunable={"Kp": (0.05, 2.0)},
            start_values={"Kp": 0.1},
            public_targets=[vat("h", 2.0), vat("h", 30.0), mono("h")],
            stop_time=30.0,
            intervals=300,
            acceptance=["h meets the value_at_time targets and rises monotonically"],
            variables=["h", "q_in"],
            parameters=["Kp"],
            metrics=[vat("h", 5.0), steady("h"), steady("h", "higher_setpoint")],
            scenarios={"higher_setpoint": {"h_ref": 3.0}},
            off_targets=[OffTarget("gain_too_high", "Kp doubled", parameters={"Kp": 0.8})],
        ),
    ]


def _medium() -> list[TaskDef]:
    suspension = with_parameter_values(
        SPRING_DAMPER.replace("WbMassSpringDamper", "WbTuneSuspension"), {"d": 12.0}
    )
    return [
        TaskDef(
            task_id="wb_tuning_thermal_01",
            difficulty="medium",
            model_name="WbTuneRoomCalibration",
            workflow_goal=GOAL + "Calibrate the room's heat capacity C_room and envelope "
            "conductance G_wall to the logged room temperatures.",
            reference=ROOM_HEATING.replace("WbRoomHeating", "WbTuneRoomCalibration"),
            tunable={"C_room": (1e5, 2e6), "G_wall": (10.0, 200.0)},
            start_values={"C_room": 1e6, "G_wall": 100.0},
            public_targets=[vat("T_room", 3600.0), vat("T_room", 10800.0), vat("T_room", 36000.0)],
            stop_time=36000.0,
            intervals=360,
            acceptance=[
                "T_room meets the logged values; the calibrated room must also predict the "
                "response to other heater powers",
            ],
            variables=["T_room"],
            parameters=["C_room", "G_wall"],
            metrics=[
                vat("T_room", 18000.0),
                mono("T_room"),
                vat("T_room", 36000.0, "strong_heater"),
                vat("T_room", 7200.0, "strong_heater"),
            ],
            scenarios={"strong_heater": {"P_heater": 1500.0}},
            off_targets=[
                OffTarget(
                    "g_off",
                    "capacity right, conductance 20 % low",
                    parameters={"C_room": 5e5, "G_wall": 40.0},
                ),
                OffTarget(
                    "c_off",
                    "conductance right, capacity 60 % high",
                    parameters={"C_room": 8e5, "G_wall": 50.0},
                ),
            ],
        ),
        TaskDef(
            task_id="wb_tuning_mechanical_01",
            difficulty="medium",
            model_name="WbTuneSuspension",
            workflow_goal=GOAL + "Choose spring stiffness k and damping d of a mass-spring-damper "
            "so its step response meets the targets.",
            reference=suspension,
            tunable={"k": (20.0, 400.0), "d": (0.5, 40.0)},
            start_values={"k": 50.0, "d": 2.0},
            public_targets=[vat("x", 0.3), vat("x", 0.6), vat("x", 2.5)],
            stop_time=3.0,
            intervals=600,
            acceptance=[
                "x meets the value_at_time targets; overshoot stays below 15 % and the "
                "response settles quickly",
            ],
            variables=["x", "v"],
            parameters=["k", "d"],
            metrics=[overshoot("x", limit=0.15), settle("x"), steady("x", "double_force")],
            scenarios={"double_force": {"F0": 20.0}},
            off_targets=[
                OffTarget(
                    "underdamped",
                    "right stiffness, damping 1/3: rings far too long",
                    parameters={"k": 100.0, "d": 4.0},
                ),
                OffTarget("too_stiff", "stiffness 50 % high", parameters={"k": 150.0, "d": 12.0}),
            ],
        ),
    ]


def _hard() -> list[TaskDef]:
    return [
        TaskDef(
            task_id="wb_tuning_control_02",
            difficulty="hard",
            model_name="WbTunePIFirstOrder",
            workflow_goal=GOAL + "Tune the PI gains Kp and Ki of the loop around the first-order "
            "plant.",
            reference=PI_FIRST_ORDER.replace("WbPIFirstOrder", "WbTunePIFirstOrder"),
            tunable={"Kp": (0.1, 5.0), "Ki": (0.01, 2.0)},
            start_values={"Kp": 0.3, "Ki": 0.6},
            public_targets=[vat("y", 2.0), vat("y", 3.5), vat("y", 8.0)],
            stop_time=20.0,
            intervals=400,
            acceptance=[
                "y meets the value_at_time targets; overshoot at most 5 %; the loop must keep "
                "this behaviour for other setpoints and a plant gain of 3",
            ],
            variables=["y", "u"],
            parameters=["Kp", "Ki"],
            metrics=[
                overshoot("y", limit=0.05),
                settle("y"),
                steady("y"),
                overshoot("y", "higher_gain", limit=0.05),
                vat("y", 3.5, "higher_gain"),
            ],
            scenarios={"higher_gain": {"K": 3.0}},
            off_targets=[
                OffTarget(
                    "aggressive", "too much gain: overshoots", parameters={"Kp": 2.0, "Ki": 0.8}
                ),
                OffTarget(
                    "integral_heavy",
                    "right Kp, Ki too high: overshoot and ringing",
                    parameters={"Kp": 1.0, "Ki": 0.5},
                ),
            ],
        ),
        TaskDef(
            task_id="wb_tuning_mechanical_02",
            difficulty="hard",
            model_name="WbTuneTwoMassDrive",
            workflow_goal=GOAL + "Identify the shaft stiffness c and damping d_s of an elastic "
            "two-mass drive from its measured twist and load speed.",
            reference=TWO_MASS.replace("WbTwoMassDrive", "WbTuneTwoMassDrive"),
            tunable={"c": (10.0, 500.0), "d_s": (0.01, 2.0)},
            start_values={"c": 20.0, "d_s": 0.02},
            public_targets=[vat("phi_rel", 0.23), vat("phi_rel", 0.27), vat("w2", 2.0)],
            stop_time=5.0,
            intervals=1000,
            acceptance=[
                "phi_rel and w2 meet the value_at_time targets; the identified shaft must also "
                "predict the response with a heavier load",
            ],
            variables=["phi_rel", "w1", "w2"],
            parameters=["c", "d_s"],
            metrics=[
                overshoot("phi_rel"),
                vat("phi_rel", 4.0),
                vat("phi_rel", 0.3),
                vat("phi_rel", 0.3, "heavy_load"),
                vat("w1", 0.3, "heavy_load"),
            ],
            scenarios={"heavy_load": {"J2": 0.1}},
            off_targets=[
                OffTarget(
                    "weak_damping",
                    "right stiffness, damping 1/4",
                    parameters={"c": 50.0, "d_s": 0.05},
                ),
                OffTarget("stiff_shaft", "stiffness doubled", parameters={"c": 100.0, "d_s": 0.2}),
            ],
        ),
    ]
