"""Repair tasks: a clean reference model and the faults injected into it.

Check-stage faults: undeclared name, missing equation, type error, syntax, unknown class or
function. Simulate-stage faults: division by zero, NaN from a regularisation removed, a power
of a negative base at t>0, an unsolvable initial system, a sign error that drains a tank.
"""

from __future__ import annotations

from authoring.models import (
    CART_FRICTION,
    LADDER,
    MOTOR_SPEED,
    PI_FIRST_ORDER,
    RC_LOWPASS,
    RLC_SERIES,
    ROD_CONVECTION,
    ROOM_HEATING,
    ROOM_WALL,
    SPRING_DAMPER,
    TANK_PI,
    TWO_MASS,
)
from authoring.taskdef import OffTarget, TaskDef, bounds, mono, overshoot, settle, steady, vat

GOAL = "Repair the model so that it passes the model check and simulates to the stop time. "


def repair_tasks() -> list[TaskDef]:
    return [
        *_electrical(),
        _electrical_hard(),
        *_mechanical(),
        _mechanical_hard(),
        *_thermal(),
        _thermal_hard(),
        *_control(),
    ]


def _electrical() -> list[TaskDef]:
    return [
        TaskDef(
            task_id="wb_repair_electrical_01",
            difficulty="easy",
            model_name="WbRCLowPass",
            workflow_goal=GOAL + "The RC low-pass filter must keep its values "
            "(R = 1 kOhm, C = 4.7 uF, 5 V step at 2 ms).",
            reference=RC_LOWPASS,
            faults=[("C * der(v_out) = i;", "C * der(vout) = i;")],
            stage="check",
            stop_time=0.03,
            intervals=300,
            acceptance=[
                "checkModel passes and the simulation reaches the stop time",
                "v_out rises monotonically towards the 5 V step with time constant R*C",
            ],
            variables=["v_out", "v_in", "i"],
            parameters=["R", "C", "V_step"],
            metrics=[vat("v_out", 0.0067), vat("v_out", 0.015), steady("v_out"), mono("v_out")],
        ),
        TaskDef(
            task_id="wb_repair_electrical_02",
            difficulty="medium",
            model_name="WbRLCSeries",
            workflow_goal=GOAL + "The series RLC circuit (10 V, 4 Ohm, 10 mH, 100 uF) is "
            "switched on at t = 0; its current and capacitor voltage must stay physical.",
            reference=RLC_SERIES,
            faults=[
                (
                    '  Real v_L "inductor voltage [V]";\n',
                    '  Real v_L "inductor voltage [V]";\n'
                    '  Real R_apparent "apparent resistance v_R/i [Ohm]";\n',
                ),
                ("  V = v_R + v_L + v_C;\n", "  V = v_R + v_L + v_C;\n  R_apparent = v_R / i;\n"),
            ],
            stage="simulate",
            stop_time=0.05,
            intervals=500,
            acceptance=[
                "checkModel passes and the simulation reaches the stop time without "
                "non-finite values",
                "the underdamped ringing of v_C around 10 V is kept",
            ],
            variables=["i", "v_C", "v_R", "v_L"],
            parameters=["V", "R", "L", "C"],
            metrics=[
                vat("v_C", 0.004),
                vat("i", 0.002),
                steady("v_C"),
                overshoot("v_C"),
                vat("v_C", 0.004, "high_damping"),
            ],
            scenarios={"high_damping": {"R": 12.0}},
            off_targets=[
                OffTarget(
                    "no_inductor",
                    "'repairs' by dropping the inductor: an RC charge with no ringing",
                    edits=[
                        ("  v_L = L * der(i);\n", "  v_L = 0;\n"),
                        ("Real i(start = 0, fixed = true)", "Real i"),
                    ],
                ),
            ],
        ),
    ]


def _electrical_hard() -> TaskDef:
    return TaskDef(
        task_id="wb_repair_electrical_03",
        difficulty="hard",
        model_name="WbRCLadder",
        workflow_goal=GOAL + "The two-stage RC ladder is built from the WbLib component "
        "library (library/WbLib.mo, read-only); nominal values R1 = 100 Ohm, C1 = 100 uF, "
        "R2 = 220 Ohm, C2 = 47 uF, 10 V step at 5 ms. It has more than one fault.",
        reference=LADDER,
        faults=[
            ("WbLib.Electrical.Capacitor c2(", "WbLib.Electrical.Capacitr c2("),
            ("WbLib.Electrical.Resistor r2(R = R2);", "WbLib.Electrical.Resistor r2(R = R1);"),
        ],
        stage="check",
        stop_time=0.2,
        intervals=400,
        acceptance=[
            "uses the WbLib components; checkModel passes and the simulation reaches the stop time",
            "v2 lags v1 and both settle at the 10 V step",
        ],
        variables=["v1", "v2"],
        parameters=["R1", "R2", "C1", "C2"],
        metrics=[
            vat("v1", 0.02),
            vat("v2", 0.02),
            vat("v2", 0.06),
            steady("v2"),
            mono("v2"),
            vat("v2", 0.06, "small_c2"),
        ],
        scenarios={"small_c2": {"C2": 2.2e-5}},
        off_targets=[
            OffTarget(
                "single_stage",
                "second stage shorted: v2 follows v1 with no lag",
                edits=[("  connect(r2.n, c2.p);\n", "  connect(r1.n, c2.p);\n")],
            ),
        ],
    )


def _mechanical() -> list[TaskDef]:
    return [
        TaskDef(
            task_id="wb_repair_mechanical_01",
            difficulty="easy",
            model_name="WbMassSpringDamper",
            workflow_goal=GOAL + "The mass-spring-damper (m = 1 kg, k = 100 N/m, d = 4 Ns/m) "
            "receives a 10 N force step at 0.1 s.",
            reference=SPRING_DAMPER,
            faults=[("  der(x) = v;\n", "")],
            stage="check",
            stop_time=3.0,
            intervals=600,
            acceptance=[
                "checkModel passes and the simulation reaches the stop time",
                "x oscillates and settles at F0/k = 0.1 m",
            ],
            variables=["x", "v", "F"],
            parameters=["m", "k", "d", "F0"],
            metrics=[vat("x", 0.4), steady("x"), overshoot("x")],
        ),
        TaskDef(
            task_id="wb_repair_mechanical_02",
            difficulty="medium",
            model_name="WbCartFriction",
            workflow_goal=GOAL + "A 20 kg cart is pushed with 100 N against Coulomb friction "
            "(mu = 0.3) and air drag; it starts at rest.",
            reference=CART_FRICTION,
            faults=[("mu * m * g * tanh(v / v_eps)", "mu * m * g * v / abs(v)")],
            stage="simulate",
            stop_time=10.0,
            intervals=500,
            acceptance=[
                "checkModel passes and the simulation reaches the stop time without "
                "non-finite values",
                "the cart accelerates from rest towards its terminal speed",
            ],
            variables=["v", "s", "F_fric"],
            parameters=["m", "mu", "F_push", "d_air"],
            metrics=[
                vat("v", 2.0),
                vat("v", 10.0),
                vat("s", 10.0),
                mono("v"),
                vat("v", 10.0, "heavy_push"),
            ],
            scenarios={"heavy_push": {"F_push": 150.0}},
            off_targets=[
                OffTarget(
                    "no_friction",
                    "friction deleted: accelerates far too fast",
                    edits=[("mu * m * g * tanh(v / v_eps)", "0")],
                ),
            ],
        ),
    ]


def _mechanical_hard() -> TaskDef:
    return TaskDef(
        task_id="wb_repair_mechanical_03",
        difficulty="hard",
        model_name="WbTwoMassDrive",
        workflow_goal=GOAL + "A motor (J1) drives a load (J2) through an elastic shaft; "
        "the drive torque engages at t_engage and both inertias must spin up together to "
        "tau_drive/b2. It has more than one fault.",
        reference=TWO_MASS,
        faults=[
            ("tau_m = if engaged then tau_drive else 0;", "tau_m = engaged * tau_drive;"),
            ("J2 * der(w2) = tau_shaft - b2 * w2;", "J2 * der(w2) = -tau_shaft - b2 * w2;"),
        ],
        stage="check",
        stop_time=5.0,
        intervals=1000,
        acceptance=[
            "checkModel passes and the simulation reaches the stop time",
            "w1 and w2 both rise to tau_drive/b2; the shaft twist stays small",
        ],
        variables=["w1", "w2", "phi_rel", "tau_shaft"],
        parameters=["J1", "J2", "c", "d_s", "tau_drive", "b2"],
        metrics=[
            vat("w2", 1.0),
            vat("w2", 4.0),
            vat("w1", 4.0),
            bounds("phi_rel", -0.05, 0.1),
            vat("w2", 4.0, "stiff_heavy"),
        ],
        scenarios={"stiff_heavy": {"J2": 0.1, "c": 200.0}},
    )


def _thermal() -> list[TaskDef]:
    return [
        TaskDef(
            task_id="wb_repair_thermal_01",
            difficulty="easy",
            model_name="WbRoomHeating",
            workflow_goal=GOAL + "A room (C_room = 5e5 J/K, G_wall = 50 W/K) is heated with "
            "1 kW from 15 degC while it is 5 degC outside.",
            reference=ROOM_HEATING,
            faults=[('"heat capacity of the room [J/K]";', '"heat capacity of the room [J/K]"')],
            stage="check",
            stop_time=36000.0,
            intervals=360,
            acceptance=[
                "checkModel passes and the simulation reaches the stop time",
                "T_room rises monotonically towards T_amb + P_heater/G_wall",
            ],
            variables=["T_room", "Q_loss"],
            parameters=["C_room", "G_wall", "T_amb", "P_heater"],
            metrics=[vat("T_room", 7200.0), vat("T_room", 36000.0), mono("T_room")],
        ),
        TaskDef(
            task_id="wb_repair_thermal_02",
            difficulty="medium",
            model_name="WbRoomWall",
            workflow_goal=GOAL + "Room air and a heavy wall exchange heat; both start at "
            "15 degC; the heater gives 1 kW.",
            reference=ROOM_WALL,
            faults=[
                ("T_wall(start = T0, fixed = true)", "T_wall(start = T0)"),
                ("equation\n", "initial equation\n  T_room = 15;\nequation\n"),
            ],
            stage="simulate",
            stop_time=172800.0,
            intervals=576,
            acceptance=[
                "checkModel passes and the simulation (initialisation included) reaches "
                "the stop time",
                "both temperatures start at T0 = 15 degC and rise; the room stays warmer",
            ],
            variables=["T_room", "T_wall"],
            parameters=["C_room", "C_wall", "G_in", "G_out", "G_win", "P_heater", "T0"],
            metrics=[
                vat("T_room", 3600.0),
                vat("T_wall", 86400.0),
                vat("T_room", 172800.0),
                mono("T_room"),
                vat("T_room", 86400.0, "strong_heater"),
            ],
            scenarios={"strong_heater": {"P_heater": 1500.0}},
            off_targets=[
                OffTarget(
                    "wall_ignored",
                    "initial fault 'fixed' by dropping the wall storage: room heats too fast",
                    edits=[
                        (
                            "  C_wall * der(T_wall) = Q_heat_wall - G_out * (T_wall - T_amb);\n",
                            "  0 = Q_heat_wall - G_out * (T_wall - T_amb);\n",
                        ),
                        ("T_wall(start = T0, fixed = true)", "T_wall"),
                    ],
                ),
            ],
        ),
    ]


def _thermal_hard() -> TaskDef:
    return TaskDef(
        task_id="wb_repair_thermal_03",
        difficulty="hard",
        model_name="WbHeatedRod",
        workflow_goal=GOAL + "A rod of three lumped segments is heated at one end and loses "
        "heat by natural convection (h = 1.32*(|T - T_amb|/D)^0.25) along its surface. "
        "The simulation currently breaks down after the start.",
        reference=ROD_CONVECTION,
        faults=[
            (
                f"h{n} = 1.32 * ((T{n} - T_amb)^2 + 0.01)^0.125 / D^0.25;",
                f"h{n} = 1.32 * ((T_amb - T{n}) / D)^0.25;",
            )
            for n in (1, 2, 3)
        ],
        stage="simulate",
        stop_time=10000.0,
        intervals=500,
        acceptance=[
            "checkModel passes and the simulation reaches the stop time without non-finite values",
            "the convection coefficient stays a magnitude law: heat always flows from the "
            "hotter rod to the air; T1 > T2 > T3 > T_amb after heating",
        ],
        variables=["T1", "T2", "T3", "h1"],
        parameters=["C_seg", "G_seg", "A_seg", "D", "P_in", "T_amb"],
        metrics=[
            vat("T1", 2000.0),
            vat("T3", 10000.0),
            vat("h1", 10000.0),
            mono("T3"),
            vat("T1", 10000.0, "low_power"),
        ],
        scenarios={"low_power": {"P_in": 8.0}},
        off_targets=[
            OffTarget(
                "no_convection",
                "convection removed to avoid the NaN: the rod never stops heating",
                edits=[
                    (f"h{n} = 1.32 * ((T{n} - T_amb)^2 + 0.01)^0.125 / D^0.25;", f"h{n} = 0;")
                    for n in (1, 2, 3)
                ],
            ),
        ],
    )


def _control() -> list[TaskDef]:
    return [
        TaskDef(
            task_id="wb_repair_control_01",
            difficulty="easy",
            model_name="WbPIFirstOrder",
            workflow_goal=GOAL + "A PI controller (Kp = 1, Ki = 0.2) drives a first-order plant "
            "(K = 2, tau = 5 s) to a unit setpoint step at 1 s.",
            reference=PI_FIRST_ORDER,
            faults=[("  u = Kp * e + Ki * xi;\n", "  u = saturate(Kp * e + Ki * xi, -5, 5);\n")],
            stage="check",
            stop_time=20.0,
            intervals=400,
            acceptance=[
                "checkModel passes and the simulation reaches the stop time",
                "y follows the setpoint step with no steady-state error",
            ],
            variables=["y", "u", "e", "xi"],
            parameters=["K", "tau", "Kp", "Ki", "r"],
            metrics=[vat("y", 3.5), steady("y"), overshoot("y", limit=0.05)],
        ),
        TaskDef(
            task_id="wb_repair_control_02",
            difficulty="medium",
            model_name="WbTankLevelPI",
            workflow_goal=GOAL + "A PI controller sets the inflow valve of a tank (2 m2) so the "
            "level reaches h_ref = 1.5 m from 1.0 m while a consumer draws 0.02 m3/s. "
            "The simulation stops with non-finite values after the tank runs dry.",
            reference=TANK_PI,
            faults=[("  e = h_ref - h;\n", "  e = h - h_ref;\n")],
            stage="simulate",
            stop_time=600.0,
            intervals=600,
            acceptance=[
                "checkModel passes and the simulation reaches the stop time",
                "h settles at h_ref; the inflow stays within [0, q_max]",
            ],
            variables=["h", "q_in", "q_out", "e"],
            parameters=["A", "k_out", "h_ref", "Kp", "Ki", "q_max", "q_demand"],
            metrics=[
                vat("h", 60.0),
                steady("h"),
                bounds("q_in", -1e-9, 0.2 + 1e-9),
                steady("h", "higher_setpoint"),
            ],
            scenarios={"higher_setpoint": {"h_ref": 1.8}},
        ),
        TaskDef(
            task_id="wb_repair_control_03",
            difficulty="hard",
            model_name="WbMotorSpeedControl",
            workflow_goal=GOAL + "A DC motor's speed is PI-controlled to w_ref = 100 rad/s "
            "with the armature voltage limited to +-V_max; a load torque steps in at 0.5 s. "
            "It has more than one fault.",
            reference=MOTOR_SPEED,
            faults=[
                ("  V = max(-V_max, min(V_max, V_cmd));\n", ""),
                ("  der(xi) = e;\n", "  der(xi) = -e;\n"),
            ],
            stage="check",
            stop_time=1.0,
            intervals=1000,
            acceptance=[
                "checkModel passes and the simulation reaches the stop time",
                "w reaches w_ref, recovers after the load step with no steady-state error, "
                "and V stays within +-V_max",
            ],
            variables=["w", "i", "V", "e"],
            parameters=["w_ref", "Kp", "Ki", "V_max", "tau_load"],
            metrics=[
                vat("w", 0.1),
                steady("w"),
                bounds("V", -24.0 - 1e-6, 24.0 + 1e-6),
                settle("w"),
                steady("w", "heavy_load"),
            ],
            scenarios={"heavy_load": {"tau_load": 0.05}},
        ),
    ]
