"""Leaving a stage out is never better than writing it badly (issue 27; seed 002, C.3.1: the
missing-stage penalty exists so that a model cannot bypass stages). Checked for every stage on
every graph, whatever the other stages score, whichever other stages are absent and whatever the
meta checks say: a stage left out scores at most what it scores written with any raw score, and
strictly less whenever the written solution scores above 0."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench_plugins.judging.scoring.aggregate import MetaJudgement, final_score, propagate
from workbench_plugins.judging.scoring.graphs import GRAPHS
from workbench_plugins.judging.scoring.stages import STAGES

scores = st.floats(min_value=0.0, max_value=10.0, allow_nan=False)
raw_scores = st.fixed_dictionaries({stage: scores for stage in STAGES})
others_absent = st.sets(st.sampled_from(STAGES))
metas = st.builds(MetaJudgement, coverage=scores, verbosity=scores, sanity_fail=st.booleans())


def s_final(raw: dict[str, float], graph: str, absent: list[str], meta: MetaJudgement) -> float:
    raw = raw | {stage: 0.0 for stage in absent}  # as the pipeline stores absent stages
    return final_score(raw, propagate(raw, graph, absent), meta, absent).s_final


@pytest.mark.parametrize("graph", sorted(GRAPHS))
@pytest.mark.parametrize("stage", STAGES)
@settings(max_examples=60, deadline=None)
@given(raw=raw_scores, absent=others_absent, written=scores, meta=metas)
def test_leaving_a_stage_out_never_beats_writing_it_badly(
    graph: str,
    stage: str,
    raw: dict[str, float],
    absent: set[str],
    written: float,
    meta: MetaJudgement,
) -> None:
    others = sorted(absent - {stage})
    with_it = s_final(raw | {stage: written}, graph, others, meta)
    without_it = s_final(raw, graph, [*others, stage], meta)
    assert without_it <= with_it
    if with_it > 0:
        assert without_it < with_it


@pytest.mark.parametrize("graph", sorted(GRAPHS))
@pytest.mark.parametrize("stage", STAGES)
def test_a_stage_written_with_raw_zero_beats_the_same_stage_left_out(
    graph: str, stage: str
) -> None:
    # the exhaustive worst case for writing: every other stage clean, the stage scored 0
    perfect = MetaJudgement(coverage=10, verbosity=10, sanity_fail=False)
    clean = {name: 10.0 for name in STAGES}
    with_it = s_final(clean | {stage: 0.0}, graph, [], perfect)
    without_it = s_final(clean, graph, [stage], perfect)
    assert without_it == pytest.approx(max(0.0, with_it - 2.0))
