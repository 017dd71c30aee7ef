"""`workbench --headless chat` with the REAL embedded model (SmolLM2-135M through llama.cpp) and
the real MiniLM routing prior: the routing decision comes out as a JSON line. Installed in CI;
a missing rig skips here and fails there."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.rigs.require import needs_rig
from workbench.agents.defaults import EMBEDDED_INSTALL, embedded_available
from workbench.agents.routing.embedder import INSTALL, minilm_installed


@pytest.mark.timeout(900)  # the two models load in a cold process; slow on a busy machine
@needs_rig("offline MiniLM", minilm_installed(), INSTALL)
@needs_rig("llama.cpp embedded model", embedded_available(), EMBEDDED_INSTALL)
def test_embedded_model_chat_prints_the_routed_event() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "workbench",
            "--headless",
            "chat",
            "Kill SLURM job 4821.",
            "--model",
            "llamacpp:embedded",
            "--no",  # nothing is cancelled on any cluster, whatever the model asks
            "--route-only",  # the decision is what is tested: no specialist's call
        ],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    routed = [line for line in lines if line["event"] == "routed"]
    assert routed, done.stdout[-3000:] + done.stderr[-3000:]
    first = routed[0]
    assert first["specialist"] == "hpc"
    assert first["how"] in ("confirmed", "kept", "alone")
    assert first["prior"]["hpc"] == max(first["prior"].values())
    assert lines[0]["event"] == "run_started" and lines[-1]["event"] == "run_finished"
    assert done.returncode == 0, done.stderr[-3000:]
