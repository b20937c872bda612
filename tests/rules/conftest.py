"""The ``engine`` fixture: the rule battery on the reference and the batched engine."""

from __future__ import annotations

import pytest

DEALERS = ("deal_from_deck", "new_hand")


@pytest.fixture(params=["reference", "batched"])
def engine(request, monkeypatch):
    """Under ``batched``, the test module's ``deal_from_deck`` and ``new_hand`` deal
    :class:`_engines.TwinState` hands: every action is played on both
    engines and their answers compared (``_engines.py``)."""
    if request.param == "batched":
        pytest.importorskip("numba")
        from _engines import twinned

        for name in DEALERS:
            if hasattr(request.module, name):
                monkeypatch.setattr(request.module, name, twinned(getattr(request.module, name)))
    return request.param
