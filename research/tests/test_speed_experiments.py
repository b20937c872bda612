"""The experiments that were in speed/ (issue 68, goal 4) run from research/ as the notes
say (``python -m research.NAME``), and speed/ keeps the scripts that time things."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MOVED = ("expert_self_agreement", "search_variants", "suit_symmetry")


@pytest.mark.parametrize("name", MOVED)
def test_the_experiment_runs_from_research_and_is_gone_from_speed(name):
    out = subprocess.run([sys.executable, "-m", f"research.{name}", "--help"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("usage:")
    assert not (ROOT / "speed" / f"{name}.py").exists()


def test_a_deterministic_teacher_always_agrees_with_itself():
    from research.expert_self_agreement import self_agreement

    same, asked = self_agreement(hands=2, teacher="heuristic")
    assert asked > 0 and same == asked
