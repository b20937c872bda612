"""``sixtysix eval/benchmark --address``: the deals as Ray tasks, with the same figures.

Ray is in the [rllib] extra's virtual environment (CI: .venv-ci-rllib runs this
file); elsewhere these tests are skipped. An unreachable address needs no Ray:
tests/benchmark/test_benchmark.py checks that it fails at once.
"""

from __future__ import annotations

import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed (the [rllib] extra)")

from sixtysix_env.agents import RandomAgent  # noqa: E402
from sixtysix_env.benchmark import PROTOCOLS, Protocol, benchmark  # noqa: E402
from sixtysix_env.evaluation import IllegalAgentActionError, evaluate  # noqa: E402

TINY = Protocol(
    name="test-tiny-ray", rules="altmisalti", ladder=("random", "heuristic", "sixtysix-ppo"),
    search=frozenset(), deals=6, matches=2, search_deals=6, search_matches=2,
    hand_seed=5, match_seed=6,
)


def _figures(res):
    d = res.to_dict()
    for key in ("timing", "workers", "wall_seconds"):
        d.pop(key)
    return d


def test_a_local_ray_started_for_the_run_gives_the_same_figures():
    agents = ["heuristic", "random", "expert:samples=2"]
    here = evaluate(agents, deals=6, seed=3, workers=1)
    on_ray = evaluate(agents, deals=6, seed=3, workers=2, address="local", chunk_size=2)
    assert _figures(on_ray) == _figures(here)
    assert not ray.is_initialized()  # the run shut down the Ray it started


@pytest.fixture(scope="module")
def running_ray():
    ray.init(num_cpus=2, include_dashboard=False)
    yield
    ray.shutdown()


def test_matches_and_the_benchmark_on_a_running_ray(running_ray, monkeypatch):
    here = evaluate(["heuristic", "random"], matches=3, seed=8)
    on_ray = evaluate(["heuristic", "random"], matches=3, seed=8, workers=2, address="auto",
                      chunk_size=1)
    assert _figures(on_ray) == _figures(here)
    monkeypatch.setitem(PROTOCOLS, TINY.name, TINY)
    local = benchmark(["heuristic:likely_points_per_trick=5"], TINY)[0]
    spread = benchmark(["heuristic:likely_points_per_trick=5"], TINY, workers=2, address="auto")[0]
    assert spread.figures() == local.figures()
    assert ray.is_initialized()  # a Ray the caller started is left running


def test_an_illegal_action_in_a_task_is_raised_as_itself(running_ray):
    class Cheater(RandomAgent):  # defined here: Ray's pickle sends it by value
        name = "cheater"

        def act(self, view, rng):
            return 63

    with pytest.raises(IllegalAgentActionError, match="cheater"):
        evaluate([Cheater(), "random"], deals=2, workers=2, address="auto")
