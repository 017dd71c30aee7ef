"""`hpc-beams2d` validated on the real cluster, in one bench run for the module:

- issue 27: the reference does all four steps and keeps full marks with its evaluated outputs
  bound; each off-target policy scores exactly as designed; both policies that cheat
  (fails-every-call, claims-without-work) score 0 on the headline on every style;
- issue 30: the run's hpc-report.html holds Figure 7 (step completion per prompt style) and
  Figures 8 and 9 (the metrics per model and algorithm beside the baselines computed here, named
  as such), with the paper's column names, its figures as PNG files it links, is linked from
  index.html, and renders in headless Chromium.
"""

from __future__ import annotations

import html
import shutil
from pathlib import Path

from tests.support.artifacts import artifact_folder
from tests.support.chromium import screenshot
from workbench.bench.earned import CHEATS
from workbench.bench.results import bench_workspace, read_cells
from workbench.core.context import AppContext
from workbench_plugins.hpc.bench import baselines, report
from workbench_plugins.hpc.bench.prompts import STYLES
from workbench_plugins.hpc.bench.suite import HpcSuite
from workbench_plugins.hpc.bench.validate import CI_INTERVAL, CI_SAMPLES, plan_cells, validate
from workbench_plugins.hpc.config import HpcSettings

CAPTIONS = (
    "Figure 7 (cGAN): Average step completion rates",
    "Figure 7 (diffusion): Average step completion rates",
    "Figure 8: Offline model quality metrics for agent-trained cGAN models vs. baselines "
    "computed here",
    "Figure 9: Offline model quality metrics for agent-trained diffusion models vs. baselines "
    "computed here",
    "HPC scores per model and prompt style",
)
STEP_HEAD = "<th>Generate</th><th>Submit</th><th>Monitor</th><th>Evaluate</th>"
METRIC_HEAD = (
    "<th>IOG &darr;</th><th>COG &darr;</th><th>FOG &darr;</th><th>MMD &darr;</th>"
    "<th>DPP &uarr;</th><th>RVC &darr;</th>"
)
FIGURES = (
    "figure7-cgan_cnn_2d.png",
    "figure7-diffusion_2d_cond.png",
    "figure8-cgan_cnn_2d.png",
    "figure9-diffusion_2d_cond.png",
)


def test_validation_on_the_cluster_and_the_papers_report(
    workbench_home: Path, tmp_path: Path, hpc_settings: HpcSettings
) -> None:
    out = tmp_path / "hpc-validation"
    context = AppContext.open(workspace=bench_workspace(out.resolve()))
    context.settings.plugins["hpc"] = hpc_settings.model_dump(mode="json")
    # a short training; host: the first configured
    suite = HpcSuite(epochs=2, check_interval=CI_INTERVAL, n_samples=CI_SAMPLES)
    try:
        result = validate(context, out, suite)
    finally:
        context.close()
    assert result.passed, "\n".join(result.failures)
    # 2 reference, 2 off-target, 2 cheats x 4 styles
    assert result.checked == len(plan_cells(suite)) == 12
    assert any("reference" in line and "overall = 1.0000" in line for line in result.measured)
    cheat_lines = [line for line in result.measured if "(must be 0)" in line]
    assert len(cheat_lines) == len(CHEATS) * len(STYLES) * len(suite.headline)
    records = read_cells(out.resolve())
    for record in records.values():
        if record["model"] == "reference":
            assert record["details"]["bindings"] and "unbound" not in record["details"]
            assert record["details"]["evaluated_outputs"][0]["recipe"]["epochs"] == 2
    check_report(out, tmp_path)


def check_report(out: Path, tmp_path: Path) -> None:
    page = (out / report.HTML_FILE).read_text()
    for caption in CAPTIONS:
        assert caption in page, caption
    assert page.count(STEP_HEAD) == 2 and page.count(METRIC_HEAD) == 2
    # Figure 7's rows: the reference plays the explicit prompts, the cheats every prompt
    assert '<td class="l">Explicit</td><td class="l">reference</td>' in page
    for model in CHEATS:
        for prompt in ("Explicit", "Natural"):
            row = f'<td class="l">{prompt}</td><td class="l">{model}</td><td>1</td>'
            assert row + "<td>0.00</td>" * 4 in page, (model, prompt)
    assert page.count('<td class="l">reference (agent-trained)</td>') == 2  # both algorithms
    for label in baselines.LABELS.values():  # each baseline, named, beside both algorithms
        assert page.count(f'<td class="l">Baseline: {html.escape(label)}</td>') == 2, label
    assert (out / baselines.BASELINE_FILE).is_file()
    for name in FIGURES:
        target = f"{report.FIGURES}/{name}"
        assert f'<a href="{target}"><img' in page, name
        assert (out / target).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
    assert "http://" not in page and "https://" not in page  # offline
    index = (out / "index.html").read_text()
    assert f'href="{report.HTML_FILE}"' in index
    shot = tmp_path / "hpc-report.png"
    pixels = screenshot(out / report.HTML_FILE, shot, tmp_path / "profile", size="1400,3000")
    kept = artifact_folder() / "hpc-report.png"
    shutil.copyfile(shot, kept)
    assert pixels.std() > 10, f"blank screenshot? see {kept}"
    assert (pixels < 128).mean() > 0.01  # text, table lines and the figures are drawn
