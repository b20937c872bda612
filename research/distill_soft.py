"""Distillation of the expert's *action values* into a policy file (an experiment, issue 12).

One round of DAgger with hard labels (``research/distill.py``) made the
shipped policy worse and made it close the stock far more often. This module
asks why, on the same kind of data, and writes down what it sees:

1. ``collect``: the learner (a policy file) plays hands against an opponent;
   at each of its decisions with more than one legal action the teacher
   (``expert`` or an ``expert:...`` spec) is asked for its choice *and* the
   searched values of every candidate action (:meth:`ExpertAgent.decide`).
   The learner's move is played (DAgger's roll-in). With ``--close-study``,
   every decision where closing is legal and learner and teacher disagree on
   closing is also played out on the true deal four ways, each move followed
   by the learner or by the teacher to the end of the hand: the hand's real
   game points for the deciding seat, plus the close's value with both hands
   known (the solver sees the opponent's cards). ``--playouts`` plays every
   disagreement out twice (either move, the learner finishing).
2. ``fit``: a policy *file* is fitted (in torch, the same MLP) to either the
   teacher's actions (``--target hard``) or a softmax of its action values
   (``--target soft --temperature T``, game points), and saved as a new
   policy file, so ``sixtysix eval new.npz heuristic`` measures it directly.
   ``--min-gap``, ``--labels`` choose which rows take the teacher's target;
   the others keep the learner's move (``--anchor move``) or its whole
   distribution (``--anchor policy``); ``--train head`` fits the last layer only.
3. ``summary``: close counts, the studies, and any policy's agreement, closes
   and provable exhausted-stock mistakes on a data file.

    python -m research.distill_soft collect --learner sixtysix-ppo \\
        --hands 1200 --seed 1 --close-study -o runs/soft-data.npz
    python -m research.distill_soft fit --policy sixtysix-ppo \\
        --data runs/soft-data.npz --target soft --temperature 0.25 -o runs/soft.npz

Findings are in ``research/notes/strength.md``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from typing import Any

import numpy as np

from sixtysix_env.agents import make_agent
from sixtysix_env.game.actions import CLOSE, NUM_ACTIONS
from sixtysix_env.game.engine import State, new_hand
from sixtysix_env.game.rules import make_rules
from sixtysix_env.game.view import player_view
from sixtysix_env.policy import PolicyNetwork, save_policy
from sixtysix_env.policy.observation import INDEX, OBS_SIZE, observe_view

from .distill import (
    add_collect_arguments,
    add_fit_arguments,
    collect_arguments,
    fit_arguments,
    labelled_meta,
    read_meta,
)
from .hands import opponent_moves

DATA_FORMAT = "sixtysix-distill-soft-data/1"

# Columns of the close study, one row per decision where closing was legal and
# learner and teacher disagreed on it (game points for the deciding seat).
STUDY_COLUMNS = (
    "teacher_closes",  # 1 if the teacher closed and the learner did not, 0 the other way
    "close_then_learner",
    "other_then_learner",
    "close_then_teacher",
    "other_then_teacher",
    "close_exact",  # the close's value with both hands known (solver)
    "close_value",  # the teacher's searched value of closing
    "other_value",  # the teacher's searched value of the non-close move played
)


def _play_out(state: State, seat: int, first: int, me, opponent, seed: str) -> int:
    """Game points for ``seat`` after ``first`` is played and ``me``/``opponent`` finish."""
    rng = random.Random(seed)
    s = state.apply(first)
    while s.result is None:
        p = s.current_player()
        agent = me if p == seat else opponent
        s = s.apply(agent.act(player_view(s, p), rng))
    return int(s.result.returns()[seat])


def _collect(
    learner_spec: str,
    teacher_spec: str,
    opponent_spec: str,
    rules: str,
    seed: int,
    hands: int,
    close_study: bool,
    playouts: bool = False,
) -> dict[str, np.ndarray]:
    cfg = make_rules(rules)
    learner = make_agent(learner_spec)
    teacher = make_agent(teacher_spec)
    opponent = make_agent(opponent_spec)
    if not hasattr(teacher, "decide"):
        raise ValueError(f"teacher {teacher_spec!r} reports no action values; use expert[:...]")
    solver = teacher._solver(cfg)
    obs, masks, values, t_act, l_act, study, outs = [], [], [], [], [], [], []
    for h in range(hands):
        rng = random.Random(f"sixtysix-distill-soft:{seed}:{h}")
        seat = h % 2
        state = new_hand(rng, rng.randrange(2), cfg)
        rngs = [random.Random(rng.random()) for _ in range(3)]
        state = opponent_moves(state, seat, opponent, rngs[1])
        while state.result is None:
            view = player_view(state, seat)
            a = learner.act(view, rngs[0])
            legal = view.legal_mask
            if legal & (legal - 1):
                t, vals = teacher.decide(view, rngs[2])
                ov = observe_view(view)
                row = np.full(NUM_ACTIONS, np.nan, dtype=np.float32)
                for k, x in vals.items():
                    row[k] = x
                obs.append(ov["observation"])
                masks.append(ov["action_mask"])
                values.append(row)
                t_act.append(t)
                l_act.append(a)
                if playouts and t != a:
                    tag = f"{seed}:{h}:{len(obs)}:p"
                    outs.append(
                        [
                            _play_out(state, seat, t, learner, opponent, tag),
                            _play_out(state, seat, a, learner, opponent, tag),
                        ]
                    )
                else:
                    outs.append([np.nan, np.nan])
                if close_study and legal >> CLOSE & 1 and (t == CLOSE) != (a == CLOSE):
                    other = a if t == CLOSE else t
                    tag = f"{seed}:{h}:{len(obs)}"
                    exact = solver.value(state.apply(CLOSE))
                    study.append(
                        [
                            float(t == CLOSE),
                            _play_out(state, seat, CLOSE, learner, opponent, tag),
                            _play_out(state, seat, other, learner, opponent, tag),
                            _play_out(state, seat, CLOSE, teacher, opponent, tag),
                            _play_out(state, seat, other, teacher, opponent, tag),
                            exact if seat == 0 else -exact,
                            vals.get(CLOSE, np.nan),
                            vals.get(other, np.nan),
                        ]
                    )
            state = opponent_moves(state.apply(a), seat, opponent, rngs[1])
    return {
        "obs": np.asarray(obs, dtype=np.float32).reshape(-1, OBS_SIZE),
        "masks": np.asarray(masks, dtype=bool).reshape(-1, NUM_ACTIONS),
        "values": np.asarray(values, dtype=np.float32).reshape(-1, NUM_ACTIONS),
        "teacher": np.asarray(t_act, dtype=np.int64),
        "learner": np.asarray(l_act, dtype=np.int64),
        "study": np.asarray(study, dtype=np.float32).reshape(-1, len(STUDY_COLUMNS)),
        "playouts": np.asarray(outs, dtype=np.float32).reshape(-1, 2),
    }


def collect(
    learner: str,
    teacher: str = "expert",
    opponent: str = "heuristic",
    hands: int = 1000,
    rules: str = "altmisalti",
    seed: int = 0,
    close_study: bool = False,
    playouts: bool = False,
) -> dict[str, Any]:
    """Decisions of ``learner`` with the teacher's action and values (one process).

    With ``playouts``, every disagreement is played out on the true deal twice,
    the teacher's move and the learner's, the learner finishing the hand
    (``playouts`` columns: game points for the learner's seat; NaN elsewhere).
    """
    if hands < 1:
        raise ValueError(f"hands must be at least 1, got {hands!r}")
    t0 = time.perf_counter()
    data = _collect(learner, teacher, opponent, rules, seed, hands, close_study, playouts)
    meta = labelled_meta(
        DATA_FORMAT, learner, teacher, opponent, hands, rules, seed,
        decisions=len(data["teacher"]), study_columns=list(STUDY_COLUMNS),
        seconds=time.perf_counter() - t0,
    )
    return {"data": data, "meta": meta}


def save_data(result: dict[str, Any], path: str) -> None:
    np.savez_compressed(path, **result["data"], meta=np.array(json.dumps(result["meta"])))


def load_data(path: str) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    with np.load(path, allow_pickle=False) as z:
        meta = read_meta(z, path, DATA_FORMAT, "a soft distillation data file")
        return {k: z[k] for k in z.files if k != "meta"}, meta


PHASES = ("open", "closed", "exhausted")
LABELS = ("all", "close", "no-close", *PHASES)
# The observation's phase flags, by their field names in the layout's index.
_PHASE_INDEX = {p: INDEX[p] for p in PHASES}


def phases(obs: np.ndarray) -> np.ndarray:
    """The stock's phase of each observation row: "open", "closed" or "exhausted"."""
    flags = [obs[:, _PHASE_INDEX[p]] > 0.5 for p in PHASES]
    return np.select(flags, list(PHASES), "other")


# What ``fit`` reads of each data file (the studies are for ``summary``).
_FIT_KEYS = ("obs", "masks", "values", "teacher", "learner")


def targets(
    values: np.ndarray,
    masks: np.ndarray,
    teacher: np.ndarray,
    kind: str,
    temperature: float,
    learner: np.ndarray | None = None,
    min_gap: float = 0.0,
    labels: str = "all",
    phase: np.ndarray | None = None,
    anchor: np.ndarray | None = None,
) -> np.ndarray:
    """Target distributions (n, 34): one-hot teacher actions, or softmax(values / T).

    Rows without searched values (an obvious move) fall back to one-hot. With
    ``min_gap`` > 0 and the ``learner``'s actions, a row where the teacher's
    searched value beats the learner's move by less than ``min_gap`` game
    points keeps the learner's move (one-hot): the search's noise is about
    0.1-0.2 gp, and such labels only move the policy at random. ``labels``
    "close" takes the teacher's target only where the teacher or the learner
    closes, "no-close" only elsewhere, and "open", "closed" or "exhausted"
    only in that phase of the stock (``phase``: one such name per row); the
    other rows keep the learner's move: one-hot, or its whole distribution
    if ``anchor`` (n, 34) gives it (then those rows start at zero gradient).
    """
    if kind not in ("hard", "soft"):
        raise ValueError(f"target must be 'hard' or 'soft', got {kind!r}")
    n = len(teacher)
    out = np.zeros((n, NUM_ACTIONS), dtype=np.float32)
    out[np.arange(n), teacher] = 1.0
    if min_gap < 0:
        raise ValueError(f"min_gap must be at least 0 game points, got {min_gap!r}")
    if labels not in LABELS:
        raise ValueError(f"labels must be one of {', '.join(LABELS)}; got {labels!r}")
    keep = np.zeros(n, dtype=bool)
    if (min_gap > 0 or labels != "all") and learner is None:
        raise ValueError("min_gap and labels need the learner's actions")
    if labels in PHASES:
        if phase is None:
            raise ValueError(f"labels {labels!r} needs the phase of each row")
        keep |= phase != labels
    elif labels != "all":
        closing = (teacher == CLOSE) | (learner == CLOSE)
        keep |= ~closing if labels == "close" else closing
    if min_gap > 0:
        rows_ = np.arange(n)
        vt, vl = values[rows_, teacher], values[rows_, learner]
        keep |= np.isfinite(vt) & np.isfinite(vl) & (vt - vl < min_gap)
    if kind == "hard":
        return _keep_learner(out, keep, learner, anchor)
    if not temperature > 0:
        raise ValueError(f"temperature must be positive game points, got {temperature!r}")
    known = np.isfinite(values) & masks
    rows = known.sum(axis=1) >= 2
    z = np.where(known, values / temperature, -np.inf)[rows]
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    out[rows] = p / p.sum(axis=1, keepdims=True)
    return _keep_learner(out, keep, learner, anchor)


def _keep_learner(
    out: np.ndarray, keep: np.ndarray, learner: np.ndarray | None, anchor: np.ndarray | None
) -> np.ndarray:
    if keep.any():
        if anchor is not None:
            out[keep] = anchor[keep]
        else:
            out[keep] = 0.0
            out[np.flatnonzero(keep), learner[keep]] = 1.0
    return out


def fit(
    policy: str,
    data_path: str | list[str],
    out: str,
    target: str = "soft",
    temperature: float = 0.25,
    epochs: int = 4,
    learning_rate: float = 1e-4,
    batch_size: int = 256,
    seed: int = 0,
    val_fraction: float = 0.1,
    min_gap: float = 0.0,
    labels: str = "all",
    train: str = "all",
    anchor: str = "move",
) -> dict[str, Any]:
    """Fit the policy file's network to the data's targets; save it to ``out`` (a .npz)."""
    import torch

    torch.manual_seed(seed)
    paths = [data_path] if isinstance(data_path, str) else list(data_path)
    parts = [load_data(p) for p in paths]
    data = {k: np.concatenate([d[k] for d, _ in parts]) for k in _FIT_KEYS}
    meta = parts[0][1] if len(parts) == 1 else [m for _, m in parts]
    rules = {m["rules"] for _, m in parts}
    if len(rules) > 1:
        raise ValueError(f"data files of different rules {sorted(rules)}; fit one rule set")
    agent = make_agent(policy)
    net = getattr(agent, "network", None)
    if net is None:
        raise ValueError(f"{policy!r} is not a policy file or shipped policy")
    if net.symmetry is not None:
        raise ValueError(
            f"{policy!r} is averaged over a symmetry ({net.symmetry!r}), which a fit would "
            "drop; fit the plain policy it was made from"
        )
    if anchor not in ("move", "policy"):
        raise ValueError(f"anchor must be 'move' or 'policy', got {anchor!r}")
    tgt = targets(
        data["values"],
        data["masks"],
        data["teacher"],
        target,
        temperature,
        data["learner"],
        min_gap,
        labels,
        phases(data["obs"]),
        net.probabilities(data["obs"], data["masks"]).astype(np.float32)
        if anchor == "policy"
        else None,
    )
    n = len(tgt)
    order = np.random.default_rng(seed).permutation(n)
    n_val = int(n * val_fraction)
    val, fit_rows = torch.from_numpy(order[:n_val]), torch.from_numpy(order[n_val:])
    layers = []
    for i, (w, b) in enumerate(zip(net.weights, net.biases)):
        lin = torch.nn.Linear(w.shape[0], w.shape[1])
        with torch.no_grad():
            lin.weight.copy_(torch.from_numpy(w.T.copy()))
            lin.bias.copy_(torch.from_numpy(b.copy()))
        layers.append(lin)
        if i < len(net.weights) - 1:
            layers.append(torch.nn.ReLU() if net.activation == "relu" else torch.nn.Tanh())
    model = torch.nn.Sequential(*layers)
    if train not in ("all", "head"):
        raise ValueError(f"train must be 'all' or 'head', got {train!r}")
    # "head": only the output layer learns, so the hidden features (shared by every
    # state) cannot drift; a test of whether fitting hurts through them.
    params = list(model.parameters()) if train == "all" else list(layers[-1].parameters())
    opt = torch.optim.Adam(params, lr=learning_rate)
    x_all = torch.from_numpy(data["obs"])
    m_all = torch.from_numpy(data["masks"])
    t_all = torch.from_numpy(tgt)
    teach = torch.from_numpy(data["teacher"])

    def masked_logp(idx):
        logits = model(x_all[idx]).masked_fill(~m_all[idx], -1e9)
        return torch.log_softmax(logits, dim=1)

    def agreement(idx) -> float | None:
        if len(idx) == 0:
            return None
        with torch.no_grad():
            return float((masked_logp(idx).argmax(1) == teach[idx]).float().mean())

    history = [
        {"epoch": 0, "train_agreement": agreement(fit_rows), "val_agreement": agreement(val)}
    ]
    gen = torch.Generator().manual_seed(seed)
    train_t = fit_rows
    for ep in range(1, epochs + 1):
        perm = train_t[torch.randperm(len(train_t), generator=gen)]
        total = 0.0
        for i in range(0, len(perm), batch_size):
            idx = perm[i : i + batch_size]
            lp = masked_logp(idx)
            loss = -(t_all[idx] * lp.clamp_min(-1e4)).sum(1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        history.append(
            {
                "epoch": ep,
                "loss": total / len(perm),
                "train_agreement": agreement(fit_rows),
                "val_agreement": agreement(val),
            }
        )
    weights, biases = [], []
    for m in model:
        if isinstance(m, torch.nn.Linear):
            weights.append(m.weight.detach().numpy().T.copy())
            biases.append(m.bias.detach().numpy().copy())
    record = {
        "source_policy": policy,
        "data": meta,
        "target": target,
        "temperature": temperature if target == "soft" else None,
        "min_gap": min_gap,
        "labels": labels,
        "train": train,
        "anchor": anchor,
        "epochs": epochs,
        "learning_rate": learning_rate,
        "batch_size": batch_size,
        "seed": seed,
        "decisions": n,
        "held_out": n_val,
        "history": history,
    }
    name = out.rsplit("/", 1)[-1].removesuffix(".npz")
    save_policy(
        out,
        PolicyNetwork(weights, biases, net.activation),
        {"name": name, "rules": rules.pop(), "training": {"distill_soft": record}},
    )
    return record


def summarize(data: dict[str, np.ndarray], policies: tuple[str, ...] = ()) -> dict[str, Any]:
    """Close rates and the close study's means (what research/notes/strength.md quotes).

    Each of ``policies`` (policy files or shipped names) is also scored on the
    data's decisions: its argmax's agreement with the teacher and its closes.
    """
    masks, t, a = data["masks"], data["teacher"], data["learner"]
    can_close = masks[:, CLOSE]
    out: dict[str, Any] = {
        "decisions": len(t),
        "agreement": float((t == a).mean()) if len(t) else None,
        "close_legal": int(can_close.sum()),
        "teacher_closes": int((t[can_close] == CLOSE).sum()),
        "learner_closes": int((a[can_close] == CLOSE).sum()),
    }
    for spec in policies:
        net = getattr(make_agent(spec), "network", None)
        if net is None:
            raise ValueError(f"{spec!r} is not a policy file or shipped policy")
        choice = np.where(masks, net.logits(data["obs"]), -np.inf).argmax(1)
        # With the stock exhausted the teacher's values are exact (solver): a choice
        # worth less than the best is a provable mistake.
        late = phases(data["obs"]) == "exhausted"
        vals = data["values"][late]
        best = np.max(np.where(np.isfinite(vals), vals, -np.inf), axis=1)
        lost = best - vals[np.arange(len(vals)), choice[late]]
        lost = np.where(np.isfinite(lost), lost, 0.0)
        out[f"policy {spec}"] = {
            "agreement": float((choice == t).mean()),
            "closes": int((choice[can_close] == CLOSE).sum()),
            "exhausted_decisions": int(late.sum()),
            "exhausted_mistakes": int((lost > 1e-9).sum()),
            "exhausted_gp_lost": round(float(lost.sum()), 3),
        }
    po = data.get("playouts")
    if po is not None and np.isfinite(po).any():
        rows = np.isfinite(po[:, 0])
        gain = po[rows, 0] - po[rows, 1]
        vals, t_, a_ = data["values"][rows], t[rows], a[rows]
        idx = np.arange(len(t_))
        gap = vals[idx, t_] - vals[idx, a_]
        part = {"n": int(rows.sum())}
        for label, sel in (
            ("all", np.ones(len(gain), dtype=bool)),
            ("gap<0.25", gap < 0.25),
            ("0.25<=gap<1", (gap >= 0.25) & (gap < 1)),
            ("gap>=1", gap >= 1),
            ("teacher closes", t_ == CLOSE),
            ("learner closes", a_ == CLOSE),
        ):
            g = gain[sel]
            if len(g) > 1:
                part[label] = {
                    "n": len(g),
                    "teacher_minus_learner": round(float(g.mean()), 3),
                    "ci95": round(float(1.96 * g.std(ddof=1) / np.sqrt(len(g))), 3),
                    "search_gap": round(float(np.nanmean(gap[sel])), 3),
                }
        out["playouts (teacher's move vs learner's, learner finishes)"] = part
    st = data["study"]
    for flag, label in ((1.0, "teacher_closes_learner_not"), (0.0, "learner_closes_teacher_not")):
        rows = st[st[:, 0] == flag]
        if not len(rows):
            continue
        part = {"n": len(rows)}
        for j, col in enumerate(STUDY_COLUMNS[1:], 1):
            x = rows[:, j]
            x = x[np.isfinite(x)]
            se = float(x.std(ddof=1) / np.sqrt(len(x))) if len(x) > 1 else float("nan")
            part[col] = [round(float(x.mean()), 3), round(1.96 * se, 3)]
        d = rows[:, 1] - rows[:, 2]
        part["close_minus_other_learner"] = [
            round(float(d.mean()), 3),
            round(float(1.96 * d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 else 0.0, 3),
        ]
        d = rows[:, 3] - rows[:, 4]
        part["close_minus_other_teacher"] = [
            round(float(d.mean()), 3),
            round(float(1.96 * d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 else 0.0, 3),
        ]
        out[label] = part
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m research.distill_soft", description=__doc__.split("\n")[0]
    )
    sub = parser.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser(
        "collect", help="the teacher's actions and action values on the learner's states"
    )
    add_collect_arguments(c, hands=1000)
    c.add_argument("--close-study", action="store_true", help="play out close disagreements")
    c.add_argument(
        "--playouts", action="store_true", help="play out every disagreement (learner finishes)"
    )
    c.add_argument("-o", "--out", required=True)
    s = sub.add_parser("summary", help="close rates and the close study of a data file")
    s.add_argument("data")
    s.add_argument("--policy", nargs="*", default=[], help="also score these policies' choices")
    f = sub.add_parser("fit", help="fit a policy file to the data; write a new policy file")
    f.add_argument("--policy", required=True)
    f.add_argument("--data", nargs="+", required=True, help="one or more data files")
    f.add_argument("--target", choices=("hard", "soft"), default="soft")
    f.add_argument("--temperature", type=float, default=0.25, help="softmax temperature, gp")
    add_fit_arguments(f, epochs=4, learning_rate=1e-4, batch_size=256, val_fraction=0.1)
    f.add_argument(
        "--min-gap",
        type=float,
        default=0.0,
        help="keep the learner's move where the teacher's value leads it by less (gp)",
    )
    f.add_argument(
        "--anchor",
        choices=("move", "policy"),
        default="move",
        help="rows without a teacher target keep the learner's move (one-hot) or its "
        "whole distribution",
    )
    f.add_argument(
        "--train", choices=("all", "head"), default="all", help="fit every layer or the last"
    )
    f.add_argument(
        "--labels",
        choices=LABELS,
        default="all",
        help="teacher targets only on closing decisions, only elsewhere, only in one phase "
        "of the stock, or everywhere",
    )
    f.add_argument("-o", "--out", required=True)
    args = parser.parse_args(argv)
    if args.cmd == "collect":
        res = collect(*collect_arguments(args), args.close_study, args.playouts)
        save_data(res, args.out)
        print(json.dumps(res["meta"], indent=2))
        print(json.dumps(summarize(res["data"]), indent=2))
    elif args.cmd == "summary":
        data, _meta = load_data(args.data)
        print(json.dumps(summarize(data, tuple(args.policy)), indent=2))
    else:
        rec = fit(
            args.policy,
            args.data,
            args.out,
            args.target,
            args.temperature,
            min_gap=args.min_gap,
            labels=args.labels,
            train=args.train,
            anchor=args.anchor,
            **fit_arguments(args),
        )
        print(json.dumps({k: v for k, v in rec.items() if k != "data"}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
