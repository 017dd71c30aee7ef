"""`DIR/index.html` after a run: what ran (models and their settings, judges, presets,
software, machine), one section per suite with its headline table and a link to its report,
rendered in headless Chromium as a person opens it."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.bench.test_bench_runner import bench, finish
from tests.support.artifacts import artifact_folder
from tests.support.chromium import screenshot


def test_index_names_the_run_and_links_each_suite_report(sample_plugins, tmp_path: Path) -> None:
    out = tmp_path / "run"
    code, _, err = finish(
        bench("sample", "sample_faulty", "--model", "reference", "--out", str(out))
    )
    assert code == 1, err  # sample_faulty's harness error: the index is written all the same
    page = (out / "index.html").read_text()
    for fact in ("Models", "reference", "Software", "engibench", "Machine", "cores"):
        assert fact in page, fact
    sample = page[page.index("<h2>sample</h2>") : page.index("<h2>sample_faulty</h2>")]
    assert 'href="sample-report.txt"' in sample and "<th>score</th>" in sample
    faulty = page[page.index("<h2>sample_faulty</h2>") :]
    assert "writes no report" in faulty and "<td class=num>1</td>" in faulty  # its error
    assert "http://" not in page and "https://" not in page  # offline
    shot = tmp_path / "index.png"
    pixels = screenshot(out / "index.html", shot, tmp_path / "profile", size="1200,1400")
    kept = artifact_folder() / "bench-index.png"
    shutil.copyfile(shot, kept)
    assert pixels.std() > 10, f"blank screenshot? see {kept}"


def test_a_rule_based_judge_is_named_so_in_the_summary_and_the_index(tmp_path: Path) -> None:
    """The rubric judge has no tokens and measures no judge: wherever its numbers appear (the
    terminal's table, index.html) it says it is rules, while a model judge is shown by name."""
    from workbench.bench.index_page import write_index
    from workbench.bench.overview import suite_lines
    from workbench.bench.suite import RULES_KIND

    def cell(judge: str, kind: str) -> dict:
        return {
            "suite": "engjudge", "model": "reference", "judge": judge, "status": "ok",
            "scores": {"final": 5.0}, "judge_settings": {"profile": judge, "kind": kind},
        }  # fmt: skip

    finished = [cell("rubric", RULES_KIND), cell("ollama:qwen3", "ollama")]
    lines = suite_lines(finished, {}, {})  # type: ignore[arg-type]
    assert sorted(line.judge for line in lines) == [
        "ollama:qwen3",
        "rubric (rule-based, no model)",
    ]
    page = write_index(tmp_path, finished, lines).read_text()  # type: ignore[arg-type]
    assert "rubric (rule-based, no model)" in page and "ollama:qwen3" in page
