package WbLib "Workbench benchmark component library: small acausal electrical and thermal parts"
  package Electrical "Analog components with a voltage/current pin"
    connector Pin "Electrical pin"
      Real v "potential [V]";
      flow Real i "current into the component [A]";
    end Pin;

    partial model TwoPin "Component with two pins, voltage drop v and current i from p to n"
      Pin p "positive pin";
      Pin n "negative pin";
      Real v "voltage drop p.v - n.v [V]";
      Real i "current from p to n through the component [A]";
    equation
      v = p.v - n.v;
      0 = p.i + n.i;
      i = p.i;
    end TwoPin;

    model Resistor "Ideal linear resistor"
      extends TwoPin;
      parameter Real R = 1.0 "resistance [Ohm]";
    equation
      v = R * i;
    end Resistor;

    model Capacitor "Ideal capacitor"
      extends TwoPin;
      parameter Real C = 1.0 "capacitance [F]";
    equation
      C * der(v) = i;
    end Capacitor;

    model Inductor "Ideal inductor"
      extends TwoPin;
      parameter Real L = 1.0 "inductance [H]";
    equation
      L * der(i) = v;
    end Inductor;

    model StepVoltage "Voltage source stepping from 0 to V at startTime"
      extends TwoPin;
      parameter Real V = 1.0 "step height [V]";
      parameter Real startTime = 0.0 "step time [s]";
    equation
      v = if time < startTime then 0 else V;
    end StepVoltage;

    model Ground "Zero potential reference"
      Pin p;
    equation
      p.v = 0;
    end Ground;
  end Electrical;

  package Thermal "Lumped heat transfer components"
    connector HeatPort "Thermal port"
      Real T "temperature [K]";
      flow Real Q_flow "heat flow into the component [W]";
    end HeatPort;

    model HeatCapacitor "Lumped heat capacity"
      parameter Real C = 1.0 "heat capacity [J/K]";
      parameter Real T_start = 293.15 "initial temperature [K]";
      HeatPort port;
      Real T(start = T_start, fixed = true) "temperature [K]";
    equation
      T = port.T;
      C * der(T) = port.Q_flow;
    end HeatCapacitor;

    model ThermalConductor "Linear heat conduction between two ports"
      parameter Real G = 1.0 "thermal conductance [W/K]";
      HeatPort port_a;
      HeatPort port_b;
      Real Q_flow "heat flow from port_a to port_b [W]";
    equation
      Q_flow = G * (port_a.T - port_b.T);
      port_a.Q_flow = Q_flow;
      port_b.Q_flow = -Q_flow;
    end ThermalConductor;

    model FixedTemperature "Boundary at a fixed temperature"
      parameter Real T = 293.15 "temperature [K]";
      HeatPort port;
    equation
      port.T = T;
    end FixedTemperature;

    model HeatSource "Prescribed heat flow into a port"
      parameter Real Q = 0.0 "heat flow [W]";
      HeatPort port;
    equation
      port.Q_flow = -Q;
    end HeatSource;
  end Thermal;
end WbLib;
