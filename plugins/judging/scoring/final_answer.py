"""The final answer checked by our code against the ground truth, with pint (not by the judge).

Reading: the last line of the FA stage whose number carries a unit of the asked dimension (else
the last line with a number; so "y = 6.84 mm" then "(about L/800)" reads 6.84 mm); after the
line's last "=" or ":" if a number follows; the first number there (1.2e-3, 1.2 x 10^-3 or with
a times sign, 12,500 and LaTeX such as `$12.4\\,\\mathrm{mm}$` are understood) and the longest
run of the following words that pint reads as a unit (so "12.4 mm (downward)" is 12.4 mm). A
unit of the asked dimension is preferred over a longer one that is not ("12 mm in size" is mm,
not mm·inch).

Bands (seed 002, section 4.1), relative error |value - truth| / |truth| after conversion to the
asked unit: <= 5 % correct, 5-10 % moderate (-4), > 10 % major (-7); the edges belong to the
better band (1e-9 tolerance, so a value exactly 5 % off is "correct" whatever the floats do).
Additional rules (the spec leaves their size open; these follow Table 3, unit errors = moderate):
- no unit, or a unit pint does not know: moderate (-4), and the number is read in the asked unit
  (no penalty when the asked quantity is dimensionless);
- a unit of another dimension: major (-7), the value is not comparable, and the fatal flag
  dimensionally_inconsistent (cap 2);
- a negative absolute temperature: physically_impossible_result (cap 2);
- no number at all: critical (-10).
"""

from __future__ import annotations

import math
import re
from typing import Literal

import pint
from pydantic import BaseModel

from workbench_plugins.judging.problems.model import UREG, Problem
from workbench_plugins.judging.scoring.aggregate import StageError

Band = Literal["correct", "moderate", "major", "not_comparable", "missing"]
EDGE_TOLERANCE = 1e-9
MAX_UNIT_WORDS = 4

_EXPONENT = r"(?:\s*[eE]\s*[-+]?\d+|\s*[x\u00d7\u00b7*]\s*10\s*\^\s*\{?\s*[-+]?\d+\s*\}?)"
NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?" + _EXPONENT + "?")
_MANTISSA_EXPONENT = re.compile(
    r"^(.*?)(?:\s*(?:[eE]|[x\u00d7\u00b7*]\s*10\s*\^)\s*\{?\s*([-+]?\d+)\s*\}?)?$"
)
_LATEX_WRAPPERS = re.compile(r"\\(?:mathrm|text|textrm|rm|operatorname|mathit)\s*\{([^{}]*)\}")
_REPLACEMENTS = (
    ("\\times", "\u00d7"),
    ("\\cdot", "·"),
    ("\\approx", "="),
    ("≈", "="),
    ("\\%", "%"),
    ("\\,", " "),
    ("\\;", " "),
    ("\\ ", " "),
    ("\\!", ""),
    ("$", ""),
    ("\u2212", "-"),
    ("\u2013", "-"),
    ("⁻", "-"),
)
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")


class FinalAnswerCheck(BaseModel):
    """What was read from the final answer and how it compares with the ground truth."""

    read: str  # the piece of text the value was read from
    value: float | None  # in expected_unit (None when missing or not comparable)
    unit: str | None  # the unit as written (None when no unit was given)
    expected_value: float
    expected_unit: str
    relative_error: float | None
    band: Band
    errors: list[StageError]
    fatal: list[str]
    note: str


def _normalise(text: str) -> str:
    text = _LATEX_WRAPPERS.sub(r"\1", text)
    for old, new in _REPLACEMENTS:
        text = text.replace(old, new)
    return text


def _number(text: str) -> float:
    """A matched number as a float (thousands commas dropped, "e-3" and "x 10^-3" applied)."""
    match = _MANTISSA_EXPONENT.match(text.strip())
    if match is None:  # NUMBER only matches what this pattern splits
        raise ValueError(f"not a number: {text!r}")
    value = float(match.group(1).replace(",", ""))
    return value * 10.0 ** int(match.group(2)) if match.group(2) else value


def _candidate_units(words: list[str]) -> list[str]:
    candidates = []
    for count in range(min(len(words), MAX_UNIT_WORDS), 0, -1):
        text = " ".join(words[:count]).rstrip(".,;:*`").replace("·", "*").translate(_SUPERSCRIPTS)
        if text.count("(") < text.count(")"):
            text = text.rstrip(")")
        if text:
            candidates.append(text)
    return candidates


def _read_unit(words: list[str], dimensionality: object) -> tuple[pint.Unit | None, str | None]:
    """The unit after the number: (unit, as written). (None, None) when no word follows; (None,
    text) when pint reads none of it. A unit of the expected dimension wins over a longer one."""
    parsed: list[tuple[pint.Unit, str]] = []
    for text in _candidate_units(words):
        try:
            parsed.append((UREG.parse_units(text), text))
        except (pint.errors.PintError, ValueError, TypeError, AttributeError, SyntaxError):
            continue
    if not words:
        return None, None
    for unit, text in parsed:
        if unit.dimensionality == dimensionality:
            return unit, text
    if parsed:
        return parsed[0]
    return None, " ".join(words[:MAX_UNIT_WORDS])


def _readings(text: str) -> list[tuple[str, re.Match[str]]]:
    """Each line holding a number, last line first: the line (or its tail after the last = or
    :) and the number's match."""
    readings = []
    for line in reversed(_normalise(text).splitlines()):
        for separator in ("=", ":"):
            _, found, tail = line.rpartition(separator)
            if found and NUMBER.search(tail):
                line = tail
                break
        match = NUMBER.search(line)
        if match:
            readings.append((line, match))
    return readings


def _band(relative: float) -> Band:
    if relative <= 0.05 + EDGE_TOLERANCE:
        return "correct"
    if relative <= 0.10 + EDGE_TOLERANCE:
        return "moderate"
    return "major"


def check_final_answer(fa_text: str | None, problem: Problem) -> FinalAnswerCheck:
    """Compare the final answer's value with `problem.answer()` (see the module docstring)."""
    readings = _readings(fa_text or "")
    if not readings:
        error = StageError(description="No numerical final answer is given.", severity="critical")
        return _result(
            problem, (fa_text or "").strip()[:200], "missing", errors=[error], note="no number"
        )
    truth = problem.answer()
    options = [
        (line, match, *_read_unit(line[match.end() :].split(), truth.dimensionality))
        for line, match in readings
    ]
    fitting = [option for option in options if _fits(option[2], option[3], truth)]
    line, match, unit, written = (fitting or options)[0]
    return _compare(line.strip(), _number(match.group(0)), unit, written, problem)


def _fits(unit: pint.Unit | None, written: str | None, truth: pint.Quantity) -> bool:
    """Whether a reading has the asked dimension (a bare number fits a dimensionless answer)."""
    if unit is None:
        return written is None and bool(truth.dimensionless)
    return bool(unit.dimensionality == truth.dimensionality)


def _result(
    problem: Problem,
    read: str,
    band: Band,
    *,
    errors: list[StageError],
    note: str,
    value: float | None = None,
    unit: str | None = None,
    relative_error: float | None = None,
    fatal: list[str] | None = None,
) -> FinalAnswerCheck:
    return FinalAnswerCheck(
        read=read,
        value=value,
        unit=unit,
        expected_value=problem.answer_value,
        expected_unit=problem.answer_unit,
        relative_error=relative_error,
        band=band,
        errors=errors,
        fatal=fatal or [],
        note=note,
    )


def _read_quantity(
    number: float, unit: pint.Unit | None, written: str | None, truth: pint.Quantity, asked_in: str
) -> tuple[pint.Quantity, list[StageError]]:
    """The answer as a quantity; a missing or unknown unit is read as the asked one (penalised
    unless the asked quantity is dimensionless, where a plain fraction is read too)."""
    if unit is not None:
        return UREG.Quantity(number, unit), []
    quantity = UREG.Quantity(number, truth.units)
    if truth.dimensionless:
        if written is None:
            plain = UREG.Quantity(number, "dimensionless").to(truth.units)
            quantity = min((quantity, plain), key=lambda q: abs(q.magnitude - truth.magnitude))
        return quantity, []
    what = "No unit is given" if written is None else f"The unit {written!r} is unknown"
    message = f"{what}; the number was read in {asked_in}."
    return quantity, [StageError(description=message, severity="moderate")]


def _compare(
    read: str, number: float, unit: pint.Unit | None, written: str | None, problem: Problem
) -> FinalAnswerCheck:
    truth = problem.answer()
    asked_in = problem.answer_unit or "dimensionless"
    quantity, errors = _read_quantity(number, unit, written, truth, asked_in)
    if quantity.dimensionality != truth.dimensionality:
        message = (
            f"The answer is in {written} ({quantity.dimensionality}), but {problem.asked} is "
            f"asked in {asked_in} ({truth.dimensionality})."
        )
        errors.append(StageError(description=message, severity="major"))
        return _result(
            problem,
            read,
            "not_comparable",
            errors=errors,
            note="the unit has the wrong dimension",
            unit=written,
            fatal=["dimensionally_inconsistent"],
        )
    fatal: list[str] = []
    if truth.dimensionality == UREG.kelvin.dimensionality and quantity.to("K").magnitude < 0:
        fatal.append("physically_impossible_result")
        message = "The absolute temperature is below 0 K."
        errors.append(StageError(description=message, severity="critical"))
    value = float(quantity.to(truth.units).magnitude)
    relative = _relative_error(value, float(truth.magnitude))
    band = _band(relative)
    if band != "correct":
        size = "5-10 %" if band == "moderate" else "more than 10 %"
        message = (
            f"The value {value:.4g} {asked_in} is {relative * 100:.1f} % off the ground truth "
            f"{truth.magnitude:.4g} {asked_in} ({size})."
        )
        errors.append(StageError(description=message, severity=band))
    return _result(
        problem,
        read,
        band,
        errors=errors,
        note=f"{relative * 100:.2f} % off the ground truth",
        value=value,
        unit=written,
        relative_error=relative,
        fatal=fatal,
    )


def _relative_error(value: float, truth: float) -> float:
    if truth == 0:
        return 0.0 if value == 0 else math.inf
    return abs(value - truth) / abs(truth)
