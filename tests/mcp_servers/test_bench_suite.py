"""The `mcp-roundtrip` suite through the real bench command: each cell starts Workbench's own MCP
server (`workbench --headless mcp` over stdio, its home in the cell) and reaches it through the
mcp_servers plugin's client on a kept session. The reference is faithful with positive timings;
a policy that skips the server, or tampers with one answer, scores 0; each record is bound to
its sealed file; the report is written. One bench run for the module (two server starts: the
skipping policy starts none)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from tests.conftest import ROOT
from workbench.bench.results import CellRecord, cell_folder, read_cells
from workbench_plugins.mcp_servers.bench.policies import Played, policy_of, server_workspace
from workbench_plugins.mcp_servers.bench.report import PLOT, REPORT
from workbench_plugins.mcp_servers.bench.scoring import (
    RESULTS,
    comparable,
    difference,
    judge,
    scores_of,
)

POLICIES = ("reference", "offtarget:skips-server", "offtarget:tampered")
TASK = "roundtrip/list_problems"  # the cheap one: 20 calls


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, CellRecord]]:
    """`workbench --headless bench mcp-roundtrip` with the three policies, in a home of its own;
    yields the results folder and the records by model."""
    base = tmp_path_factory.mktemp("mcp-bench")
    out = base / "out"
    env = {
        **os.environ,
        "WORKBENCH_HOME": str(base / "home"),
        "OLLAMA_HOST": "http://127.0.0.1:9",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    models = [argument for model in POLICIES for argument in ("--model", model)]
    command = [sys.executable, "-m", "workbench", "--headless", "bench", "mcp-roundtrip"]
    done = subprocess.run(
        [*command, "--tasks", TASK, *models, "--out", str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    records = {str(record["model"]): record for record in read_cells(out).values()}
    return out, records


def test_the_reference_round_trip_is_faithful_and_costs_something(
    bench: tuple[Path, dict[str, CellRecord]],
) -> None:
    _, records = bench
    record = records["reference"]
    assert record["status"] == "ok", record.get("error")
    scores, details = record["scores"], record["details"]
    assert scores["faithful"] == 1.0, details["problems"]
    assert details["problems"] == []
    assert scores["calls"] == 20
    assert scores["mcp_ms"] > 0 and scores["direct_ms"] > 0 and scores["start_s"] > 0
    assert scores["ratio"] == pytest.approx(scores["mcp_ms"] / scores["direct_ms"], rel=1e-3)
    assert details["server"]["calls_recorded"] == 20
    assert details["server"]["caller"] == "mcp:mcp"
    assert len(details["mcp_ms_each"]) == len(details["direct_ms_each"]) == 20


def test_skipping_the_server_is_not_faithful_however_good_it_looks(
    bench: tuple[Path, dict[str, CellRecord]],
) -> None:
    out, records = bench
    record = records["offtarget:skips-server"]
    assert record["status"] == "ok", record.get("error")
    assert record["scores"]["faithful"] == 0.0
    assert record["scores"]["overhead_ms"] == 0.0  # it claims the direct calls' timings
    assert any("no call reached it" in problem for problem in record["details"]["problems"])
    folder = _folder(out, record)
    assert not (folder / "server-home").exists()  # never started, so no store was made


def test_one_tampered_answer_is_caught_by_the_direct_results_and_the_servers_store(
    bench: tuple[Path, dict[str, CellRecord]],
) -> None:
    _, records = bench
    record = records["offtarget:tampered"]
    assert record["status"] == "ok", record.get("error")
    assert record["scores"]["faithful"] == 0.0
    assert record["details"]["server"]["calls_recorded"] == 20  # it did call the server
    problems = record["details"]["problems"]
    assert any(p.startswith("answer 20 differs from the direct call at .note") for p in problems)
    assert any(p.startswith("answer 20 is not what the server recorded") for p in problems)
    assert not any(p.startswith("answer 19") for p in problems)


def test_every_record_is_bound_to_its_sealed_file(
    bench: tuple[Path, dict[str, CellRecord]],
) -> None:
    out, records = bench
    for model in POLICIES:
        record = records[model]
        sealed = _folder(out, record) / RESULTS
        digest = hashlib.sha256(sealed.read_bytes()).hexdigest()
        assert record["details"]["results"] == {"file": RESULTS, "sha256": digest}, model
        assert json.loads(sealed.read_bytes())["policy"] == model
        # the score is gated on that binding (workbench.bench.earned): it held when recorded
        assert record["details"]["bindings"] == [f"sealed {RESULTS}: sha256 {digest[:12]} holds"]
        assert "unbound" not in record["details"]


def test_editing_the_sealed_file_after_the_run_makes_it_unfaithful(
    bench: tuple[Path, dict[str, CellRecord]], tmp_path: Path
) -> None:
    """The score is the file's: judged again after one answer changed (text and result alike),
    the reference's copy fails against its server's own store."""
    out, records = bench
    copy = tmp_path / "cell"
    shutil.copytree(_folder(out, records["reference"]), copy)
    document = json.loads((copy / RESULTS).read_text(encoding="utf-8"))
    originals = [answer["result"] for answer in document["answers"]]
    no_arguments: dict[str, object] = {}
    arguments = (copy, "list_problems", no_arguments, 20, originals, server_workspace(copy))
    assert judge(*arguments).faithful  # as sealed: faithful

    edited = dict(originals[3], problems=originals[3]["problems"][:-1])
    document["answers"][3].update(result=edited, text=json.dumps(edited))
    (copy / RESULTS).write_text(json.dumps(document), encoding="utf-8")
    verdict = judge(*arguments)

    assert not verdict.faithful
    assert verdict.sha256 != records["reference"]["details"]["results"]["sha256"]
    assert any("answer 4 is not what the server recorded" in p for p in verdict.problems)


def test_the_report_has_a_row_per_cell_and_a_plot(
    bench: tuple[Path, dict[str, CellRecord]],
) -> None:
    out, _ = bench
    text = (out / REPORT).read_text(encoding="utf-8")
    assert f"]({PLOT})" in text
    rows = [line for line in text.splitlines() if line.startswith("| list_problems |")]
    assert [row.split(" | ")[1] for row in rows] == list(POLICIES)
    assert [row.split(" | ")[4] for row in rows] == ["1", "0", "0"]  # faithful
    assert (out / PLOT).read_bytes().startswith(b"\x89PNG")


def test_only_answers_that_succeeded_are_timed(tmp_path: Path) -> None:
    """An error answer's time measures no round trip: it is left out of the MCP timings (and a
    cell with no good answer has no overhead), while the verdict says the answer failed."""
    answers = [
        {"ms": 2.0, "is_error": False, "result": {"a": 1}, "text": json.dumps({"a": 1})},
        {"ms": 900.0, "is_error": True, "result": None, "text": "refused"},
    ]
    (tmp_path / RESULTS).write_text(json.dumps({"answers": answers}), encoding="utf-8")
    verdict = judge(tmp_path, "list_problems", {}, 2, [{"a": 1}, {"a": 1}], tmp_path)
    assert verdict.mcp_ms == [2.0]
    assert not verdict.faithful and any("answer 2 is an error" in p for p in verdict.problems)
    none_good = replace(verdict, mcp_ms=[])
    played = Played([], [], [1.0, 1.0], 0.0, 0)
    assert scores_of(none_good, played)["overhead_ms"] == 0.0
    assert scores_of(none_good, played)["ratio"] == 0.0


def test_comparison_leaves_out_only_what_differs_between_workspaces(tmp_path: Path) -> None:
    server, own = tmp_path / "server" / "workspace", tmp_path / "cell"
    through_mcp = {"job_id": "job-7", "elapsed_s": 3.2, "path": f"{server}/outputs/a.npy", "c": 1.5}
    direct = {"job_id": "job-1", "elapsed_s": 2.9, "path": f"{own}/outputs/a.npy", "c": 1.5}
    assert difference(comparable(through_mcp, server), comparable(direct, own)) is None

    direct["c"] = 1.5000001
    assert (
        difference(comparable(through_mcp, server), comparable(direct, own))
        == ".c (1.5 vs 1.5000001)"
    )
    assert difference({"a": [1, 2]}, {"a": [1, 2, 3]}) == ".a (2 items, not 3)"
    assert difference({"a": 1}, {"a": 1.0}) is not None  # a type changed on the way


def _folder(out: Path, record: CellRecord) -> Path:
    return cell_folder(out, str(record["key"]))


def test_a_model_plays_the_reference_and_an_unknown_off_target_policy_is_refused() -> None:
    assert policy_of("ollama:qwen3:4b") == "reference"  # the suite measures no model
    assert policy_of("offtarget:tampered") == "offtarget:tampered"
    with pytest.raises(ValueError, match="offtarget:skips-server and offtarget:tampered"):
        policy_of("offtarget:nope")
