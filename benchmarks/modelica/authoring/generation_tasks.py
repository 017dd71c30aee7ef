"""Generation tasks: a brief an engineer could implement, derived from a reference model.

The brief names the model, its parameters (with defaults) and the variables the contract's
interface then requires; private metrics come from the reference, off-targets are plausible
slips (wrong time constant, missing term, no limiter).
"""

from __future__ import annotations

from authoring.models import RC_LOWPASS, ROOM_WALL, SPRING_DAMPER, TANK_PI
from authoring.taskdef import OffTarget, TaskDef, bounds, mono, overshoot, settle, steady, vat

GOAL = "Write a complete Modelica model from the requirements; it must pass checkModel and "
SIM = "simulate to the stop time. "

DC_MOTOR = """model WbGenDCMotor "Permanent-magnet DC motor with a load torque step"
  parameter Real V = 12 "supply voltage [V]";
  parameter Real R_a = 1.0 "armature resistance [Ohm]";
  parameter Real L_a = 0.005 "armature inductance [H]";
  parameter Real k_m = 0.05 "torque / back-EMF constant [N.m/A]";
  parameter Real J = 1e-4 "rotor inertia [kg.m2]";
  parameter Real b = 1e-5 "viscous friction [N.m.s/rad]";
  parameter Real tau_load = 0.05 "load torque after t_load [N.m]";
  parameter Real t_load = 0.5 "load step time [s]";
  Real i(start = 0, fixed = true) "armature current [A]";
  Real w(start = 0, fixed = true) "speed [rad/s]";
  Real tau_m "motor torque [N.m]";
  Real tau_l "load torque [N.m]";
equation
  L_a * der(i) = V - R_a * i - k_m * w;
  tau_m = k_m * i;
  tau_l = if time < t_load then 0 else tau_load;
  J * der(w) = tau_m - b * w - tau_l;
end WbGenDCMotor;
"""

PENDULUM = """model WbGenDampedPendulum "Damped rigid pendulum released from an angle"
  parameter Real L = 0.5 "pendulum length [m]";
  parameter Real g = 9.81 "gravity [m/s2]";
  parameter Real d = 0.4 "damping rate [1/s]";
  parameter Real phi0 = 1.2 "release angle [rad]";
  Real phi(start = phi0, fixed = true) "angle from the vertical [rad]";
  Real w(start = 0, fixed = true) "angular speed [rad/s]";
equation
  der(phi) = w;
  der(w) = -g / L * sin(phi) - d * w;
end WbGenDampedPendulum;
"""


def _renamed(text: str, old: str, new: str) -> str:
    return text.replace(old, new)


def generation_tasks() -> list[TaskDef]:
    return [*_electrical(), *_mechanical(), _thermal(), _control()]


def _electrical() -> list[TaskDef]:
    return [
        TaskDef(
            task_id="wb_generation_electrical_01",
            difficulty="easy",
            model_name="WbGenRCFilter",
            workflow_goal=GOAL + SIM + "An RC low-pass filter's response to a voltage step.",
            reference=_renamed(RC_LOWPASS, "WbRCLowPass", "WbGenRCFilter"),
            requirements=[
                "model WbGenRCFilter with parameters R = 1000 (Ohm), C = 4.7e-6 (F), "
                "V_step = 5 (V) and t_step = 0.002 (s)",
                "v_in (V) is 0 before t_step and V_step from t_step on; it drives a series "
                "resistor R into a capacitor C whose other side is grounded",
                "v_out (V) is the capacitor voltage, starting at 0 V; i (A) is the current "
                "through R",
            ],
            stop_time=0.03,
            intervals=300,
            acceptance=["v_out follows a first-order rise to V_step with time constant R*C"],
            variables=["v_out", "v_in", "i"],
            parameters=["R", "C", "V_step", "t_step"],
            metrics=[vat("v_out", 0.0067), vat("v_out", 0.015), steady("v_out"), mono("v_out")],
            off_targets=[
                OffTarget(
                    "time_constant_halved",
                    "current doubled: the filter responds twice as fast",
                    edits=[("i = (v_in - v_out) / R;", "i = 2 * (v_in - v_out) / R;")],
                ),
            ],
        ),
        TaskDef(
            task_id="wb_generation_electrical_02",
            difficulty="hard",
            model_name="WbGenDCMotor",
            workflow_goal=GOAL + SIM + "A permanent-magnet DC motor runs up on a fixed supply "
            "and is loaded at t_load.",
            reference=DC_MOTOR,
            requirements=[
                "model WbGenDCMotor with parameters V = 12 (V), R_a = 1.0 (Ohm), "
                "L_a = 0.005 (H), k_m = 0.05 (N.m/A, also V.s/rad), J = 1e-4 (kg.m2), "
                "b = 1e-5 (N.m.s/rad), tau_load = 0.05 (N.m), t_load = 0.5 (s)",
                "armature circuit: supply V across R_a, L_a and the back-EMF k_m*w; armature "
                "current i (A) starts at 0",
                "rotor: inertia J driven by the motor torque tau_m = k_m*i, braked by viscous "
                "friction b*w and the load torque tau_l (N.m), which is 0 before t_load and "
                "tau_load after; speed w (rad/s) starts at 0",
            ],
            stop_time=1.0,
            intervals=1000,
            acceptance=[
                "w runs up to its no-load speed, drops when the load steps in and settles "
                "again; i rises with the load",
            ],
            variables=["w", "i", "tau_m", "tau_l"],
            parameters=["V", "R_a", "L_a", "k_m", "J", "b", "tau_load", "t_load"],
            metrics=[
                vat("w", 0.05),
                vat("w", 0.45),
                steady("w"),
                steady("i"),
                bounds("i", -1.0, 12.5),
                steady("w", "heavy_load"),
                vat("w", 0.45, "low_supply"),
            ],
            scenarios={"heavy_load": {"tau_load": 0.1}, "low_supply": {"V": 6.0}},
            off_targets=[
                OffTarget(
                    "no_back_emf",
                    "back-EMF left out: current and speed far too high",
                    edits=[("V - R_a * i - k_m * w", "V - R_a * i")],
                ),
                OffTarget(
                    "load_ignored",
                    "load torque never applied to the rotor",
                    edits=[("tau_m - b * w - tau_l", "tau_m - b * w")],
                ),
            ],
        ),
    ]


def _mechanical() -> list[TaskDef]:
    return [
        TaskDef(
            task_id="wb_generation_mechanical_01",
            difficulty="medium",
            model_name="WbGenMassSpringDamper",
            workflow_goal=GOAL + SIM + "A mass on a linear spring and damper receives a force "
            "step.",
            reference=_renamed(SPRING_DAMPER, "WbMassSpringDamper", "WbGenMassSpringDamper"),
            requirements=[
                "model WbGenMassSpringDamper with parameters m = 1.0 (kg), k = 100 (N/m), "
                "d = 4 (N.s/m), F0 = 10 (N) and t_step = 0.1 (s)",
                "applied force F (N) is 0 before t_step and F0 after; spring force k*x and "
                "damper force d*v oppose the motion",
                "position x (m) and velocity v (m/s) both start at 0",
            ],
            stop_time=3.0,
            intervals=600,
            acceptance=["x rings with the damping ratio d/(2*sqrt(k*m)) and settles at F0/k"],
            variables=["x", "v", "F"],
            parameters=["m", "k", "d", "F0", "t_step"],
            metrics=[
                vat("x", 0.4),
                steady("x"),
                overshoot("x"),
                settle("x"),
                overshoot("x", "strong_damping"),
                vat("x", 0.4, "strong_damping"),
            ],
            scenarios={"strong_damping": {"d": 16.0}},
            off_targets=[
                OffTarget(
                    "damping_doubled",
                    "damper force counted twice: too little overshoot",
                    edits=[("F - k * x - d * v", "F - k * x - 2 * d * v")],
                ),
            ],
        ),
        TaskDef(
            task_id="wb_generation_mechanical_02",
            difficulty="easy",
            model_name="WbGenDampedPendulum",
            workflow_goal=GOAL + SIM + "A damped rigid pendulum released from a large angle.",
            reference=PENDULUM,
            requirements=[
                "model WbGenDampedPendulum with parameters L = 0.5 (m), g = 9.81 (m/s2), "
                "d = 0.4 (1/s) and phi0 = 1.2 (rad)",
                "angle phi (rad, from the vertical) starts at phi0, angular speed w (rad/s) at "
                "0; angular acceleration = -(g/L)*sin(phi) - d*w (no small-angle "
                "approximation)",
            ],
            stop_time=10.0,
            intervals=1000,
            acceptance=["phi oscillates with decaying amplitude around 0"],
            variables=["phi", "w"],
            parameters=["L", "g", "d", "phi0"],
            metrics=[vat("phi", 1.0), vat("phi", 4.0), vat("w", 2.5), bounds("phi", -1.2, 1.2001)],
            off_targets=[
                OffTarget(
                    "small_angle",
                    "linearised sin(phi) ~ phi: the period is wrong at 1.2 rad",
                    edits=[("sin(phi)", "phi")],
                ),
            ],
        ),
    ]


def _thermal() -> TaskDef:
    return TaskDef(
        task_id="wb_generation_thermal_01",
        difficulty="medium",
        model_name="WbGenRoomWall",
        workflow_goal=GOAL + SIM + "A heated room with a heavy outer wall and a window.",
        reference=_renamed(ROOM_WALL, "WbRoomWall", "WbGenRoomWall"),
        requirements=[
            "model WbGenRoomWall with parameters C_room = 2e5 (J/K), C_wall = 2e6 (J/K), "
            "G_in = 200 (W/K, room air to wall), G_out = 40 (W/K, wall to outside), "
            "G_win = 10 (W/K, window, room air to outside), T_amb = 273.15 (K), "
            "P_heater = 1000 (W, into the room air), T0 = 288.15 (K)",
            "two lumped temperatures T_room and T_wall (K), both starting at T0; the wall "
            "stores heat (capacity C_wall) between the room and the outside",
            "Q_heat_wall (W) is the heat flow from the room air into the wall",
        ],
        stop_time=172800.0,
        intervals=576,
        acceptance=["T_room rises quickly, then slowly with the wall; both approach steady state"],
        variables=["T_room", "T_wall", "Q_heat_wall"],
        parameters=["C_room", "C_wall", "G_in", "G_out", "G_win", "T_amb", "P_heater", "T0"],
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
                "window_ignored",
                "window loss left out: the room ends too warm",
                edits=[(" - G_win * (T_room - T_amb)", "")],
            ),
        ],
    )


def _control() -> TaskDef:
    return TaskDef(
        task_id="wb_generation_control_01",
        difficulty="hard",
        model_name="WbGenTankLevelPI",
        workflow_goal=GOAL + SIM + "A level controller keeps a tank at its setpoint against a "
        "consumer draw.",
        reference=_renamed(TANK_PI, "WbTankLevelPI", "WbGenTankLevelPI"),
        requirements=[
            "model WbGenTankLevelPI with parameters A = 2 (m2), k_out = 0.05 (m2.5/s), "
            "q_demand = 0.02 (m3/s), h_ref = 1.5 (m), Kp = 0.5 (m2/s), Ki = 0.01 (m2/s2), "
            "q_max = 0.2 (m3/s), h0 = 1.0 (m)",
            "level h (m) starts at h0; A*der(h) = q_in - q_out with gravity outflow "
            "q_out = k_out*sqrt(h) + q_demand",
            "PI controller on the error e = h_ref - h (integral state starting at 0); the valve "
            "limits the inflow q_in to [0, q_max]",
        ],
        stop_time=600.0,
        intervals=600,
        acceptance=["h reaches h_ref without steady-state error; q_in never leaves [0, q_max]"],
        variables=["h", "q_in", "q_out", "e"],
        parameters=["A", "k_out", "q_demand", "h_ref", "Kp", "Ki", "q_max", "h0"],
        metrics=[
            vat("h", 60.0),
            steady("h"),
            bounds("q_in", -1e-9, 0.2 + 1e-9),
            steady("h", "higher_setpoint"),
            steady("h", "more_demand"),
            vat("h", 60.0, "more_demand"),
        ],
        scenarios={"higher_setpoint": {"h_ref": 1.8}, "more_demand": {"q_demand": 0.04}},
        off_targets=[
            OffTarget(
                "p_only",
                "integral action left out: a steady-state level error remains",
                edits=[("Kp * e + Ki * xi", "Kp * e")],
            ),
            OffTarget(
                "no_valve_limit",
                "valve limits left out: inflow exceeds q_max",
                edits=[("max(0, min(q_max, Kp * e + Ki * xi))", "Kp * e + Ki * xi")],
            ),
        ],
    )
