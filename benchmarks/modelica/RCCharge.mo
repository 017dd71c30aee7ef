// RC circuit charging from a constant source through R.
// Analytic: vc(t) = V * (1 - exp(-t / (R*C))), i(t) = V/R * exp(-t / (R*C)).
model RCCharge
  parameter Real V = 5.0 "source voltage [V]";
  parameter Real R = 1000.0 "resistance [Ohm]";
  parameter Real C = 1e-3 "capacitance [F]";
  Real vc(start = 0.0, fixed = true) "capacitor voltage [V]";
  Real i "current [A]";
equation
  i = (V - vc) / R;
  C * der(vc) = i;
end RCCharge;
