"""Smoke run of the training throughput benchmark."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys

import pytest

# A subprocess training run: the full lane only. Skipped without the [train] extra
# (found, not imported: collecting the tests imports no torch).
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("sb3_contrib") is None,
                       reason="the [train] extra is not installed"),
]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_bench_training_smoke():
    r = subprocess.run(
        [
            sys.executable,
            os.path.join(ROOT, "speed", "bench_training.py"),
            "--config",
            os.path.join(ROOT, "configs", "tiny.yaml"),
            "--steps",
            "256",
            "--default-steps",
            "64",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert re.search(r"configured \(tiny\.yaml.*: [\d,]+ steps/s, [\d.]+ min per million", r.stdout)
    assert re.search(r"default \(1 game.*: [\d,]+ steps/s", r.stdout)
    assert re.search(r"ratio configured / default: [\d.]+x", r.stdout)


def test_bench_training_dense_first_in_rounds():
    """``--dense-first --compare ... --rounds 2``: the former product against today's, timed in
    turn, each ratio and their median printed."""
    r = subprocess.run(
        [
            sys.executable, os.path.join(ROOT, "speed", "bench_training.py"),
            "--config", os.path.join(ROOT, "configs", "quickstart.yaml"),
            "--set", "n_envs=4", "--set", "n_steps=32", "--set", "batch_size=64",
            "--steps", "128", "--no-default", "--dense-first",
            "--compare", "batched_games=false", "--rounds", "2",
        ],
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    # the quickstart's critic_precision is auto: bfloat16 or float32 by the CPU
    line = r"batched_games True, critic in (?:bfloat16|float32), dense product\): [\d,]+ steps/s"
    assert len(re.findall(line, r.stdout)) == 2
    assert re.search(r"ratios over 2 rounds: [\d.]+x, [\d.]+x; median [\d.]+x", r.stdout)


def test_dense_products_switches_the_update_product_and_back():
    """The benchmark's ``dense_products`` makes the layer's update product the dense
    matrix's, exactly, and restores the factored one after."""
    import torch as th

    spec = importlib.util.spec_from_file_location(
        "bench_training", os.path.join(ROOT, "speed", "bench_training.py")
    )
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    from sixtysix_training.common.equivariant import SuitSymmetricLinear, hidden_layout

    th.manual_seed(1)
    layer = SuitSymmetricLinear(hidden_layout(40), hidden_layout(24))
    x = th.randn(16, 40)
    dense = th.nn.functional.linear(x, *layer.dense()).detach()
    with bench.dense_products(True):
        assert th.equal(layer(x).detach(), dense)
    factored = layer(x).detach()
    assert th.allclose(factored, dense, atol=1e-6)
    assert SuitSymmetricLinear._factored.__name__ == "_factored"  # restored
