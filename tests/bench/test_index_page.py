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
