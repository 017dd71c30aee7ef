// Underdamped spring-mass-damper released from x0 at rest.
// Analytic: x(t) = exp(-z*w0*t) * x0 * (cos(wd*t) + z*w0/wd*sin(wd*t)),
// w0 = sqrt(k/m), z = d/(2*sqrt(k*m)), wd = w0*sqrt(1 - z^2).
model SpringMassDamper
  parameter Real m = 1.0 "mass [kg]";
  parameter Real k = 4.0 "stiffness [N/m]";
  parameter Real d = 0.4 "damping [N.s/m]";
  parameter Real x0 = 1.0 "initial displacement [m]";
  Real x(start = x0, fixed = true) "position [m]";
  Real v(start = 0.0, fixed = true) "velocity [m/s]";
equation
  der(x) = v;
  m * der(v) = -k * x - d * v;
end SpringMassDamper;
