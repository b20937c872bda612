"""A learned opponent model: a small network that predicts an agent's moves, for inference.

``expert``'s moves are hard to read with the heuristic as the model (its moves
differ from the heuristic's a quarter of the time, in ways a softened rule
cannot say). This script records ``--agent``'s decisions in self-play, fits a
plain MLP to them by cross-entropy over the legal moves (torch, CPU), and
writes it as a policy file (``.npz``), which ``opponent_model`` reads as its
softmax: ``expert:inference=PATH``. It prints the model's mean log-likelihood
and top-1 accuracy of the agent's moves on held-out hands beside the heuristic
model's.

    python research/opponent_model.py --agent expert --hands 2000 --seed 8101 --out /tmp/expert-model.npz
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from sixtysix_env.agents.models import opponent_model
from sixtysix_env.agents.registry import make_agent
from sixtysix_env.game.engine import new_hand
from sixtysix_env.game.view import player_view
from sixtysix_env.policy.fileformat import save_policy
from sixtysix_env.policy.network import PolicyNetwork
from sixtysix_env.policy.observation import encode_with_mask


def record(agent_spec: str, hands: int, seed: int, rules: str):
    """(views, observations, masks, actions) of every decision with a choice."""
    agent = make_agent(agent_spec)
    rng = random.Random(seed)
    views, obs, masks, acts = [], [], [], []
    for i in range(hands):
        s = new_hand(seed * 100_000 + i, dealer=i % 2, rules=rules)
        while s.result is None:
            v = player_view(s, s.current_player())
            a = agent.act(v, rng)
            if v.legal_mask & (v.legal_mask - 1):
                o, m = encode_with_mask(v)
                views.append(v)
                obs.append(o)
                masks.append(m)
                acts.append(a)
            s = s.apply(a)
    return views, np.stack(obs), np.stack(masks).astype(bool), np.array(acts)


def fit(obs, masks, acts, hidden, epochs, lr, seed) -> PolicyNetwork:
    import torch

    torch.manual_seed(seed)
    sizes = [obs.shape[1], *hidden, masks.shape[1]]
    layers = []
    for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
        layers.append(torch.nn.Linear(a, b))
        if i < len(sizes) - 2:
            layers.append(torch.nn.ReLU())
    net = torch.nn.Sequential(*layers)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    x = torch.as_tensor(obs)
    m = torch.as_tensor(masks)
    y = torch.as_tensor(acts)
    n = len(y)
    for epoch in range(epochs):
        perm = torch.randperm(n)
        total = 0.0
        for start in range(0, n, 512):
            idx = perm[start : start + 512]
            logits = net(x[idx]).masked_fill(~m[idx], -1e9)
            loss = torch.nn.functional.cross_entropy(logits, y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss) * len(idx)
        print(f"epoch {epoch + 1}: cross-entropy {total / n:.4f}", flush=True)
    linear = [layer for layer in net if isinstance(layer, torch.nn.Linear)]
    return PolicyNetwork(
        [layer.weight.detach().numpy().T.copy() for layer in linear],
        [layer.bias.detach().numpy().copy() for layer in linear],
        "relu",
    )


def score(model, views, acts) -> tuple[float, float]:
    p = model.probabilities(views)
    taken = p[np.arange(len(acts)), acts]
    return float(np.mean(np.log(np.maximum(taken, 1e-9)))), float(
        np.mean(np.argmax(p, axis=1) == acts)
    )


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agent", default="expert")
    ap.add_argument("--hands", type=int, default=2000)
    ap.add_argument("--test-hands", type=int, default=200)
    ap.add_argument("--seed", type=int, default=8101)
    ap.add_argument("--rules", default="altmisalti")
    ap.add_argument("--hidden", type=int, nargs="+", default=[256, 256])
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    _, obs, masks, acts = record(a.agent, a.hands, a.seed, a.rules)
    print(f"{len(acts)} decisions of {a.agent} in {a.hands} hands ({time.perf_counter() - t0:.0f} s)")
    net = fit(obs, masks, acts, a.hidden, a.epochs, a.lr, a.seed)
    save_policy(a.out, net, {"name": f"{a.agent}-model", "rules": {"preset": a.rules},
                             "note": f"imitation of {a.agent}: research/opponent_model.py"})
    views, _, _, test_acts = record(a.agent, a.test_hands, a.seed + 1, a.rules)
    for name, model in ((a.out, opponent_model(a.out)),
                        ("heuristic, softness 0.3", opponent_model("heuristic", 0.3))):
        ll, top = score(model, views, test_acts)
        print(f"held-out {len(test_acts)} decisions: {name}: mean log-likelihood {ll:.3f}, "
              f"top-1 {top:.3f}")


if __name__ == "__main__":
    main()
