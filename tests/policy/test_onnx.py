"""A policy as an ONNX model (sixtysix_env/policy/onnx.py, docs/onnx.md): onnxruntime plays
the numpy policy's moves with its logits, on real positions.

The fast tests convert small networks of every kind (plain, tanh, suit-symmetric, reading
the mask) and a shipped policy, and compare them on a few hundred positions of real hands,
and check the metadata, the refusals and the Python example; the slow ones add the
suit-symmetric shipped policy, ``sixtysix export --format onnx``, the examples' positions,
and every shipped policy on 100,000 positions of the batched engine. Both runtimes compute in float32 with their own order of sums, so the logits agree
to float rounding (within 1e-5 of each row's largest legal |logit|, and 1e-5 where that is
below 1), and the moves agree wherever the policy's best move is not a tie to that
rounding (docs/onnx.md says how often it is). onnx and onnxruntime (the [onnx] extra)
are imported inside the tests: collecting this file imports neither.
"""

from __future__ import annotations

import ast
import importlib.util
import itertools
import json
import random
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from _played import batched_positions

from sixtysix_env.agents import make_agent
from sixtysix_env.game.actions import NUM_ACTIONS
from sixtysix_env.game.engine import new_hand
from sixtysix_env.game.view import player_view
from sixtysix_env.policy import PolicyAgent, PolicyFileError, PolicyNetwork, read_policy
from sixtysix_env.policy import onnx as ox
from sixtysix_env.policy.network import SYMMETRY_TIE
from sixtysix_env.policy.observation import FIELDS, OBS_SIZE, OBS_VERSION, action_mask, encode_view
from sixtysix_env.policy.shipped import shipped_policies, trained_preset

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "onnx"
#: Logits agree within this fraction of each row's scale (its largest legal |logit|, or 1).
TOL = 1e-5
SYMMETRIC = "sixtysix-ppo-v2-sym"


@pytest.fixture(scope="module")
def ort():
    pytest.importorskip("onnx", reason='needs onnx: pip install "sixtysix[onnx]"')
    return pytest.importorskip(
        "onnxruntime", reason='needs onnxruntime: pip install "sixtysix[onnx]"'
    )


def session(ort, model):
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    return ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )


def run(sess, obs, mask, batch=4096):
    """(logits, actions) of the model for every row, in batches."""
    parts = [
        sess.run(None, {"obs": obs[i : i + batch], "mask": mask[i : i + batch]})
        for i in range(0, len(obs), batch)
    ]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def numpy_logits(net: PolicyNetwork, obs, mask, batch=4096):
    """The logits PolicyAgent computes, row by row as for one observation (the product a
    single observation gets; BatchedPolicy's exact path)."""
    out = []
    for i in range(0, len(obs), batch):
        o, m = obs[i : i + batch], mask[i : i + batch]
        if net.symmetry is None:
            out.append(net.layer_logits(net.features(o, m)[:, None, :])[:, 0, :])
        else:
            out.append(net.logits(o))
    return np.concatenate(out)


def agent_moves(net: PolicyNetwork, logits, mask, tie: bool | None = None):
    """PolicyAgent.act's argmax on ``logits``: the first best, or for a symmetric network
    (``tie``) the first within SYMMETRY_TIE of the best."""
    z = np.where(mask, logits, -np.inf)
    if (net.symmetry is not None) if tie is None else tie:
        return np.argmax(z >= z.max(axis=1, keepdims=True) - SYMMETRY_TIE, axis=1)
    return np.argmax(z, axis=1)


def compare(net, ort_logits, ort_moves, ref, mask):
    """Check the model against the numpy logits ``ref``; returns (largest |logit difference|
    over legal entries, its largest fraction of the row's scale, rows whose moves differ)."""
    assert np.isneginf(ort_logits[~mask]).all(), "an illegal action's logit is not -inf"
    legal_ref = np.where(mask, ref, 0.0)
    diff = np.abs(np.where(mask, ort_logits, 0.0) - legal_ref)
    scale = np.maximum(1.0, np.abs(legal_ref).max(axis=1, keepdims=True))
    worst = float((diff / scale).max())
    assert worst <= TOL, f"logits differ by {worst:.2e} of their row's scale"
    # The model's own argmax is its action output.
    assert (agent_moves(net, ort_logits, mask) == ort_moves).all()
    want = agent_moves(net, ref, mask)
    differ = np.flatnonzero(ort_moves != want)
    # Where the moves differ, the numpy policy's two moves tie to float rounding.
    rows = np.arange(len(ref))
    gap = ref[rows, want] - ref[rows, ort_moves]
    assert (gap[differ] <= TOL * scale[differ, 0]).all(), "a move differs without a tie"
    return float(diff.max()), worst, differ


def positions(n_hands: int = 14, seed: int = 5):
    """(obs, mask, views) of every decision of ``n_hands`` real hands, heuristic against
    random (each seat's player alternating from hand to hand)."""
    rng = random.Random(seed)
    players = [make_agent("heuristic"), make_agent("random")]
    obs, masks, views = [], [], []
    for h in range(n_hands):
        state = new_hand(rng.randrange(10**9), dealer=h % 2)
        while not state.is_terminal():
            seat = state.current_player()
            view = player_view(state, seat)
            views.append(view)
            obs.append(encode_view(view))
            masks.append(action_mask(view).astype(bool))
            state = state.apply(players[(seat + h) % 2].act(view, rng))
    return np.stack(obs), np.stack(masks), views


@pytest.fixture(scope="module")
def real():
    obs, mask, views = positions()
    assert len(obs) >= 200
    return obs, mask, views


def small_network(seed=0, activation="relu", symmetry=None, inputs=("observation",)):
    rng = np.random.default_rng(seed)
    n_in = OBS_SIZE + (NUM_ACTIONS if "action_mask" in inputs else 0)
    sizes = [n_in, 24, 12, NUM_ACTIONS]
    ws = [rng.normal(0, 0.5, (a, b)).astype(np.float32) for a, b in itertools.pairwise(sizes)]
    bs = [rng.normal(0, 0.1, (b,)).astype(np.float32) for b in sizes[1:]]
    return PolicyNetwork(ws, bs, activation, symmetry, inputs)


KINDS = {
    "relu": {},
    "tanh": {"activation": "tanh"},
    "suits": {"symmetry": "suits"},
    "tanh-suits": {"activation": "tanh", "symmetry": "suits"},
    "mask-after": {"inputs": ("observation", "action_mask")},
    "mask-first": {"inputs": ("action_mask", "observation")},
}


@pytest.mark.parametrize("kind", KINDS)
def test_a_small_network_of_each_kind_gives_the_numpy_logits_and_moves(ort, real, kind):
    obs, mask, _ = real
    net = small_network(**KINDS[kind])
    sess = session(ort, ox.network_to_onnx(net, {"name": kind}))
    logits, moves = run(sess, obs, mask)
    _, _, differ = compare(net, logits, moves, numpy_logits(net, obs, mask), mask)
    assert len(differ) == 0
    # A batch of one, as an engine asks a decision, gives the same row.
    one_l, _ = run(sess, obs[:1], mask[:1])
    np.testing.assert_allclose(one_l[0][mask[0]], logits[0][mask[0]], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["sixtysix-ppo", pytest.param(SYMMETRIC, marks=pytest.mark.slow)])
def test_a_shipped_policy_plays_the_agents_moves(ort, real, name):
    obs, mask, views = real
    path = shipped_policies()[name].path
    net, _ = read_policy(path)
    sess = session(ort, ox.policy_to_onnx(name))
    logits, moves = run(sess, obs, mask)
    _, _, differ = compare(net, logits, moves, numpy_logits(net, obs, mask), mask)
    assert len(differ) == 0
    # The agent itself, decision by decision, where it has a choice.
    agent = PolicyAgent(net)
    rng = random.Random(0)
    multi = np.flatnonzero(mask.sum(axis=1) > 1)[:60]
    assert [agent.act(views[i], rng) for i in multi] == moves[multi].tolist()


def test_the_model_declares_its_inputs_outputs_and_metadata(ort):
    _, meta = read_policy(shipped_policies()[SYMMETRIC].path)
    model = ox.policy_to_onnx(SYMMETRIC)
    assert model.ir_version == ox.IR_VERSION
    assert [(o.domain, o.version) for o in model.opset_import] == [("", ox.OPSET)]
    sess = session(ort, model)
    ins = {i.name: (i.type, i.shape) for i in sess.get_inputs()}
    outs = {o.name: (o.type, o.shape) for o in sess.get_outputs()}
    assert ins == {
        "obs": ("tensor(float)", ["batch", OBS_SIZE]),
        "mask": ("tensor(bool)", ["batch", NUM_ACTIONS]),
    }
    assert outs == {
        "logits": ("tensor(float)", ["batch", NUM_ACTIONS]),
        "action": ("tensor(int64)", ["batch"]),
    }
    props = ox.model_metadata(sess)
    assert props == ox.model_metadata(model)
    assert props["format"] == ox.MODEL_FORMAT and props["format_version"] == "1"
    assert props["name"] == SYMMETRIC
    assert props["obs_version"] == str(OBS_VERSION) and props["obs_size"] == str(OBS_SIZE)
    assert props["num_actions"] == str(NUM_ACTIONS)
    assert props["symmetry"] == "suits" and float(props["symmetry_tie"]) == SYMMETRY_TIE
    assert json.loads(props["rules"]) == meta["rules"]
    assert props["rule_preset"] == meta["rule_preset"] == "altmisalti"
    assert props["policy_sha256"] == meta["sha256"]
    assert json.loads(props["policy_metadata"]) == meta
    assert props["masked_logit"] == "-inf"
    assert json.loads(props["network_inputs"]) == ["observation"]
    assert sess.get_modelmeta().producer_name == "sixtysix"
    plain = ox.model_metadata(ox.network_to_onnx(small_network(), None, "bare"))
    assert plain["symmetry"] == "none" and "symmetry_tie" not in plain and "rules" not in plain
    assert plain["name"] == "bare"


def test_converting_writes_a_file_that_loads(ort, tmp_path, capsys):
    out = tmp_path / "sub" / "ppo.onnx"
    assert ox.main(["sixtysix-ppo", "-o", str(out), "--name", "mine"]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    sess = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    assert ox.model_metadata(sess)["name"] == "mine"
    assert [p.name for p in out.parent.iterdir()] == ["ppo.onnx"]  # no temporary file left


def test_bad_sources_and_outputs_are_refused(ort, tmp_path, capsys):
    with pytest.raises(ox.OnnxExportError, match="shipped: .*sixtysix-ppo"):
        ox.convert("no-such-policy", tmp_path / "x.onnx")
    with pytest.raises(ox.OnnxExportError, match=r"must end in \.onnx"):
        ox.convert("sixtysix-ppo", tmp_path / "x.npz")
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(PolicyFileError, match="not a zip archive"):
        ox.convert(bad, tmp_path / "x.onnx")
    assert not (tmp_path / "x.onnx").exists()
    assert ox.main(["no-such-policy", "-o", str(tmp_path / "x.onnx")]) == 2
    assert ox.main([str(bad), "-o", str(tmp_path / "x.onnx")]) == 1
    assert ox.main(["sixtysix-ppo", "-o", str(tmp_path / "x.txt")]) == 2
    err = capsys.readouterr().err
    assert "neither a policy file" in err and "not a zip archive" in err and ".onnx" in err


def test_a_missing_onnx_names_the_extra(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "onnx", None)  # import onnx raises ImportError
    with pytest.raises(ox.OnnxUnavailableError, match=r'pip install "sixtysix\[onnx\]"'):
        ox.network_to_onnx(small_network())
    assert ox.main(["sixtysix-ppo", "-o", str(tmp_path / "x.onnx")]) == 2
    assert 'pip install "sixtysix[onnx]"' in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    with pytest.raises(ox.OnnxUnavailableError, match="onnxruntime, from the \\[onnx\\] extra"):
        ox.require("onnxruntime")


def test_the_package_imports_no_onnx_at_import_time():
    """Neither the module nor the package imports onnx or onnxruntime at its top level."""
    for path in (ROOT / "sixtysix_env" / "policy" / "onnx.py", ROOT / "training" / "export.py"):
        tree = ast.parse(path.read_text())
        top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        names = {a.name.split(".")[0] for n in top if isinstance(n, ast.Import) for a in n.names}
        names |= {(n.module or "").split(".")[0] for n in top if isinstance(n, ast.ImportFrom)}
        assert not names & {"onnx", "onnxruntime"}, path


@pytest.mark.slow  # importing the export command costs half a second
def test_sixtysix_export_converts_a_shipped_policy(ort, tmp_path, capsys):
    pytest.importorskip("msgspec")  # the export command's own needs (the [train] extra)
    pytest.importorskip("yaml")
    from sixtysix_env import cli

    out = tmp_path / "v2.onnx"
    assert cli.main(["export", "sixtysix-ppo-v2", "--format", "onnx", "-o", str(out)]) == 0
    assert "symmetry none" in capsys.readouterr().out
    sess = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    assert ox.model_metadata(sess)["name"] == "sixtysix-ppo-v2"
    assert cli.main(["export", "sixtysix-ppo-v2", "--format", "onnx", "-o", "x.npz"]) == 2
    assert cli.main(["export", "nothing-here", "--format", "onnx", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "writes a .onnx file" in err and "neither a run folder" in err


def _example(name: str):
    spec = importlib.util.spec_from_file_location(f"onnx_example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_python_example_plays_a_hand_with_the_numpy_policys_moves(ort, tmp_path, capsys):
    model = tmp_path / "ppo.onnx"
    ox.convert("sixtysix-ppo", model)
    example = _example("play_hand")
    assert example.main([str(model), "--seed", "3", "--check", "sixtysix-ppo"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("seat 0: sixtysix-ppo (ONNX), seat 1: heuristic; seed 3")
    assert "game point" in out or "Tie" in out
    assert re.search(r"chose alike in ([1-9]\d*) of \1 decisions", out), out


@pytest.mark.slow  # reading sixtysix-ppo-v4 and playing until every kind of decision came up
def test_the_examples_positions_are_what_their_script_writes():
    """examples/onnx/positions.json: the positions, observations, masks and moves of today's
    engine, observation and sixtysix-ppo-v4 (python examples/onnx/positions.py rewrites it)."""
    example = _example("positions")
    doc = json.loads((EXAMPLES / "positions.json").read_text())
    fresh = json.loads(example.text())
    # Everything as written, but the logits: float32 matrix products may differ in the last
    # bits from one CPU (BLAS kernel) to another, so those agree within 1e-4.
    stored_logits = [p.pop("logits") for p in doc["positions"]]
    fresh_logits = [p.pop("logits") for p in fresh["positions"]]
    assert fresh == doc, "examples/onnx/positions.json is stale: python examples/onnx/positions.py"
    for a, b in zip(stored_logits, fresh_logits, strict=True):
        assert [x is None for x in a] == [x is None for x in b]
        np.testing.assert_allclose([x for x in a if x is not None],
                                   [x for x in b if x is not None], rtol=0, atol=1e-4)
    assert len(doc["positions"]) == len(example.KINDS)
    for p in doc["positions"]:
        assert len(p["obs"]) == OBS_SIZE and len(p["mask"]) == NUM_ACTIONS
        assert np.float32(p["obs"]).tolist() == p["obs"]


def test_the_docs_observation_table_is_the_encoders():
    """docs/onnx.md's table of the observation is FIELDS, row for row."""
    text = (ROOT / "docs" / "onnx.md").read_text()
    rows = re.findall(r"^\| (\d+)(?:-(\d+))? \| `(\w+)` \|", text, re.MULTILINE)
    got = [(name, int(a), int(b or a) - int(a) + 1) for a, b, name in rows]
    assert got == [(name, start, n) for name, start, n in FIELDS]


@pytest.fixture(scope="module")
def hundred_thousand():
    """Per rule preset, 100,000 decisions of real hands on the batched engine, each seat
    played by the heuristic or at random (drawn per hand), and which of them have a choice."""
    pytest.importorskip("numba", reason="the batched engine needs numba (the [fast] extra)")
    made = {}

    def positions(rules: str):
        if rules not in made:
            obs, mask = batched_positions(100_000, rules=rules)
            made[rules] = obs, mask, mask.sum(axis=1) > 1
        return made[rules]

    return positions


@pytest.mark.slow
@pytest.mark.parametrize("name", list(shipped_policies()))
def test_a_shipped_policy_on_100000_positions_of_real_games(ort, hundred_thousand, name):
    """The model's logits against the numpy policy's, computed as PolicyAgent computes one
    decision, and its moves: the same but at ties (none for a suit-symmetric policy). The
    hands are played under the rules the policy was trained for."""
    net, _ = read_policy(shipped_policies()[name].path)
    obs, mask, multi = hundred_thousand(trained_preset(name) or "altmisalti")
    model = ox.policy_to_onnx(name)
    logits, moves = run(session(ort, model), obs, mask)
    ref = numpy_logits(net, obs, mask)
    worst_abs, worst, differ = compare(net, logits, moves, ref, mask)
    print(
        f"\n{name}: largest |logit difference| {worst_abs:.1e}, {worst:.1e} of the row's "
        f"scale; {len(differ)} of {len(obs)} moves differ" + (", each at a tie" * bool(len(differ)))
    )
    if net.symmetry is not None:
        assert len(differ) == 0
    assert len(differ) <= 0.005 * multi.sum()
    # With the symmetric policies' tie rule on both sides, no move differs at all.
    assert (agent_moves(net, logits, mask, tie=True) == agent_moves(net, ref, mask, tie=True)).all()
    if name == "sixtysix-ppo-v4":  # the examples' positions, as every other runtime reads them
        doc = json.loads((EXAMPLES / "positions.json").read_text())
        p_obs = np.array([p["obs"] for p in doc["positions"]], np.float32)
        p_mask = np.array([p["mask"] for p in doc["positions"]], bool)
        _, p_moves = run(session(ort, model), p_obs, p_mask)
        assert p_moves.tolist() == [p["action"] for p in doc["positions"]]
