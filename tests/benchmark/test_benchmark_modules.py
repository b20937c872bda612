"""benchmark/run.py split by job (issue 68, goal 4): each part in a module of its own, and
every public name ``sixtysix_env.benchmark.run`` had still importable from it."""

from __future__ import annotations

import importlib

import pytest

from sixtysix_env.benchmark import run

#: Each module and what it holds: every public name of run.py before the split.
JOBS = {
    "schema": "FORMAT FORMAT_VERSION Opponent BenchmarkResult Kind NULL TEXT NAME FLAG COUNT "
              "NUMBER SECONDS SHARE INTERVAL RATINGS TIMES TIMES_BY_AGENT AGENT_FILE OBJECTS "
              "RESULT_KINDS OPPONENT_KINDS check_values RESULT_INTERVALS PAIR_INTERVALS "
              "outside_interval check_protocol load_benchmark",
    "identity": "agent_file recorded_policy",
    "elo": "PRIOR fit_against fit_ladder reference_ratings ladder_file_ratings",
    "pairs": "PairRun BenchmarkStopped play_pair PairStore",
    "filenames": "file_stem result_file_name ladder_file_name check_replaceable",
    "estimates": "HANDS_PER_MATCH pairs_to_play PairTiming time_pairs Estimate duration_text "
                 "estimate",
}
#: Names a job's module gives that one module below it defines (one copy of the code).
DEFINED_ELSEWHERE = {"duration_text": "sixtysix_env.evaluation.estimate"}


@pytest.mark.parametrize("job", sorted(JOBS))
def test_each_job_is_a_module_and_run_still_gives_its_names(job):
    module = importlib.import_module(f"sixtysix_env.benchmark.{job}")
    for name in JOBS[job].split():
        assert getattr(run, name) is getattr(module, name), name
        found = getattr(module, name)
        if callable(found) and hasattr(found, "__module__"):  # defined there, not imported
            assert found.__module__ == DEFINED_ELSEWHERE.get(name, module.__name__), name


def test_run_holds_the_benchmark_and_lists_what_it_gives():
    assert run.benchmark.__module__ == "sixtysix_env.benchmark.run"
    given = {n for names in JOBS.values() for n in names.split()} | {"benchmark"}
    assert given <= set(run.__all__)
    assert all(hasattr(run, n) for n in run.__all__)
