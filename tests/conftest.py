"""Settings for the whole suite.

Property tests (hypothesis) are derandomized: every run tries the same examples, so a test
either passes or fails for everyone (the examples still cover the whole input space the
strategies describe). Set ``HYPOTHESIS_PROFILE=explore`` to search with fresh random examples.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("deterministic", derandomize=True, deadline=None, database=None)
settings.register_profile("explore", deadline=None, max_examples=500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))
