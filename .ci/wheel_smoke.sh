#!/usr/bin/env bash
# The package as a user gets it: build the sdist and the wheel (the wheel from
# the sdist, as `python -m build` does), install the wheel with its [play]
# extra into a fresh virtual environment outside the checkout, and use it from
# an empty folder: the shipped opponent by name (a hand, `sixtysix eval`,
# gymnasium.make, the AEC env), the configs by name, and `sixtysix serve`
# answering on loopback. No torch there: the core and [play] only.
#
#   bash .ci/wheel_smoke.sh            # uses `python` (with `build`) from PATH
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PYTHON="${PYTHON:-python}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/sixtysix-wheel.XXXXXX")"
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

echo "== build (sdist, then the wheel from it) into $WORK/dist"
"$PYTHON" -m build --outdir "$WORK/dist" "$ROOT" >"$WORK/build.log" 2>&1 || {
  tail -40 "$WORK/build.log"
  exit 1
}
WHEEL="$(ls "$WORK"/dist/*.whl)"
SDIST="$(ls "$WORK"/dist/*.tar.gz)"
ls -l "$WHEEL" "$SDIST" | awk '{print $5, $NF}'

echo "== fresh virtual environment, the wheel with [play]"
"$PYTHON" -m venv "$WORK/venv"
"$WORK/venv/bin/python" -m pip install -q --disable-pip-version-check "$WHEEL[play]"
PATH="$WORK/venv/bin:$PATH"
export PATH
mkdir "$WORK/elsewhere"
cd "$WORK/elsewhere"

echo "== sixtysix --version, agents"
version="$(sixtysix --version)"
echo "$version"
case "$WHEEL" in *"-${version#sixtysix }-"*) ;; *) echo "version $version is not the wheel's"; exit 1 ;; esac
sixtysix agents | tee "$WORK/agents.txt" | sed -n '/shipped policies/,/file:/p'
grep -q "sixtysix-ppo .*training steps" "$WORK/agents.txt"
grep -q "vs heuristic  *+0\.[0-9]" "$WORK/agents.txt"

echo "== python: imports, a hand against sixtysix-ppo, gymnasium.make, the AEC env"
python - "$ROOT" <<'EOF'
import importlib.util
import os
import random
import sys

root = os.path.realpath(sys.argv[1])
import gymnasium
import numpy as np

import sixtysix_env
from sixtysix_env import new_hand, player_view, sixtysix_v0
from sixtysix_env.agents import AgentSpecError, make_agent

here = os.path.realpath(sixtysix_env.__file__)
assert not here.startswith(root + os.sep), f"sixtysix_env imported from the checkout: {here}"
assert importlib.util.find_spec("training") is None, "a top-level 'training' module is installed"
assert importlib.util.find_spec("sixtysix_training") is not None
assert importlib.util.find_spec("torch") is None, "torch in a core + [play] install"
print("sixtysix_env from", os.path.dirname(here))

from sixtysix_env.policy.shipped import shipped_policies

ppo = shipped_policies()["sixtysix-ppo"]
assert ppo.card is not None and ppo.curve is not None, ppo
print("shipped:", ppo.path.name, ppo.card.name, ppo.curve.name)
bot = make_agent("sixtysix-ppo")
rng, me = random.Random(0), make_agent("random")


def hand_against_me(agent, seed, dealer, seat, rules=None):
    """One hand of ``agent`` in ``seat`` against the random ``me`` (under ``rules``, the home
    rules by default); its result, explained."""
    state = new_hand(seed=seed, dealer=dealer, rules=rules)
    while not state.is_terminal():
        turn = state.current_player()
        state = state.apply((agent if turn == seat else me).act(player_view(state, turn), rng))
    return state.result.explain()


print("a hand against sixtysix-ppo:", hand_against_me(bot, seed=1, dealer=0, seat=1))

# The suit-averaged policy: a version 2 file (symmetry "suits") from the package.
sym = make_agent("sixtysix-ppo-v2-sym")
assert sym.network.symmetry == "suits", sym.network.symmetry
print("a hand of sixtysix-ppo-v2-sym (averaged over the suit renamings):",
      hand_against_me(sym, seed=3, dealer=0, seat=0))

# The shipped networks trained with their weights shared across the suits: plain
# one-pass files from the package (v4, v5 and the match network are 768 wide).
for name, width in (("sixtysix-ppo-v3", 512), ("sixtysix-ppo-v4", 768), ("sixtysix-ppo-v5", 768),
                    ("sixtysix-ppo-match", 768)):
    net = make_agent(name)
    assert net.network.symmetry is None, net.network.symmetry
    assert net.network.hidden == [width, width], net.network.hidden
    print(f"a hand of {name}:", hand_against_me(net, seed=4, dealer=1, seat=0))

# The networks trained for the santase and pagat66 rules, by name, each in a hand of its
# rules; the shipped network for a preset is the one a session under those rules takes when
# no opponent is named.
from sixtysix_env.play.session import GameSession
from sixtysix_env.policy.shipped import networks_for, trained_preset

for preset in ("santase", "pagat66"):
    name = f"sixtysix-ppo-{preset}"
    assert networks_for(preset) == [name], networks_for(preset)
    assert trained_preset(name) == preset
    print(f"a {preset} hand against {name}:",
          hand_against_me(make_agent(name), seed=5, dealer=0, seat=1, rules=preset))
    session = GameSession(rules=preset, seed=1)
    assert name in session.opponent_name, session.opponent_name

guided = make_agent("guided:samples=4")  # the search guided by the shipped policy
print("a hand of guided (its prior from the package):",
      hand_against_me(guided, seed=2, dealer=1, seat=0))

try:
    make_agent("sixtysix-pp")
except AgentSpecError as e:
    assert "sixtysix-ppo" in str(e), e
else:
    raise AssertionError("an unknown name was accepted")

env = gymnasium.make("SixtySix-v0", opponent="sixtysix-ppo")
obs, info = env.reset(seed=0)
total, done = 0.0, False
while not done:
    obs, reward, terminated, truncated, info = env.step(int(obs["action_mask"].argmax()))
    total += reward
    done = terminated or truncated
print(f"gymnasium.make('SixtySix-v0', opponent='sixtysix-ppo'): a hand, reward {total:+g}")

# The AEC env: seat player_1 is the shipped policy, acting on the env's own observation.
net = bot.network
aec = sixtysix_v0.env()
aec.reset(seed=0)
rewards = dict.fromkeys(aec.possible_agents, 0.0)
for agent in aec.agent_iter():
    obs, reward, termination, truncation, info = aec.last()
    rewards[agent] += reward
    if termination or truncation:
        action = None
    elif agent == aec.possible_agents[1]:
        logits = net.logits(obs["observation"])
        action = int(np.argmax(np.where(obs["action_mask"].astype(bool), logits, -np.inf)))
    else:
        action = int(aec.action_space(agent).sample(obs["action_mask"]))
    aec.step(action)
print("AEC env, random vs sixtysix-ppo:", rewards)

import importlib.resources

configs = sorted(p.name for p in importlib.resources.files("sixtysix_training.configs").iterdir())
assert "quickstart.yaml" in configs, configs
print("shipped configs:", ", ".join(c for c in configs if c.endswith(".yaml")))

# The benchmark's ladder ratings are package data: a user's Elo is on the leaderboard's scale.
from sixtysix_env.benchmark import BENCHMARK_V1
from sixtysix_env.benchmark.run import reference_ratings

ladder = reference_ratings(BENCHMARK_V1)
assert ladder is not None and set(ladder) == set(BENCHMARK_V1.ladder), ladder
assert ladder["heuristic"] == 1500.0, ladder
print("benchmark-v1 ladder ratings:", ladder)
EOF

echo "== sixtysix eval sixtysix-ppo random heuristic --deals 50"
sixtysix eval sixtysix-ppo random heuristic --deals 50 --seed 1 | tee "$WORK/eval.txt"
grep -q "sixtysix-ppo" "$WORK/eval.txt"

echo "== sixtysix play --opponent sixtysix-ppo (quits at once)"
echo quit | sixtysix play --opponent sixtysix-ppo --seed 1 --ascii --color never >"$WORK/play.txt"
grep -q "sixtysix-ppo" "$WORK/play.txt"

echo "== sixtysix train without the [train] extra names it"
if sixtysix train --config quickstart >"$WORK/train.txt" 2>&1; then
  echo "train ran without torch?"
  exit 1
fi
cat "$WORK/train.txt"
grep -q 'pip install "sixtysix\[train\]"' "$WORK/train.txt"

echo "== sixtysix serve on loopback"
PORT="$(python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
sixtysix serve --host 127.0.0.1 --port "$PORT" >"$WORK/serve.log" 2>&1 &
SERVER_PID=$!
python - "$PORT" "$SERVER_PID" <<'EOF'
import json
import os
import sys
import time
import urllib.error
import urllib.request

port, pid = sys.argv[1], int(sys.argv[2])
base = f"http://127.0.0.1:{port}"
deadline = time.monotonic() + 30
while True:
    try:
        with urllib.request.urlopen(base + "/api/options", timeout=2) as r:
            options = json.load(r)
        break
    except (urllib.error.URLError, ConnectionError):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            sys.exit("sixtysix serve exited before answering")
        if time.monotonic() > deadline:
            sys.exit("sixtysix serve did not answer within 30 s")
        time.sleep(0.2)
assert "sixtysix-ppo" in options["opponents"], options["opponents"]
with urllib.request.urlopen(base + "/", timeout=5) as r:
    assert r.status == 200 and b"<html" in r.read().lower()
req = urllib.request.Request(
    base + "/api/games",
    data=json.dumps({"opponent": "sixtysix-ppo"}).encode(),
    headers={"Content-Type": "application/json"},
    method="POST",
)
with urllib.request.urlopen(req, timeout=10) as r:
    game = json.load(r)
    assert r.status == 201 and game["opponent"] == "sixtysix-ppo", game
print(f"serve answered on 127.0.0.1:{port}; opponents {options['opponents']}; "
      f"a match against {game['opponent']} started")
EOF
kill "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null || true
SERVER_PID=""
echo "wheel smoke test passed"
