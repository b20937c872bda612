"""Teach a suit-symmetric policy the strict phase: exact or search labels, anchored fine-tune.

With the stock exhausted both hands are known (every other card has been
seen), so :class:`~sixtysix_env.agents.solver.Solver` gives every legal
move's exact value. ``sixtysix-ppo-v3`` still gives away about 0.03 game
points per hand there (``research/endgame_mistakes.py``), where ``expert``
plays exactly. This script asks whether many exact labels, fitted with the
rest of the policy held in place, remove those mistakes without harming the
rest of its play:

1. ``collect``: the policy plays hands (half against itself, where both
   seats' decisions count, a quarter each against ``heuristic`` and
   ``sixtysix-ppo``); at every one of its decisions with more than one legal
   move in the labelled parts (``--parts``) the observation, the mask and
   the set of best moves are kept; at a share of its other decisions the
   observation and mask are kept as anchor rows. The parts:

   * ``exhausted`` (the default): the stock drawn out; the best moves are
     the solver's (exact: both hands are known);
   * ``closed``: the stock closed, not drawn out; the label is the move
     ``expert`` plays there (its determinized search solves each sampled
     deal exactly), and ``gap`` is ``expert``'s estimate of what the
     policy's own move gives away;
   * ``close``: the open-phase decisions where closing is legal; the label
     is ``expert``'s decision to close or not: the close if it closes,
     otherwise every legal move but the close. To keep these affordable
     the decision is ``expert:open_search=close``'s, which searches only the
     close against the heuristic's move (on 164 such decisions of
     ``sixtysix-ppo-v4``'s it closed or not as the full search did at 161,
     in about a sixth of the time).
2. ``fit``: the policy file's matrices are read into a suit-symmetric actor
   (:mod:`training.equivariant`; the file must be one, such as
   ``sixtysix-ppo-v3``), which is fitted to raise the summed probability of
   the best moves on the labelled rows (−log of it) while a KL term keeps its
   distribution on the anchor rows where it was (``--label-target own``
   fits instead the policy's own distribution over each row's best moves,
   so that where a label allows several moves the choice among them stays
   the policy's). The result is an ordinary policy file (one forward pass).

    python -m research.endgame_fit collect --policy sixtysix-ppo-v3 --hands 40000 \\
        --seed 1 --workers 2 -o runs/endgame-labels.npz
    python -m research.endgame_fit collect --policy sixtysix-ppo-v4 --hands 40000 \\
        --parts exhausted closed --seed 1 --workers 2 -o runs/strict-labels.npz
    python -m research.endgame_fit fit --policy sixtysix-ppo-v3 \\
        --data runs/endgame-labels.npz -o runs/v3-endgame.npz

Findings are in ``research/notes/learning.md``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import random
import time
from typing import Any

import numpy as np

from sixtysix_env.agents import make_agent
from sixtysix_env.agents.solver import Solver
from sixtysix_env.game.actions import CLOSE, NUM_ACTIONS
from sixtysix_env.game.engine import new_hand
from sixtysix_env.game.rules import make_rules
from sixtysix_env.game.view import player_view
from sixtysix_env.policy import PolicyNetwork, save_policy
from sixtysix_env.policy.observation import OBS_SIZE, OBS_VERSION, observe_view

from .distill import add_fit_arguments, load_data

DATA_FORMAT = "sixtysix-endgame-labels/1"
OPPONENTS = ("self", "heuristic", "sixtysix-ppo", "self")
PARTS = ("exhausted", "closed", "close")  # the index is a row's ``part``
LABEL_TARGETS = ("any", "own")


def _check_parts(parts: tuple[str, ...]) -> None:
    unknown = sorted(set(parts) - set(PARTS))
    if unknown or not parts:
        raise ValueError(f"parts {unknown or '(none)'} unknown; choose from {list(PARTS)}")


def _part(view, legal: int) -> str | None:
    """Which labelled part a decision belongs to (None: an anchor candidate)."""
    if view.is_exhausted:
        return "exhausted"
    if view.is_closed:
        return "closed"
    if legal >> CLOSE & 1:
        return "close"
    return None


def _value(values: dict[int, float], kind: str, action: int) -> float | None:
    """The searched value of ``action`` (None: not searched). For a close label the
    search valued only the close and the heuristic's move, which stands for every
    move but the close; where the heuristic's move is the close, nothing else."""
    if kind == "close" and action != CLOSE:
        return max((v for k, v in values.items() if k != CLOSE), default=None)
    return values.get(action)


def _collect(args: tuple) -> dict[str, np.ndarray]:
    policy, rules, seed, first, last, anchor_share, parts = args
    cfg = make_rules(rules)
    me = make_agent(policy)
    others = {name: make_agent(name) for name in set(OPPONENTS) - {"self"}}
    solver = Solver(cfg)
    expert = make_agent("expert") if "closed" in parts else None
    closer = make_agent("expert", open_search="close") if "close" in parts else None
    obs, masks, best, gap, part, a_obs, a_masks = [], [], [], [], [], [], []
    for h in range(first, last):
        rng = random.Random(f"sixtysix-endgame-fit:{seed}:{h}")
        opponent = OPPONENTS[h % len(OPPONENTS)]
        seats = (0, 1) if opponent == "self" else (h % 2,)
        state = new_hand(rng, rng.randrange(2), cfg)
        rng_me, rng_opp, rng_keep = (random.Random(rng.random()) for _ in range(3))
        while state.result is None:
            p = state.current_player()
            view = player_view(state, p)
            if p not in seats:
                state = state.apply(others[opponent].act(view, rng_opp))
                continue
            a = me.act(view, rng_me)
            legal = view.legal_mask
            if legal & (legal - 1):
                ov = observe_view(view)
                kind = _part(view, legal)
                row = np.zeros(NUM_ACTIONS, dtype=bool)
                if kind not in parts:
                    kind = None
                elif kind == "exhausted":
                    values = solver.action_values(state)
                    top = max(values.values())
                    for k, v in values.items():
                        row[k] = v == top
                    lost = top - values[a]
                else:
                    # expert's own stream per decision: the labels repeat with the seed
                    searcher = expert if kind == "closed" else closer
                    choice, values = searcher.decide(view, random.Random(rng_keep.random()))
                    if kind == "closed":
                        row[choice] = True
                    elif choice == CLOSE:
                        row[CLOSE] = True
                    else:
                        row[:] = ov["action_mask"].astype(bool)
                        row[CLOSE] = False
                    lost = 0.0
                    if not row[a]:
                        mine, its = _value(values, kind, a), _value(values, kind, choice)
                        lost = max(its - mine, 0.0) if mine is not None else 0.0
                        # not expert's move, though its values did not rank it lower
                        # (or did not value it): a mistake of unknown size
                        lost = max(lost, 1e-6)
                if kind is not None:
                    obs.append(ov["observation"])
                    masks.append(ov["action_mask"])
                    best.append(row)
                    gap.append(lost)
                    part.append(PARTS.index(kind))
                elif rng_keep.random() < anchor_share:
                    a_obs.append(ov["observation"])
                    a_masks.append(ov["action_mask"])
            state = state.apply(a)
    return {
        "obs": np.asarray(obs, dtype=np.float32).reshape(-1, OBS_SIZE),
        "masks": np.asarray(masks, dtype=bool).reshape(-1, NUM_ACTIONS),
        "best": np.asarray(best, dtype=bool).reshape(-1, NUM_ACTIONS),
        "gap": np.asarray(gap, dtype=np.float32),
        "part": np.asarray(part, dtype=np.int8),
        "anchor_obs": np.asarray(a_obs, dtype=np.float32).reshape(-1, OBS_SIZE),
        "anchor_masks": np.asarray(a_masks, dtype=bool).reshape(-1, NUM_ACTIONS),
    }


def collect(
    policy: str,
    hands: int,
    seed: int,
    out: str,
    workers: int = 1,
    rules: str = "altmisalti",
    anchor_share: float = 0.25,
    parts: tuple[str, ...] = ("exhausted",),
) -> dict[str, Any]:
    """Play ``hands`` hands and save the labelled and anchor rows to ``out`` (.npz)."""
    _check_parts(parts)
    parts = tuple(p for p in PARTS if p in parts)
    t0 = time.perf_counter()
    chunks = np.linspace(0, hands, max(1, workers) * 4 + 1).astype(int)
    jobs = [
        (policy, rules, seed, int(a), int(b), anchor_share, parts)
        for a, b in zip(chunks, chunks[1:])
    ]
    if workers > 1:
        with mp.get_context("spawn").Pool(workers) as pool:
            chunks_out = pool.map(_collect, jobs)
    else:
        chunks_out = [_collect(j) for j in jobs]
    data = {k: np.concatenate([c[k] for c in chunks_out]) for k in chunks_out[0]}
    meta = {
        "format": DATA_FORMAT,
        "obs_version": OBS_VERSION,
        "policy": policy,
        "hands": hands,
        "seed": seed,
        "rules": rules,
        "anchor_share": anchor_share,
        "parts": list(parts),
        "opponents": list(OPPONENTS),
        "labelled": int(len(data["obs"])),
        "labelled_by_part": {p: int((data["part"] == i).sum()) for i, p in enumerate(PARTS)},
        "anchor_rows": int(len(data["anchor_obs"])),
        "policy_mistakes": int((data["gap"] > 0).sum()),
        "policy_gp_lost": float(data["gap"].sum()),
        "mistakes_by_part": {
            p: int(((data["part"] == i) & (data["gap"] > 0)).sum()) for i, p in enumerate(PARTS)
        },
        "seconds": round(time.perf_counter() - t0, 1),
    }
    np.savez_compressed(out, meta=np.array(json.dumps(meta)), **data)
    return meta


def _load(paths: list[str]) -> tuple[dict[str, np.ndarray], str]:
    """The label files' rows, concatenated, and their rule preset (one for all)."""
    keys = ("obs", "masks", "best", "gap", "anchor_obs", "anchor_masks")
    data, metas = load_data(paths, DATA_FORMAT, "an endgame label file", keys=keys)
    parts = []
    for path, meta in zip(paths, metas):
        with np.load(path, allow_pickle=False) as z:
            # files from before ``parts`` hold exhausted-stock rows only
            parts.append(z["part"] if "part" in z.files else np.zeros(meta["labelled"], np.int8))
    data["part"] = np.concatenate(parts)
    rules = {meta["rules"] for meta in metas}
    if len(rules) > 1:
        raise ValueError(f"label files of different rules {sorted(rules)}; fit one rule set")
    return data, rules.pop()


def fit(
    policy: str,
    data_paths: list[str],
    out: str,
    epochs: int = 3,
    learning_rate: float = 3e-5,
    batch_size: int = 512,
    anchor_weight: float = 1.0,
    seed: int = 0,
    val_fraction: float = 0.0,
    tolerance: float = 0.0,
    label_target: str = "any",
    parts: tuple[str, ...] | None = None,
) -> dict[str, Any]:
    """Fit ``policy`` (a suit-symmetric policy file) to the labels; save it to ``out``.

    ``val_fraction`` of the labelled rows (the last ones) are held out and only
    counted, so the history shows whether the fit carries over. ``tolerance``
    (game points) widens the search labels (``closed``, ``close``): where the
    search valued the policy's own move within that much of its choice, the
    policy's move counts as a best move too, so the fit moves only the moves the
    search ranks clearly lower. The policy's move there is its argmax (it played
    deterministically), so ``policy`` must be the policy that collected.

    ``label_target`` says what a labelled row is fitted to: ``"any"`` raises the
    summed probability of its best moves, however it falls among them;
    ``"own"`` fits the policy's own distribution restricted to the best moves
    (cross-entropy to it, renormalized), so where a label allows several moves
    (a close label "anything but the close", a widened search label) the
    choice among them stays the policy's, as on the anchor rows. ``parts``
    (default: all) fits only the labelled rows of those parts; the others are
    dropped, not made anchor rows."""
    if parts is not None:
        _check_parts(parts)
    if label_target not in LABEL_TARGETS:
        raise ValueError(
            f"label_target {label_target!r} unknown; choose from {list(LABEL_TARGETS)}"
        )
    if not 0.0 <= val_fraction < 1.0:
        raise ValueError(f"val_fraction {val_fraction} must be in [0, 1)")
    if tolerance < 0:
        raise ValueError(f"tolerance {tolerance} must be at least 0 (game points)")
    import torch as th
    from torch import nn

    from sixtysix_training.common.equivariant import (
        SuitSymmetricLinear,
        dense_layers,
        suit_symmetric_actor,
    )

    th.manual_seed(seed)
    net = getattr(make_agent(policy), "network", None)
    if net is None:
        raise ValueError(f"{policy!r} is not a policy file or shipped policy")
    hidden = net.hidden
    body, head = suit_symmetric_actor(hidden, nn.ReLU)
    sym_layers = [m for m in body if isinstance(m, SuitSymmetricLinear)] + [head]
    with th.no_grad():
        for layer, w, b in zip(sym_layers, net.weights, net.biases):
            weight, bias = th.tensor(w.T), th.tensor(b)  # copies: the file's arrays are read-only
            layer.params[layer.weight_index.reshape(-1)] = weight.reshape(-1)
            layer.params[layer.bias_index] = bias
            dw, db = layer.dense()
            err = max(float((dw - weight).abs().max()), float((db - bias).abs().max()))
            if err > 1e-5:
                raise ValueError(
                    f"{policy!r} is not suit-symmetric (a tied entry differs by {err:.2g}); "
                    "this fit needs a network trained with actor_symmetry: suits"
                )
    model = nn.Sequential(body, head)
    data, rules = _load(data_paths)
    if parts is not None:
        chosen = np.isin(data["part"], [PARTS.index(p) for p in parts])
        if not chosen.any():
            raise ValueError(f"the label files hold no rows of parts {list(parts)}")
        for key in ("obs", "masks", "best", "gap", "part"):
            data[key] = data[key][chosen]
    if tolerance:
        searched = (data["part"] != PARTS.index("exhausted")) & (data["gap"] <= tolerance)
        own = net.probabilities(data["obs"], data["masks"]).argmax(axis=1)
        data["best"] = data["best"].copy()
        data["best"][np.flatnonzero(searched), own[searched]] = True
    x, m, best = (th.from_numpy(data[k]) for k in ("obs", "masks", "best"))
    part = th.from_numpy(data["part"])
    ax, am = th.from_numpy(data["anchor_obs"]), th.from_numpy(data["anchor_masks"])
    # the last rows (the last hands of the last file) are held out, never fitted
    n = len(x) - int(round(val_fraction * len(x)))

    def logp(xb, mb):
        return th.log_softmax(model(xb).masked_fill(~mb, -1e9), 1)

    with th.no_grad():
        a_ref = logp(ax, am)
        # "own": the policy's distribution over each row's best moves, renormalized
        if label_target == "own":
            target = th.softmax(model(x).masked_fill(~(m & best), -1e9), 1)

    def mistakes(rows: slice) -> tuple[int, int, dict[str, int]]:
        """The rows' count, where the argmax is not a best move, and that by part."""
        lp = logp(x[rows], m[rows])
        wrong = ~best[rows][th.arange(len(lp)), lp.argmax(1)]
        parts_ = part[rows]
        by_part = {
            p: int(wrong[parts_ == i].sum()) for i, p in enumerate(PARTS) if (parts_ == i).any()
        }
        return len(lp), int(wrong.sum()), by_part

    def label_stats() -> dict[str, Any]:
        with th.no_grad():
            rows, wrong, by_part = mistakes(slice(0, n))
            stats = {"mistakes": wrong, "rows": rows, "mistakes_by_part": by_part}
            if n < len(x):
                rows, wrong, by_part = mistakes(slice(n, None))
                stats |= {"held_out_rows": rows, "held_out_mistakes": wrong}
                stats["held_out_mistakes_by_part"] = by_part
            stats["anchor_kl"] = float((a_ref.exp() * (a_ref - logp(ax, am))).sum(1).mean())
        return stats

    history = [{"epoch": 0, **label_stats()}]
    opt = th.optim.Adam(model.parameters(), lr=learning_rate)
    gen = th.Generator().manual_seed(seed)
    na = len(ax)
    steps = (n + batch_size - 1) // batch_size
    a_batch = max(1, na // steps)
    for ep in range(1, epochs + 1):
        perm, aperm = th.randperm(n, generator=gen), th.randperm(na, generator=gen)
        for i in range(steps):
            idx = perm[i * batch_size : (i + 1) * batch_size]
            aidx = aperm[i * a_batch : (i + 1) * a_batch]
            lp = logp(x[idx], m[idx])
            if label_target == "own":
                label = -(target[idx] * lp).sum(1).mean()
            else:
                label = -th.logsumexp(lp.masked_fill(~best[idx], -1e9), 1).mean()
            ref = a_ref[aidx]
            kl = (ref.exp() * (ref - logp(ax[aidx], am[aidx]))).sum(1).mean()
            loss = label + anchor_weight * kl
            opt.zero_grad()
            loss.backward()
            opt.step()
        history.append({"epoch": ep, **label_stats()})
        print(json.dumps(history[-1]), flush=True)
    params = [layer.params.detach().numpy() for layer in sym_layers]
    layers = dense_layers(params, hidden)
    record = {
        "source_policy": policy,
        "data": data_paths,
        "epochs": epochs,
        "learning_rate": learning_rate,
        "batch_size": batch_size,
        "anchor_weight": anchor_weight,
        "seed": seed,
        "val_fraction": val_fraction,
        "tolerance": tolerance,
        "label_target": label_target,
        "parts": list(parts) if parts is not None else None,
        "history": history,
    }
    name = out.rsplit("/", 1)[-1].removesuffix(".npz")
    save_policy(
        out,
        PolicyNetwork([w for w, _ in layers], [b for _, b in layers], net.activation),
        {"name": name, "rules": rules, "training": {"endgame_fit": record}},
    )
    return record


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect", help="play hands and keep exact endgame labels")
    c.add_argument("--policy", required=True)
    c.add_argument("--hands", type=int, default=10000)
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--workers", type=int, default=1)
    c.add_argument("--anchor-share", type=float, default=0.25)
    c.add_argument(
        "--parts", nargs="+", default=["exhausted"], help=f"labelled parts, of {list(PARTS)}"
    )
    c.add_argument("--rules", default="altmisalti")
    c.add_argument("-o", "--out", required=True)
    f = sub.add_parser("fit", help="fit a suit-symmetric policy file to the labels")
    f.add_argument("--policy", required=True)
    f.add_argument("--data", nargs="+", required=True)
    add_fit_arguments(f, epochs=3, learning_rate=3e-5, batch_size=512, val_fraction=0.0)
    f.add_argument("--anchor-weight", type=float, default=1.0)
    f.add_argument("--tolerance", type=float, default=0.0, help="gp; widens search labels")
    f.add_argument(
        "--label-target",
        choices=LABEL_TARGETS,
        default="any",
        help="any: the best moves' summed probability; own: the policy's choice among them",
    )
    f.add_argument("--parts", nargs="+", default=None, help=f"fit only these, of {list(PARTS)}")
    f.add_argument("-o", "--out", required=True)
    args = ap.parse_args(argv)
    if args.cmd == "collect":
        meta = collect(
            args.policy,
            args.hands,
            args.seed,
            args.out,
            args.workers,
            args.rules,
            args.anchor_share,
            tuple(args.parts),
        )
        print(json.dumps(meta))
    else:
        rec = fit(
            args.policy,
            args.data,
            args.out,
            args.epochs,
            args.learning_rate,
            args.batch_size,
            args.anchor_weight,
            args.seed,
            args.val_fraction,
            args.tolerance,
            args.label_target,
            tuple(args.parts) if args.parts is not None else None,
        )
        print(json.dumps({k: v for k, v in rec.items() if k != "history"}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
