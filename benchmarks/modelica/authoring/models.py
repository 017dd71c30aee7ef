"""Clean, executable reference models: the substrate every task is derived from.

Each is small genuine engineering (circuits, drives, rooms, controlled plants) and runs on rumoca
in well under a second. They are benchmark-owned: only faulty or re-parameterised derivatives
ever reach an agent.
"""

RC_LOWPASS = """model WbRCLowPass "RC low-pass filter driven by a voltage step"
  parameter Real R = 1000 "resistance [Ohm]";
  parameter Real C = 4.7e-6 "capacitance [F]";
  parameter Real V_step = 5 "step amplitude [V]";
  parameter Real t_step = 0.002 "step time [s]";
  Real v_in "input voltage [V]";
  Real v_out(start = 0, fixed = true) "output (capacitor) voltage [V]";
  Real i "current through R [A]";
equation
  v_in = if time < t_step then 0 else V_step;
  i = (v_in - v_out) / R;
  C * der(v_out) = i;
end WbRCLowPass;
"""

RLC_SERIES = """model WbRLCSeries "Series RLC circuit switched onto a DC source at t = 0"
  parameter Real V = 10 "source voltage [V]";
  parameter Real R = 4 "resistance [Ohm]";
  parameter Real L = 0.01 "inductance [H]";
  parameter Real C = 1e-4 "capacitance [F]";
  Real i(start = 0, fixed = true) "loop current [A]";
  Real v_C(start = 0, fixed = true) "capacitor voltage [V]";
  Real v_R "resistor voltage [V]";
  Real v_L "inductor voltage [V]";
equation
  v_R = R * i;
  v_L = L * der(i);
  C * der(v_C) = i;
  V = v_R + v_L + v_C;
end WbRLCSeries;
"""

LADDER = """model WbRCLadder "Two-stage RC ladder from WbLib components, 10 V step at 5 ms"
  parameter Real R1 = 100 "first-stage resistance [Ohm]";
  parameter Real R2 = 220 "second-stage resistance [Ohm]";
  parameter Real C1 = 1e-4 "first-stage capacitance [F]";
  parameter Real C2 = 4.7e-5 "second-stage capacitance [F]";
  WbLib.Electrical.StepVoltage src(V = 10, startTime = 0.005);
  WbLib.Electrical.Resistor r1(R = R1);
  WbLib.Electrical.Capacitor c1(C = C1, v(start = 0, fixed = true));
  WbLib.Electrical.Resistor r2(R = R2);
  WbLib.Electrical.Capacitor c2(C = C2, v(start = 0, fixed = true));
  WbLib.Electrical.Ground gnd;
  Real v1 "first-stage voltage [V]";
  Real v2 "output voltage [V]";
equation
  connect(src.p, r1.p);
  connect(r1.n, c1.p);
  connect(r1.n, r2.p);
  connect(r2.n, c2.p);
  connect(c1.n, src.n);
  connect(c2.n, src.n);
  connect(src.n, gnd.p);
  v1 = c1.v;
  v2 = c2.v;
end WbRCLadder;
"""

SPRING_DAMPER = """model WbMassSpringDamper "Mass on a spring and damper, force step at t_step"
  parameter Real m = 1.0 "mass [kg]";
  parameter Real k = 100 "spring stiffness [N/m]";
  parameter Real d = 4 "damping coefficient [N.s/m]";
  parameter Real F0 = 10 "force step [N]";
  parameter Real t_step = 0.1 "step time [s]";
  Real x(start = 0, fixed = true) "position [m]";
  Real v(start = 0, fixed = true) "velocity [m/s]";
  Real F "applied force [N]";
equation
  F = if time < t_step then 0 else F0;
  der(x) = v;
  m * der(v) = F - k * x - d * v;
end WbMassSpringDamper;
"""

CART_FRICTION = """model WbCartFriction "Cart pushed against Coulomb friction and air drag"
  parameter Real m = 20 "mass [kg]";
  parameter Real mu = 0.3 "friction coefficient";
  parameter Real g = 9.81 "gravity [m/s2]";
  parameter Real F_push = 100 "push force [N]";
  parameter Real d_air = 2 "linear drag coefficient [N.s/m]";
  parameter Real v_eps = 0.01 "friction regularisation speed [m/s]";
  Real v(start = 0, fixed = true) "speed [m/s]";
  Real s(start = 0, fixed = true) "travelled distance [m]";
  Real F_fric "friction force [N]";
equation
  F_fric = mu * m * g * tanh(v / v_eps);
  der(s) = v;
  m * der(v) = F_push - F_fric - d_air * v;
end WbCartFriction;
"""

TWO_MASS = """model WbTwoMassDrive "Motor and load inertia coupled by an elastic shaft"
  parameter Real J1 = 0.01 "motor inertia [kg.m2]";
  parameter Real J2 = 0.05 "load inertia [kg.m2]";
  parameter Real c = 50 "shaft stiffness [N.m/rad]";
  parameter Real d_s = 0.2 "shaft damping [N.m.s/rad]";
  parameter Real b2 = 0.05 "load viscous friction [N.m.s/rad]";
  parameter Real tau_drive = 1 "drive torque [N.m]";
  parameter Real t_engage = 0.2 "time the drive engages [s]";
  Boolean engaged "drive torque applied";
  Real phi_rel(start = 0, fixed = true) "shaft twist [rad]";
  Real w1(start = 0, fixed = true) "motor speed [rad/s]";
  Real w2(start = 0, fixed = true) "load speed [rad/s]";
  Real tau_shaft "shaft torque [N.m]";
  Real tau_m "motor torque [N.m]";
equation
  engaged = time >= t_engage;
  tau_m = if engaged then tau_drive else 0;
  der(phi_rel) = w1 - w2;
  tau_shaft = c * phi_rel + d_s * (w1 - w2);
  J1 * der(w1) = tau_m - tau_shaft;
  J2 * der(w2) = tau_shaft - b2 * w2;
end WbTwoMassDrive;
"""

ROOM_HEATING = """model WbRoomHeating "Single-zone room heated against the outside air"
  parameter Real C_room = 5e5 "heat capacity of the room [J/K]";
  parameter Real G_wall = 50 "conductance room-outside [W/K]";
  parameter Real T_amb = 278.15 "outside temperature [K]";
  parameter Real P_heater = 1000 "heater power [W]";
  parameter Real T_start = 288.15 "initial room temperature [K]";
  Real T_room(start = T_start, fixed = true) "room temperature [K]";
  Real Q_loss "heat loss through the envelope [W]";
equation
  Q_loss = G_wall * (T_room - T_amb);
  C_room * der(T_room) = P_heater - Q_loss;
end WbRoomHeating;
"""

ROOM_WALL = """model WbRoomWall "Room air and a heavy wall between the room and the outside"
  parameter Real C_room = 2e5 "room air heat capacity [J/K]";
  parameter Real C_wall = 2e6 "wall heat capacity [J/K]";
  parameter Real G_in = 200 "conductance room-wall [W/K]";
  parameter Real G_out = 40 "conductance wall-outside [W/K]";
  parameter Real G_win = 10 "window conductance room-outside [W/K]";
  parameter Real T_amb = 273.15 "outside temperature [K]";
  parameter Real P_heater = 1000 "heater power [W]";
  parameter Real T0 = 288.15 "initial temperature of room and wall [K]";
  Real T_room(start = T0, fixed = true) "room temperature [K]";
  Real T_wall(start = T0, fixed = true) "wall temperature [K]";
  Real Q_heat_wall "heat flow room to wall [W]";
equation
  Q_heat_wall = G_in * (T_room - T_wall);
  C_room * der(T_room) = P_heater - Q_heat_wall - G_win * (T_room - T_amb);
  C_wall * der(T_wall) = Q_heat_wall - G_out * (T_wall - T_amb);
end WbRoomWall;
"""

ROD_CONVECTION = """model WbHeatedRod "Three-segment rod heated at one end, natural convection"
  parameter Real C_seg = 200 "heat capacity per segment [J/K]";
  parameter Real G_seg = 2 "conductance between segments [W/K]";
  parameter Real A_seg = 0.01 "surface per segment [m2]";
  parameter Real D = 0.02 "rod diameter [m]";
  parameter Real T_amb = 293.15 "air temperature [K]";
  parameter Real P_in = 20 "heating at segment 1 [W]";
  Real T1(start = T_amb, fixed = true) "heated segment [K]";
  Real T2(start = T_amb, fixed = true) "middle segment [K]";
  Real T3(start = T_amb, fixed = true) "tip segment [K]";
  Real h1 "convection coefficient segment 1 [W/(m2.K)]";
  Real h2 "convection coefficient segment 2 [W/(m2.K)]";
  Real h3 "convection coefficient segment 3 [W/(m2.K)]";
equation
  h1 = 1.32 * ((T1 - T_amb)^2 + 0.01)^0.125 / D^0.25;
  h2 = 1.32 * ((T2 - T_amb)^2 + 0.01)^0.125 / D^0.25;
  h3 = 1.32 * ((T3 - T_amb)^2 + 0.01)^0.125 / D^0.25;
  C_seg * der(T1) = P_in - G_seg * (T1 - T2) - h1 * A_seg * (T1 - T_amb);
  C_seg * der(T2) = G_seg * (T1 - T2) - G_seg * (T2 - T3) - h2 * A_seg * (T2 - T_amb);
  C_seg * der(T3) = G_seg * (T2 - T3) - h3 * A_seg * (T3 - T_amb);
end WbHeatedRod;
"""

PI_FIRST_ORDER = """model WbPIFirstOrder "PI control of a first-order plant, setpoint step"
  parameter Real K = 2 "plant gain";
  parameter Real tau = 5 "plant time constant [s]";
  parameter Real Kp = 1.0 "proportional gain";
  parameter Real Ki = 0.2 "integral gain [1/s]";
  parameter Real r = 1 "setpoint step height";
  parameter Real t_step = 1 "setpoint step time [s]";
  Real y(start = 0, fixed = true) "plant output";
  Real xi(start = 0, fixed = true) "integral of the error";
  Real r_t "setpoint";
  Real e "control error";
  Real u "control signal";
equation
  r_t = if time < t_step then 0 else r;
  e = r_t - y;
  der(xi) = e;
  u = Kp * e + Ki * xi;
  tau * der(y) = -y + K * u;
end WbPIFirstOrder;
"""

TANK_PI = """model WbTankLevelPI "Tank level under PI control of the inflow valve"
  parameter Real A = 2 "tank cross-section [m2]";
  parameter Real k_out = 0.05 "outflow coefficient [m2.5/s]";
  parameter Real q_demand = 0.02 "consumer draw [m3/s]";
  parameter Real h_ref = 1.5 "level setpoint [m]";
  parameter Real Kp = 0.5 "proportional gain [m2/s]";
  parameter Real Ki = 0.01 "integral gain [m2/s2]";
  parameter Real q_max = 0.2 "largest inflow [m3/s]";
  parameter Real h0 = 1.0 "initial level [m]";
  Real h(start = h0, fixed = true) "level [m]";
  Real xi(start = 0, fixed = true) "integral of the level error [m.s]";
  Real e "level error [m]";
  Real q_in "inflow [m3/s]";
  Real q_out "outflow [m3/s]";
equation
  e = h_ref - h;
  der(xi) = e;
  q_in = max(0, min(q_max, Kp * e + Ki * xi));
  q_out = k_out * sqrt(h) + q_demand;
  A * der(h) = q_in - q_out;
end WbTankLevelPI;
"""

MOTOR_SPEED = """model WbMotorSpeedControl "PI speed control of a DC motor, limited voltage"
  parameter Real R_a = 1.0 "armature resistance [Ohm]";
  parameter Real L_a = 0.005 "armature inductance [H]";
  parameter Real k_m = 0.05 "torque / back-EMF constant [N.m/A]";
  parameter Real J = 1e-4 "rotor inertia [kg.m2]";
  parameter Real b = 1e-5 "viscous friction [N.m.s/rad]";
  parameter Real w_ref = 100 "speed setpoint [rad/s]";
  parameter Real Kp = 0.1 "proportional gain [V.s/rad]";
  parameter Real Ki = 2.5 "integral gain [V/rad]";
  parameter Real V_max = 24 "voltage limit [V]";
  parameter Real tau_load = 0.02 "load torque after t_load [N.m]";
  parameter Real t_load = 0.5 "load step time [s]";
  Real i(start = 0, fixed = true) "armature current [A]";
  Real w(start = 0, fixed = true) "speed [rad/s]";
  Real xi(start = 0, fixed = true) "integral of the speed error [rad]";
  Real e "speed error [rad/s]";
  Real V_cmd "controller output [V]";
  Real V "applied voltage [V]";
  Real tau_l "load torque [N.m]";
equation
  e = w_ref - w;
  der(xi) = e;
  V_cmd = Kp * e + Ki * xi;
  V = max(-V_max, min(V_max, V_cmd));
  tau_l = if time < t_load then 0 else tau_load;
  L_a * der(i) = V - R_a * i - k_m * w;
  J * der(w) = k_m * i - b * w - tau_l;
end WbMotorSpeedControl;
"""
