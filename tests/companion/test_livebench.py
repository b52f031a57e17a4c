"""The live bench's person answers the opener's question, so its plays reach the log."""

from __future__ import annotations

import pytest


@pytest.mark.slow
def test_livebench_plays_reach_the_log_with_the_opener_answered() -> None:
    """The first tile of the All Fives recording asks who led it (no seat is known yet); the
    bench's person answers with the recording's truth, so both plays are logged, not left as a
    question or turned into illegal alerts (about 10 s: real-time camera)."""
    from companion.livebench import run_bench

    out = run_bench(2, 30.0)
    assert out["plays"] == 2
    assert out["logged"] == 2, out["not_shown"]
    assert out["questions_answered"] and out["questions_answered"][0].startswith("6-6")
