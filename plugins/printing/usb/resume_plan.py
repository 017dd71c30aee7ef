"""The G-code that puts a printer back where an interrupted print left it, with the steps in words.

Three situations, three plans (each a `ResumePlan`: steps for people, commands for the printer):

- `reconnect_plan`: the link dropped (cable, timeouts) but the printer did NOT restart. It still
  knows Z, but its heaters may have timed out and idle X/Y motors may have been switched off, so
  X/Y may have slipped. Set the temperatures, lift Z a little (the nozzle leaves the print while
  it heats), wait for the temperatures, home X and Y only (never Z: homing Z would drive the
  nozzle into the print), move back over the last confirmed X/Y, lower to its Z, restore E, the
  modes, the fan and the feed rate, then continue at the first line the printer did not confirm.

- `layer_plan`: the printer restarted (it printed `start`, or reports a different Z), so it no
  longer knows where Z is. A plain resume is refused; this plan resumes from the start of a
  layer instead. It assumes the nozzle was not moved since the print stopped and is at the
  lowest height the printer may have reached (the last confirmed Z, or lower if a line in flight
  went lower): it declares that height with G92 (declaring too low only prints in the air, too
  high would crash), lifts, heats and waits, homes X/Y, replays the file's machine settings the
  restart forgot (accelerations, flow, linear advance), moves over the layer's start, lowers to
  the layer's height, restores E and the modes, and continues at the layer's first line.

- `park_commands`/`unpark_commands`: a user pause on a printer without M601 (not Prusa
  firmware): retract a little, lift, move to the park position; the unpark undoes exactly that
  (absolute moves back, the same length un-retracted, E and the modes restored).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from workbench_plugins.printing.usb.gcode_state import SETTING_CODES, GcodeState, LayerStart


@dataclass(frozen=True)
class Motion:
    """How the host moves the head on its own (pause, resume): lengths in mm, feeds in mm/min."""

    lift_mm: float = 2.0  # resume: up before heating and homing X/Y
    park_lift_mm: float = 10.0  # pause: up before moving to the park position
    park_xy: tuple[float, float] = (10.0, 200.0)
    max_z_mm: float = 210.0  # the park lift stops here
    retract_mm: float = 1.0
    travel_feed: float = 3000.0
    z_feed: float = 720.0
    e_feed: float = 2100.0


@dataclass
class ResumePlan:
    layer: int | None  # the layer the print continues in (None: unknown, e.g. no layers)
    z: float | None  # the height it continues at
    line: int  # the file command index printing continues at
    steps: list[str] = field(default_factory=list)  # for people, in order
    commands: list[str] = field(default_factory=list)  # for the printer, in order

    def to_dict(self) -> dict[str, Any]:
        return {
            "layer": self.layer,
            "z": self.z,
            "line": self.line,
            "steps": list(self.steps),
            "commands": list(self.commands),
        }

    def offer(self, reason: str) -> dict[str, Any]:
        """What a refused resume shows: why, and what resuming from this layer would do."""
        return {
            "reason": reason,
            "layer": self.layer,
            "z": self.z,
            "line": self.line,
            "steps": list(self.steps),
        }

    def describe(self) -> str:
        where = f"layer {self.layer} at Z={self.z:.2f} mm" if self.z is not None else "the file"
        return f"resume from {where} (file line {self.line}); steps: " + "; ".join(self.steps)


def _mm(value: float) -> str:
    return f"{value:.3f}".rstrip("0").rstrip(".") or "0"


def _heat(state: GcodeState, steps: list[str], set_only: bool) -> list[str]:
    """Set (M104/M140) or wait for (M109/M190) the file's target temperatures."""
    bed, nozzle = state.bed, state.nozzle
    if set_only:
        steps.append(f"set the bed to {bed:g} and the nozzle to {nozzle:g} degC")
        return [f"M140 S{bed:g}", f"M104 S{nozzle:g}"]
    commands = []
    if bed > 0:
        commands.append(f"M190 S{bed:g}")
    if nozzle > 0:
        commands.append(f"M109 S{nozzle:g}")
    if commands:
        steps.append("wait until they are reached")
    return commands


def _lift(motion: Motion, steps: list[str]) -> list[str]:
    steps.append(f"lift Z by {motion.lift_mm:g} mm")
    return ["G91", f"G1 Z{_mm(motion.lift_mm)} F{motion.z_feed:g}", "G90"]


def _home_xy(steps: list[str]) -> list[str]:
    steps.append("home X and Y only (G28 X Y; Z is never homed over a print)")
    return ["G28 X Y"]


def _go_back(state: GcodeState, z: float | None, motion: Motion, steps: list[str]) -> list[str]:
    """Move back over the print at `state`'s X/Y, then lower to `z`."""
    commands = []
    if state.x is not None and state.y is not None:
        steps.append(f"move to X={state.x:g} Y={state.y:g}")
        commands.append(f"G1 X{_mm(state.x)} Y{_mm(state.y)} F{motion.travel_feed:g}")
    if z is not None:
        steps.append(f"lower to Z={z:g}")
        commands.append(f"G1 Z{_mm(z)} F{motion.z_feed:g}")
    return commands


def restore_modes(state: GcodeState, steps: list[str]) -> list[str]:
    """E position, XYZ and E modes, fan, feed rate: what the next file line assumes."""
    commands = [
        f"G92 E{_mm(state.e)}",
        "G90" if state.absolute_xyz else "G91",
        "M83" if state.relative_e else "M82",
        f"M106 S{state.fan}" if state.fan else "M107",
    ]
    if state.feed is not None:
        commands.append(f"G1 F{state.feed:g}")
    steps.append(
        f"restore E={state.e:g}, {'absolute' if state.absolute_xyz else 'relative'} XYZ, "
        f"{'relative' if state.relative_e else 'absolute'} E, fan {state.fan}/255"
        + (f", feed rate F{state.feed:g}" if state.feed is not None else "")
    )
    return commands


def reconnect_plan(
    state: GcodeState, line: int, layer: int | None, motion: Motion, *, prime_mm: float = 0.0
) -> ResumePlan:
    """Resume after the link came back and the printer did not restart (it kept Z).

    `prime_mm` pushes back filament a host park retracted before the link dropped.
    """
    steps: list[str] = []
    commands = _heat(state, steps, set_only=True) + _lift(motion, steps)
    commands += _heat(state, steps, set_only=False) + _home_xy(steps)
    commands += _go_back(state, state.z, motion, steps)
    if prime_mm > 0:
        steps.append(f"push back the {prime_mm:g} mm retracted when parking")
        commands += ["M83", f"G1 E{_mm(prime_mm)} F{motion.e_feed:g}"]
    commands += restore_modes(state, steps)
    steps.append(f"continue at file line {line}")
    return ResumePlan(layer, state.z, line, steps, commands)


def layer_plan(
    layer: LayerStart, at_start: GcodeState, declared_z: float, motion: Motion
) -> ResumePlan:
    """Resume from the start of `layer` on a printer that restarted and lost Z (see module doc).

    `at_start` is the file's state before the layer's first line; `declared_z` the height the
    nozzle is taken to be at now (the lowest it may have reached).
    """
    steps: list[str] = [
        f"assume the nozzle has not moved since the print stopped and is at Z={declared_z:g} "
        "(if it was moved or homed, do not use this plan)"
    ]
    commands = _heat(at_start, steps, set_only=True)
    steps.append(f"declare Z={declared_z:g} (G92)")
    commands += [f"G92 Z{_mm(declared_z)}", *_lift(motion, steps)]
    commands += _heat(at_start, steps, set_only=False) + _home_xy(steps)
    settings = [at_start.settings[code] for code in SETTING_CODES if code in at_start.settings]
    if settings:
        steps.append("send again the print's machine settings the restart forgot")
        commands += settings
    z = max(layer.z, at_start.z) if at_start.z is not None else layer.z
    commands += _go_back(at_start, z, motion, steps) + restore_modes(at_start, steps)
    steps.append(f"continue at layer {layer.number}'s first line (file line {layer.index})")
    return ResumePlan(layer.number, layer.z, layer.index, steps, commands)


def park_commands(state: GcodeState, motion: Motion) -> list[str]:
    """Host-side park for a pause: retract, lift (up to max_z_mm), go to the park X/Y."""
    park_z = None if state.z is None else min(state.z + motion.park_lift_mm, motion.max_z_mm)
    lift = [f"G1 Z{_mm(park_z)} F{motion.z_feed:g}"] if park_z is not None else []
    x, y = motion.park_xy
    return [
        "M83",
        f"G1 E-{_mm(motion.retract_mm)} F{motion.e_feed:g}",
        "G90",
        *lift,
        f"G1 X{_mm(x)} Y{_mm(y)} F{motion.travel_feed:g}",
    ]


def unpark_commands(state: GcodeState, motion: Motion) -> list[str]:
    """The exact way back from `park_commands`: over the print, down, un-retract, modes."""
    steps: list[str] = []
    commands = ["G90"]
    if state.x is not None and state.y is not None:
        commands.append(f"G1 X{_mm(state.x)} Y{_mm(state.y)} F{motion.travel_feed:g}")
    if state.z is not None:
        commands.append(f"G1 Z{_mm(state.z)} F{motion.z_feed:g}")
    commands += ["M83", f"G1 E{_mm(motion.retract_mm)} F{motion.e_feed:g}"]
    return commands + restore_modes(state, steps)
