"""Submission files of the public benchmark: submission.json and prediction JSONL.

An agent writes `{"final_model": "<full source>"}` or, for tuning, `{"parameter_set": {...},
"final_report": "..."}`. JSONL lines carry `task_id` plus one of those; `case_id`/`id` are
accepted for `task_id` and `model_text` for `final_model`. Other keys (e.g. `model_name`,
`files`) are ignored. `sha256` is taken of the exact bytes read, so a verdict names the very
artifact it judged.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError

from workbench_plugins.modelica.task_packages.task_format import explain

LIBRARY_FOLDER = "library/"


class SubmissionError(ValueError):
    """A submission file that cannot be read as a submission; the message says why."""


class SubmissionFile(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    task_id: str = Field("", validation_alias=AliasChoices("task_id", "case_id", "id"))
    final_model: str | None = Field(
        None, validation_alias=AliasChoices("final_model", "model_text")
    )
    parameter_set: dict[str, float] | None = None
    final_report: str = ""
    sha256: str = Field("", exclude=True)  # of the exact bytes read (empty: made in memory)

    def digest(self) -> str:
        """The sha256 of what was read, or of the canonical JSON of a submission made here."""
        if self.sha256:
            return self.sha256
        canonical = json.dumps(self.model_dump(exclude_none=True), sort_keys=True)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    def public_json(self) -> dict[str, Any]:
        """The submission as an agent would write it (public format)."""
        if self.parameter_set is not None:
            return {"parameter_set": self.parameter_set, "final_report": self.final_report}
        return {"final_model": self.final_model or ""}


def _parse(data: object, where: str, raw: bytes) -> SubmissionFile:
    if not isinstance(data, dict):
        raise SubmissionError(f"{where} must be a JSON object, not {type(data).__name__}.")
    try:
        submission = SubmissionFile.model_validate(data)
    except ValidationError as error:
        raise SubmissionError(explain(error, f"{where} is not a submission")) from None
    submission.sha256 = hashlib.sha256(raw).hexdigest()
    return submission


def read_submission(path: Path) -> SubmissionFile:
    """A submission.json; SubmissionError when it is missing or not a JSON object."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise SubmissionError(f"No submission file at {path}.") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise SubmissionError(f"{path} is not valid JSON ({error}).") from None
    return _parse(data, str(path), raw)


def read_submissions_jsonl(path: Path) -> dict[str, SubmissionFile]:
    """Prediction JSONL: one submission per non-empty line, by task id (each needs one)."""
    found: dict[str, SubmissionFile] = {}
    try:
        lines = Path(path).read_bytes().splitlines()
    except FileNotFoundError:
        raise SubmissionError(f"No predictions file at {path}.") from None
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        where = f"{path} line {number}"
        try:
            data = json.loads(raw.decode("utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise SubmissionError(f"{where} is not valid JSON ({error}).") from None
        submission = _parse(data, where, raw)
        if not submission.task_id:
            raise SubmissionError(f"{where} names no task: give task_id (or case_id / id).")
        if submission.task_id in found:
            raise SubmissionError(f"{where} repeats task {submission.task_id!r}.")
        found[submission.task_id] = submission
    return found


def declares(text: str, model_name: str) -> bool:
    """Whether `text` declares the model (by the last part of its name)."""
    short = re.escape(model_name.rsplit(".", 1)[-1])
    pattern = rf"^\s*(?:(?:encapsulated|partial|replaceable|redeclare|final)\s+)*model\s+{short}\b"
    return re.search(pattern, text, re.M) is not None


def main_model_text(files: dict[str, str], model_name: str) -> str | None:
    """Of a workspace's files, the text of the one that declares the model (library files and
    files that merely mention the name skipped); None when none does."""
    own_file = f"{model_name.rsplit('.', 1)[-1]}.mo"
    ordered = sorted(files.items(), key=lambda item: (item[0] != own_file, item[0]))
    for name, text in ordered:
        if not name.startswith(LIBRARY_FOLDER) and declares(text, model_name):
            return text
    return None
