"""The offline MiniLM is loaded once per process, shared by the routing prior and retrieval's
offline embeddings, and loads quietly (no progress bar in a headless run's output). Run in a
fresh process: the test process may have the model already."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from tests.rigs.require import require_rig
from workbench.agents.routing.embedder import INSTALL
from workbench.core import minilm

SCRIPT = textwrap.dedent(
    """
    import json
    from workbench.core import minilm
    from workbench.agents.routing.embedder import MiniLM
    from workbench_plugins.retrieval.index.embeddings import OfflineEmbedder

    before = minilm.loaded()
    routed = MiniLM().encode(["optimise a beam"])
    first = minilm.minilm()
    searched = OfflineEmbedder().passages(["optimise a beam"])
    print(json.dumps({
        "before": before,
        "shared": minilm.minilm() is first,
        "same_vector": bool(abs(routed[0] - searched[0]).max() < 1e-5),
    }))
    """
)


def test_one_quiet_copy_of_the_model_serves_routing_and_retrieval() -> None:
    require_rig("offline MiniLM", minilm.installed(), INSTALL)
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert said == {"before": False, "shared": True, "same_vector": True}
    assert "Loading weights" not in done.stderr, done.stderr[-2000:]
