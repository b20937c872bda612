"""Merge policy files into one network that plays their averaged logits.

    sixtysix ensemble A.npz B.npz C.npz -o merged.npz --name my-ensemble \\
        --eval-opponents random@10000 heuristic@10000 expert@1000 --eval-seed 11 --workers 2

The members must share the observation version, the rules, the activation
and the number of hidden layers (their widths may differ). The result is one
plain multi-layer perceptron, no wrapper: the first layer puts the members'
first layers side by side, each further hidden layer is block-diagonal (a
member's units see only that member's units), and the output layer sums the
members' output layers scaled by their weights. So its logits are exactly
``sum_i w_i * logits_i(obs)`` (up to float32 rounding) and it loads, plays and
evaluates wherever a policy file does, with numpy alone. Weights default to
equal (the mean); they must be positive and are normalised to sum to 1.

An average of independently trained networks is the classic ensemble: their
errors are partly independent, so the average's argmax errs less often than
a member's. The cost is width: N members of width H make a network of width
N*H, whose block-diagonal layers do N times the work of one member.

``--symmetry suits`` averages the result over the 24 renamings of the suits
as well (:class:`~sixtysix_env.policy.PolicyNetwork`'s ``symmetry``); with it a
single policy is enough:

    sixtysix ensemble sixtysix-ppo-v2 --symmetry suits -o v2-suits.npz

The rules treat the four suits alike, but a network trained on raw suits
answers a position and its suit-renamed twins a little differently; the mean
over all 24 is an ensemble of views of one network, at 24 times the work of
one forward pass.

Beside the merged file it writes ``NAME.eval.jsonl``, the learning-curve log
of an ensemble: every member's training evaluations (from the log beside the
member's file, each record tagged ``"member": MEMBER``) and the merged
network's figures at export, so ``sixtysix plot-curve
merged.npz`` draws the members' curves with the ensemble's figures as stars
(a log with no evaluation at all, nothing to draw, is not written).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from sixtysix_env.policy import (
    SYMMETRIES,
    PolicyFileError,
    PolicyNetwork,
    check_network,
    read_policy,
)

from .common.figures import add_export_evaluation_arguments, export_lines, save_exported_policy
from .common.plot_curve import read_log
from .common.runs import eval_log_path

__all__ = ["add_arguments", "average_networks", "ensemble_log", "merge_policy_files", "run"]


def average_networks(
    networks: Sequence[PolicyNetwork], weights: Sequence[float] | None = None
) -> PolicyNetwork:
    """One network whose logits are the weighted mean of the ``networks``' logits.

    Raises ``ValueError`` naming the mismatch when the members differ in
    activation, depth, input size or output size, or when a weight is not a
    positive finite number.
    """
    nets = list(networks)
    if len(nets) < 2:
        raise ValueError(f"an ensemble needs at least two networks, got {len(nets)}")
    symmetries = {n.symmetry for n in nets}
    if len(symmetries) > 1:
        raise ValueError(
            f"the networks' symmetries differ ({', '.join(sorted(map(repr, symmetries)))}); "
            "members must share one"
        )
    w = _normalised_weights(weights, len(nets))
    _check_same_shape(nets)
    first = nets[0]
    depth = len(first.weights)
    if depth == 1:  # no hidden layer: the logits are linear, so average the layer itself
        wt = sum(wi * n.weights[0].astype(np.float64) for wi, n in zip(w, nets))
        bs = sum(wi * n.biases[0].astype(np.float64) for wi, n in zip(w, nets))
        return PolicyNetwork([wt], [bs], first.activation, first.symmetry)
    out_w: list[np.ndarray] = []
    out_b: list[np.ndarray] = []
    # First layer: the members side by side, reading the same input.
    out_w.append(np.concatenate([n.weights[0] for n in nets], axis=1))
    out_b.append(np.concatenate([n.biases[0] for n in nets]))
    # Hidden-to-hidden layers: block-diagonal.
    for layer in range(1, depth - 1):
        out_w.append(_block_diagonal([n.weights[layer] for n in nets]))
        out_b.append(np.concatenate([n.biases[layer] for n in nets]))
    # Output layer: stacked and scaled, so the logits add up with the weights.
    out_w.append(
        np.concatenate([wi * n.weights[-1].astype(np.float64) for wi, n in zip(w, nets)], axis=0)
    )
    out_b.append(sum(wi * n.biases[-1].astype(np.float64) for wi, n in zip(w, nets)))
    return PolicyNetwork(out_w, out_b, first.activation, first.symmetry)


def _normalised_weights(weights: Sequence[float] | None, n: int) -> np.ndarray:
    """The members' weights (equal when ``None``) checked and scaled to sum to 1."""
    if weights is None:
        weights = [1.0] * n
    w = np.asarray(list(weights), dtype=np.float64)
    if w.shape != (n,):
        raise ValueError(f"{len(w)} weights for {n} networks; give one weight per network")
    if not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise ValueError(f"ensemble weights must be positive finite numbers, got {list(weights)}")
    return w / w.sum()


def _check_same_shape(nets: Sequence[PolicyNetwork]) -> None:
    """Every member has network 0's activation, depth, input size and output size."""
    first = nets[0]
    for i, net in enumerate(nets[1:], start=1):
        if net.activation != first.activation:
            raise ValueError(
                f"network {i} uses {net.activation}, network 0 uses {first.activation}; "
                "members must share the activation"
            )
        if len(net.weights) != len(first.weights):
            raise ValueError(
                f"network {i} has {len(net.weights)} layers, network 0 has "
                f"{len(first.weights)}; members must have the same depth"
            )
        if net.weights[0].shape[0] != first.weights[0].shape[0]:
            raise ValueError(
                f"network {i} reads {net.weights[0].shape[0]} inputs, network 0 reads "
                f"{first.weights[0].shape[0]}"
            )
        if net.weights[-1].shape[1] != first.weights[-1].shape[1]:
            raise ValueError(
                f"network {i} gives {net.weights[-1].shape[1]} outputs, network 0 gives "
                f"{first.weights[-1].shape[1]}"
            )


def _block_diagonal(blocks: Sequence[np.ndarray]) -> np.ndarray:
    """The ``blocks`` on the diagonal of one float32 matrix, zeros elsewhere."""
    rows = sum(b.shape[0] for b in blocks)
    cols = sum(b.shape[1] for b in blocks)
    matrix = np.zeros((rows, cols), dtype=np.float32)
    r = c = 0
    for b in blocks:
        h_in, h_out = b.shape
        matrix[r : r + h_in, c : c + h_out] = b
        r, c = r + h_in, c + h_out
    return matrix


def _algorithm(n: int, symmetry: str | None) -> str:
    parts = []
    if n > 1:
        parts.append(f"the weighted mean of {n} policies' logits, merged exactly into one MLP")
    if symmetry == "suits":
        parts.append("averaged over the 24 renamings of the suits")
    return f"ensemble: {', '.join(parts)} (sixtysix ensemble)"


def _member_record(path: str, meta: dict[str, Any], weight: float) -> dict[str, Any]:
    training = meta.get("training") or {}
    config = training.get("config") or {}
    with open(path, "rb") as f:
        file_sha = hashlib.sha256(f.read()).hexdigest()
    return {
        "name": meta.get("name"),
        "file": os.path.basename(path),
        "file_sha256": file_sha,
        "weights_sha256": meta.get("sha256"),
        "weight": weight,
        "steps": training.get("steps"),
        "config": {k: config.get(k) for k in ("name", "seed", "total_timesteps")} or None,
        "wall_time_s": training.get("wall_time_s"),
        "hidden": (meta.get("architecture") or {}).get("hidden"),
    }


def _resolve(policy: str) -> str:
    """A policy file's path: a shipped policy's name, or a path to a ``.npz``."""
    from sixtysix_env.policy.shipped import shipped_policies

    shipped = shipped_policies().get(policy)
    if shipped is not None:
        return str(shipped.path)
    if not policy.endswith(".npz"):
        names = ", ".join(shipped_policies()) or "none installed"
        raise ValueError(
            f"{policy!r} is neither a policy file (.npz) nor a shipped policy ({names})"
        )
    return policy


def merge_policy_files(
    paths: Sequence[str],
    out: str,
    name: str | None = None,
    weights: Sequence[float] | None = None,
    eval_deals: int = 1000,
    eval_opponents: list[str] | None = None,
    eval_seed: int = 7,
    eval_workers: int = 1,
    write_log: bool = True,
    symmetry: str | None = None,
) -> dict[str, Any]:
    """Merge the policy files at ``paths`` into ``out``; returns the metadata record written.

    ``symmetry`` (``"suits"``) averages the merged network over the renamings
    of the suits too; then one policy file is enough. With ``write_log`` it
    also writes the ensemble's learning-curve log beside ``out``
    (:func:`ensemble_log`).
    """
    if symmetry is not None and symmetry not in SYMMETRIES:
        raise ValueError(
            f"unknown symmetry {symmetry!r}; allowed: {', '.join(map(repr, SYMMETRIES))}"
        )
    if len(paths) < (1 if symmetry else 2):
        raise ValueError(
            f"an ensemble needs at least two policies, or one with a symmetry; got {len(paths)}"
        )
    resolved = [_resolve(p) for p in paths]
    loaded = [read_policy(p) for p in resolved]
    _check_members(paths, loaded, symmetry)
    nets = [net for net, _ in loaded]
    network = average_networks(nets, weights) if len(nets) > 1 else nets[0]
    if symmetry is not None:
        network = network.with_symmetry(symmetry)
    check_network(network, f"the ensemble of {len(paths)} policies")  # before evaluating it
    name = name or os.path.splitext(os.path.basename(out))[0]
    record = _ensemble_record(name, resolved, loaded, weights, network.symmetry)
    written = save_exported_policy(
        out, network, record, record["rule_preset"], eval_deals, eval_opponents, eval_seed,
        eval_workers,
    )
    metas = [meta for _, meta in loaded]
    log = ensemble_log(resolved, metas, record, network.symmetry) if write_log else None
    if log is not None and any("against" in r for r in log):  # else there is nothing to draw
        with open(eval_log_path(out), "w", encoding="utf-8") as f:
            f.writelines(json.dumps(r, sort_keys=True) + "\n" for r in log)
    return written


def _check_members(
    paths: Sequence[str],
    loaded: Sequence[tuple[PolicyNetwork, dict[str, Any]]],
    symmetry: str | None,
) -> None:
    """The policies share the rules, and none is averaged over another symmetry already."""
    rules = [meta.get("rules") for _, meta in loaded]
    for p, r in zip(paths[1:], rules[1:]):
        if r != rules[0]:
            raise ValueError(
                f"{p} was trained under other rules than {paths[0]}; members must share the rules"
            )
    if symmetry is not None:
        for p, (net, _) in zip(paths, loaded):
            if net.symmetry not in (None, symmetry):
                raise ValueError(f"{p} is already averaged over {net.symmetry!r}, not {symmetry!r}")


def _ensemble_record(
    name: str,
    resolved: Sequence[str],
    loaded: Sequence[tuple[PolicyNetwork, dict[str, Any]]],
    weights: Sequence[float] | None,
    symmetry: str | None,
) -> dict[str, Any]:
    """The merged file's metadata: rules, members and their weights; no evaluation yet."""
    w = [1.0] * len(resolved) if weights is None else list(weights)
    total = float(sum(w))
    members = [_member_record(p, meta, wi / total) for p, (_, meta), wi in zip(resolved, loaded, w)]
    steps = [m["steps"] for m in members]
    return {
        "name": name,
        "rules": loaded[0][1].get("rules"),
        "rule_preset": loaded[0][1].get("rule_preset") or "altmisalti",
        "training": {
            "algorithm": _algorithm(len(resolved), symmetry),
            "steps": sum(steps) if all(isinstance(s, int) for s in steps) else None,
            "members": members,
        },
        "exported": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "evaluation": {"during_training": None},
    }


def ensemble_log(
    paths: Sequence[str],
    metas: Sequence[dict[str, Any]],
    record: dict[str, Any],
    symmetry: str | None = None,
) -> list[dict[str, Any]]:
    """The learning-curve records of an ensemble: its members' evaluations, then its own.

    Each member's training evaluations come from the log beside its file
    (``MEMBER.eval.jsonl``; a member without one, or with no evaluation in it,
    adds none), tagged with
    ``"member"``: the member's name (a record already tagged, from an
    ensemble among the members, keeps its tag). Session marks, ranges and
    notes of a member's log are left out: they belong to that member's
    picture. Last comes the merged network's evaluation at export, if any,
    placed at the longest member's last step.
    """
    names = [m["name"] or m["file"] for m in record["training"]["members"]]
    out: list[dict[str, Any]] = [
        {
            "about": (
                f"{record['name']} was not trained: it plays the mean logits of "
                + (f"{len(paths)} policies ({', '.join(names)})" if len(paths) > 1 else names[0])
                + (" over the 24 renamings of the suits" if symmetry else "")
                + ". The lines are the members' own training evaluations; the stars are the "
                "ensemble's figures at export, on other deals."
            )
        }
    ]
    last = 0
    for path, meta, name in zip(paths, metas, names):
        log = eval_log_path(path)
        if not os.path.isfile(log):
            continue
        for r in read_log(log, require_evaluation=False):
            if "steps" not in r or "against" not in r or r.get("kind") == "at_export":
                continue
            out.append({**r, "member": r.get("member", name)})
            last = max(last, int(r["steps"]))
    at_export = (record.get("evaluation") or {}).get("at_export")
    if at_export:
        member_steps = [m["steps"] or 0 for m in record["training"]["members"]]
        steps = last or max(member_steps, default=0)
        out.append({"kind": "at_export", "steps": steps, "against": at_export["against"]})
    return out


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("policies", nargs="+", metavar="POLICY", help="policy files or shipped names")
    p.add_argument("-o", "--output", required=True, help="policy file to write (.npz)")
    p.add_argument("--name", help="name of the merged policy (default: the output file's stem)")
    p.add_argument(
        "--weights", type=float, nargs="+", help="one positive weight per policy (default: equal)"
    )
    add_export_evaluation_arguments(
        p,
        eval_log="write NAME.eval.jsonl beside the output (the members' learning curves "
        "and the ensemble's figures at export)",
    )
    p.add_argument(
        "--symmetry",
        choices=SYMMETRIES,
        help="also average over this symmetry of the game: 'suits', the 24 renamings of the "
        "suits (then one policy is enough)",
    )


def run(args: argparse.Namespace) -> int:
    """``sixtysix ensemble``: merge the policies, write the file, print its figures."""
    if not args.output.endswith(".npz"):
        print(f"sixtysix ensemble: the output must end in .npz, got {args.output!r}", file=sys.stderr)
        return 2
    try:  # an unknown policy is a usage error, as an unknown agent is in every command
        missing = [p for p in args.policies if not os.path.isfile(_resolve(p))]
    except ValueError as e:
        print(f"sixtysix ensemble: {e}", file=sys.stderr)
        return 2
    if missing:
        print(
            f"sixtysix ensemble: no policy file {', '.join(map(repr, missing))}",
            file=sys.stderr,
        )
        return 2
    if args.weights is not None and len(args.weights) != len(args.policies):
        print(
            f"sixtysix ensemble: {len(args.weights)} weights for {len(args.policies)} policies",
            file=sys.stderr,
        )
        return 2
    try:
        record = merge_policy_files(
            args.policies,
            args.output,
            args.name,
            args.weights,
            args.eval_deals,
            args.eval_opponents,
            args.eval_seed,
            args.workers,
            write_log=not args.no_eval_log,
            symmetry=args.symmetry,
        )
    except (PolicyFileError, ValueError) as e:
        print(f"sixtysix ensemble: {e}", file=sys.stderr)
        return 1
    arch = record["architecture"]
    shape = (
        f"{arch['layers'][0][0]} -> {' -> '.join(str(h) for h in arch['hidden'])} -> "
        f"{arch['layers'][-1][1]}"
    )
    averaged = " averaged over the 24 renamings of the suits" if arch.get("symmetry") else ""
    print(
        f"wrote {args.output} ({os.path.getsize(args.output) / 1024:.0f} KiB): "
        f"{len(args.policies)} {'policy' if len(args.policies) == 1 else 'policies'} as one MLP "
        f"{shape}{averaged}"
    )
    for line in export_lines(record):
        print(line)
    return 0
