// Lumped body heated by a constant power and losing heat to the ambient.
// Analytic: T(t) = Tinf + (T0 - Tinf) * exp(-t / tau), Tinf = Ta + P/G, tau = Cth/G.
model FirstOrderThermal
  parameter Real Cth = 2.0 "heat capacity [J/K]";
  parameter Real G = 0.5 "thermal conductance to ambient [W/K]";
  parameter Real P = 10.0 "heating power [W]";
  parameter Real Ta = 293.15 "ambient temperature [K]";
  parameter Real T0 = 293.15 "initial temperature [K]";
  Real T(start = T0, fixed = true) "body temperature [K]";
  Real Q "heat flow to ambient [W]";
equation
  Q = G * (T - Ta);
  Cth * der(T) = P - Q;
end FirstOrderThermal;
