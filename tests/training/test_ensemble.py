"""Merging policy files into one network that plays their averaged logits."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from sixtysix_env import cli
from sixtysix_env.game.actions import NUM_ACTIONS
from sixtysix_env.game.rules import make_rules
from sixtysix_env.policy import PolicyNetwork, read_policy, save_policy
from sixtysix_env.policy.observation import OBS_SIZE
from sixtysix_training.ensemble import average_networks, merge_policy_files


def main(argv: list[str]) -> int:
    """``sixtysix ensemble ARGV``."""
    return cli.main(["ensemble", *argv])

def _net(seed: int, hidden=(16, 8), activation: str = "relu") -> PolicyNetwork:
    rng = np.random.default_rng(seed)
    sizes = [OBS_SIZE, *hidden, NUM_ACTIONS]
    ws = [rng.normal(0, 0.5, (a, b)).astype(np.float32) for a, b in itertools.pairwise(sizes)]
    bs = [rng.normal(0, 0.1, (b,)).astype(np.float32) for b in sizes[1:]]
    return PolicyNetwork(ws, bs, activation)


def _obs(n: int = 200) -> np.ndarray:
    return (np.random.default_rng(99).random((n, OBS_SIZE)) < 0.3).astype(np.float32)


@pytest.mark.parametrize("activation", ["relu", "tanh"])
@pytest.mark.parametrize("hidden", [((16, 8), (5, 11), (7, 3)), ((12,), (4,), (9,))])
def test_merged_logits_are_the_weighted_mean_of_the_members(activation, hidden):
    nets = [_net(i, h, activation) for i, h in enumerate(hidden)]
    x = _obs()
    mean = average_networks(nets)
    np.testing.assert_allclose(
        mean.logits(x), sum(n.logits(x) for n in nets) / 3, rtol=1e-4, atol=1e-4
    )
    weighted = average_networks(nets, [1, 2, 5])
    want = (nets[0].logits(x) + 2 * nets[1].logits(x) + 5 * nets[2].logits(x)) / 8
    np.testing.assert_allclose(weighted.logits(x), want, rtol=1e-4, atol=1e-4)
    # One plain MLP, as wide as the members together.
    assert weighted.hidden == [sum(h[k] for h in hidden) for k in range(len(hidden[0]))]
    assert weighted.activation == activation


def test_networks_without_hidden_layers_average_their_one_layer():
    nets = [_net(i, ()) for i in range(2)]
    x = _obs()
    merged = average_networks(nets)
    assert merged.hidden == []
    np.testing.assert_allclose(
        merged.logits(x), (nets[0].logits(x) + nets[1].logits(x)) / 2, rtol=1e-4, atol=1e-4
    )


@pytest.mark.parametrize(
    "nets, weights, message",
    [
        ([_net(0)], None, "at least two"),
        ([_net(0), _net(1, activation="tanh")], None, "activation"),
        ([_net(0), _net(1, (16,))], None, "depth"),
        ([_net(0), _net(1)], [1.0], "one weight per network"),
        ([_net(0), _net(1)], [1.0, 0.0], "positive"),
        ([_net(0), _net(1)], [1.0, float("nan")], "positive"),
    ],
)
def test_bad_members_or_weights_are_refused_by_name(nets, weights, message):
    with pytest.raises(ValueError, match=message):
        average_networks(nets, weights)


def _policy_file(path, seed: int, rules: str = "altmisalti") -> str:
    save_policy(
        path,
        _net(seed),
        {
            "name": f"member{seed}",
            "rules": make_rules(rules).to_dict(),
            "rule_preset": rules,
            "training": {"steps": 1000 + seed, "config": {"name": "t", "seed": seed}},
        },
    )
    return str(path)


def test_merged_file_loads_plays_and_names_its_members(tmp_path):
    a = _policy_file(tmp_path / "a.npz", 1)
    b = _policy_file(tmp_path / "b.npz", 2)
    out = tmp_path / "ab.npz"
    rc = main([a, b, "-o", str(out), "--weights", "3", "1", "--eval-deals", "5", "--name", "ab"])
    assert rc == 0
    net, meta = read_policy(out)
    x = _obs()
    na, _ = read_policy(a)
    nb, _ = read_policy(b)
    np.testing.assert_allclose(
        net.logits(x), 0.75 * na.logits(x) + 0.25 * nb.logits(x), rtol=1e-4, atol=1e-4
    )
    assert meta["name"] == "ab"
    members = meta["training"]["members"]
    assert [m["name"] for m in members] == ["member1", "member2"]
    assert [m["weight"] for m in members] == [0.75, 0.25]
    assert meta["training"]["steps"] == 2003
    assert meta["evaluation"]["at_export"]["against"]["heuristic"]["paired_deals"] == 5


def test_members_under_other_rules_are_refused_and_nothing_is_written(tmp_path):
    a = _policy_file(tmp_path / "a.npz", 1)
    b = _policy_file(tmp_path / "b.npz", 2, rules="santase")
    out = tmp_path / "ab.npz"
    with pytest.raises(ValueError, match="other rules"):
        merge_policy_files([a, b], str(out), eval_deals=0)
    assert not out.exists()


def test_cli_names_a_bad_policy_and_a_bad_weight_count(tmp_path, capsys):
    a = _policy_file(tmp_path / "a.npz", 1)
    assert main([a, "no-such-policy", "-o", str(tmp_path / "x.npz"), "--eval-deals", "0"]) == 2
    assert "neither a policy file" in capsys.readouterr().err
    assert main([a, a, "-o", str(tmp_path / "x.npz"), "--weights", "1"]) == 2
    assert "2 policies" in capsys.readouterr().err


def test_the_merged_file_gets_its_members_curves_and_its_own_figures(tmp_path):
    a = _policy_file(tmp_path / "a.npz", 1)
    b = _policy_file(tmp_path / "b.npz", 2)
    c = _policy_file(tmp_path / "c.npz", 3)  # no log beside it: adds no curve
    for path, steps in ((a, (0, 500)), (b, (0, 700))):
        rows = [{"event": "session", "steps": 0, "label": "s1"}]  # a member's own marks
        rows += [{"steps": s, "against": {"heuristic": {"gp_per_hand": 0.1}}} for s in steps]
        with open(path.removesuffix(".npz") + ".eval.jsonl", "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in rows)
    out = tmp_path / "abc.npz"
    assert main([a, b, c, "-o", str(out), "--eval-deals", "3", "--name", "abc"]) == 0
    log = [json.loads(line) for line in (tmp_path / "abc.eval.jsonl").read_text().splitlines()]
    assert "abc was not trained" in log[0]["about"]
    assert [(r["member"], r["steps"]) for r in log[1:-1]] == [
        ("member1", 0),
        ("member1", 500),
        ("member2", 0),
        ("member2", 700),
    ]
    _, meta = read_policy(out)
    assert log[-1] == {
        "kind": "at_export",
        "steps": 700,
        "against": meta["evaluation"]["at_export"]["against"],
    }
    main([a, b, "-o", str(tmp_path / "ab.npz"), "--eval-deals", "0", "--no-eval-log"])
    assert not (tmp_path / "ab.eval.jsonl").exists()


def test_one_policy_with_the_suit_symmetry_is_its_mean_over_the_renamings(tmp_path, capsys):
    a = _policy_file(tmp_path / "a.npz", 1)
    out = tmp_path / "a-suits.npz"
    assert main([a, "--symmetry", "suits", "-o", str(out), "--eval-deals", "0"]) == 0
    assert "1 policy as one MLP" in capsys.readouterr().out
    net, meta = read_policy(out)
    plain, _ = read_policy(a)
    assert net.symmetry == "suits" and meta["format_version"] == 2
    assert "24 renamings of the suits" in meta["training"]["algorithm"]
    x = _obs()
    np.testing.assert_array_equal(net.layer_logits(x), plain.logits(x))
    assert not np.allclose(net.logits(x), plain.logits(x), atol=1e-3)
    # Averaging two averaged networks keeps the symmetry; mixing is refused by name.
    b = tmp_path / "b-suits.npz"
    main(
        [
            _policy_file(tmp_path / "b.npz", 2),
            "--symmetry",
            "suits",
            "-o",
            str(b),
            "--eval-deals",
            "0",
        ]
    )
    both = merge_policy_files([str(out), str(b)], str(tmp_path / "ab.npz"), eval_deals=0)
    assert both["architecture"]["symmetry"] == "suits"
    with pytest.raises(ValueError, match="symmetries differ"):
        merge_policy_files([str(out), a], str(tmp_path / "mixed.npz"), eval_deals=0)
    with pytest.raises(ValueError, match="at least two policies, or one with a symmetry"):
        merge_policy_files([a], str(tmp_path / "one.npz"), eval_deals=0)


def test_an_ensemble_over_the_file_limits_is_refused_before_anything_is_written(
    tmp_path, monkeypatch, capsys
):
    """22+ members of the shipped size made a file the loader refused;
    the ensemble now refuses what the loader would, before evaluating or writing."""
    import sixtysix_env.policy.fileformat as policy

    a = _policy_file(tmp_path / "a.npz", 1)
    b = _policy_file(tmp_path / "b.npz", 2)
    monkeypatch.setattr(policy, "MAX_PARAMETERS", 10_000)  # one member has 6,026
    out = tmp_path / "ab.npz"
    assert main([a, b, "-o", str(out), "--eval-deals", "5"]) == 1
    err = capsys.readouterr().err
    assert "the ensemble of 2 policies" in err and "over a policy file's limits" in err
    assert not out.exists()
