"""What the panel shows of one grading, in plain data: per stage the raw and propagated score and
the judge's errors with severity, the final score and what lowered it, the solution's format
problems, and judge failures in words. Built from the pipeline's Grade (report_of). Qt-free."""

from __future__ import annotations

from dataclasses import dataclass, field

SEVERITY_ORDER = ("critical", "major", "moderate", "minor")
BELOW_A_FAILURE = "no score"  # the badge of a stage whose parent has no score


@dataclass(frozen=True)
class ErrorLine:
    severity: str  # minor | moderate | major | critical, or "cap" for a fatal flag
    text: str


@dataclass(frozen=True)
class StageLine:
    stage: str  # PC ... FA
    name: str  # Problem Characterization ...
    raw: float | None  # None: no score (stage missing, or the judge failed)
    propagated: float | None
    errors: tuple[ErrorLine, ...] = ()
    comment: str = ""
    note: str = ""  # why there is no (or a zero) score, in words
    badge: str = ""  # the same in two words, for the graph's node

    def worst(self) -> str:
        found = {error.severity for error in self.errors}
        return next((severity for severity in ("cap", *SEVERITY_ORDER) if severity in found), "")


@dataclass(frozen=True)
class GradeReport:
    problem_id: str
    graph: str
    stages: tuple[StageLine, ...]
    final: float | None  # None: the judge failed, no final score
    lowered_by: tuple[str, ...] = ()
    format_notes: tuple[str, ...] = ()  # missing, repeated, empty ... stages
    failures: tuple[str, ...] = ()  # judge failures in words, one line per reason
    failed_calls: int = 0
    answer: str = ""  # the ground truth, shown after grading
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0
    figures: dict[str, float] = field(default_factory=dict)  # S_base, MP, ... for the tooltip
    judge: str = ""  # which model judged, for the person

    def calls_text(self) -> str:
        by = f" by {self.judge}" if self.judge else ""
        return (
            f"{self.calls} judge calls{by}: {self.tokens_in} tokens in, {self.tokens_out} out, "
            f"{self.seconds:.1f} s"
        )
