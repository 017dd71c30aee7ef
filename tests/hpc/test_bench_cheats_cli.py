"""Issue 27's acceptance for hpc-beams2d through the command a person runs, against the test
cluster's host profile: `workbench --headless bench hpc-beams2d --model offtarget:... --examples 1`
gives a headline mean of 0 for both policies that cheat, on every prompt style. One bench run
(both policies) for the module."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from workbench.bench.earned import CHEATS, CLAIMS_WITHOUT_WORK
from workbench.core.context import AppContext
from workbench_plugins.hpc.bench.prompts import STYLES
from workbench_plugins.hpc.bench.report import HTML_FILE
from workbench_plugins.hpc.bench.suite import ENV_EPOCHS, ENV_HOST, HpcSuite
from workbench_plugins.hpc.config import HpcSettings


def test_both_cheats_score_zero_through_the_bench_command(
    workbench_home: Path, tmp_path: Path, hpc_settings: HpcSettings
) -> None:
    context = AppContext.open()  # the home's settings, as the command reads them
    context.settings = context.settings.with_plugin("hpc", hpc_settings)
    context.save_settings()
    context.close()
    out = tmp_path / "out"
    models = [arg for model in CHEATS for arg in ("--model", model)]
    done = subprocess.run(
        [
            *(sys.executable, "-m", "workbench", "--headless", "bench", "hpc-beams2d"),
            *(*models, "--examples", "1", "--out", str(out)),
        ],
        env={**os.environ, "WORKBENCH_HOME": str(workbench_home), ENV_HOST: "local"}
        | {ENV_EPOCHS: "2"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    groups = json.loads((out / "summary.json").read_text())["groups"]
    for model in CHEATS:
        mine = [group for group in groups if group["model"] == model]
        assert {group["style"] for group in mine} == set(STYLES), model
        for group in mine:
            assert group["errors"] == 0, group
            for name in HpcSuite.headline:
                assert group["mean"][name] == 0.0, (model, name, group)
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(records) == len(CHEATS) * len(STYLES)
    for record in records:
        calls = record["details"]["calls"]
        if record["model"] == CLAIMS_WITHOUT_WORK:  # no call, a confident claim of all six
            assert calls == [] and record["scores"]["metrics_extracted"] == 1.0
            assert record["scores"]["metrics_invented"] == 1.0
        else:  # the reference's four calls, every one refused
            assert [c["tool"] for c in calls] == record["details"]["optimal_calls"]
            assert not any(call["ok"] for call in calls)
    assert (out / HTML_FILE).is_file() and HTML_FILE in (out / "index.html").read_text()
