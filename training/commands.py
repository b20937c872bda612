"""``sixtysix train``: the one command above both training backends.

    sixtysix train --config quickstart
    sixtysix train --config rllib-tiny            # the config's backend key: RLlib
    sixtysix train --backend rllib --config configs/rllib-quickstart.yaml --address auto
    sixtysix train --resume runs/quickstart --set total_timesteps=2000000
    sixtysix train --list-options [--backend rllib]

This module alone knows both backends: it reads the command line, picks the
backend (:func:`chosen_backend`: ``--backend``, else ``--set backend=...``, else
the config's or the resumed run folder's ``backend`` key, else sb3) and hands
the session to the run's lifecycle (:func:`~.lifecycle.run_session`), which
opens the run, has the backend learn, and closes it. Each backend is imported
only when chosen: an RLlib run imports nothing of SB3 (``training/sb3/train.py``),
an SB3 run nothing of Ray.
"""

from __future__ import annotations

import argparse
import sys

from .common.lifecycle import Backend, run_session
from .config.loader import BACKENDS, ConfigError, config_backend, parse_override, shipped_configs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from sixtysix_env.evaluation.cli import address_option  # a port outside 1-65535: exit 2

    parser.add_argument(
        "--config",
        metavar="NAME_OR_YAML",
        help="a shipped config by name ("
        + ", ".join(shipped_configs())
        + ") or a YAML file (keys = option names)",
    )
    parser.add_argument(
        "--set",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="override one option (value in YAML syntax); repeatable",
    )
    parser.add_argument(
        "--resume",
        metavar="RUN_DIR",
        help="continue a saved run (its config.yaml; --set may change options)",
    )
    parser.add_argument("--run-dir", help="run folder (default: runs_dir/name from the config)")
    parser.add_argument(
        "--reset-best",
        action="store_true",
        help="with --resume: forget the best score so far (when the evaluation opponents changed)",
    )
    parser.add_argument(
        "--force", action="store_true", help="replace an existing run folder instead of refusing"
    )
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        help="training engine: sb3 (MaskablePPO, default) or rllib (Ray RLlib PPO, [rllib] extra)",
    )
    parser.add_argument(
        "--address",
        metavar="RAY_ADDRESS",
        type=address_option,
        help="RLlib backend: the Ray cluster to run on ('auto', 'host:port', 'ray://host:port'); "
        "the same as --set address=...; default: RAY_ADDRESS, else a local Ray",
    )
    parser.add_argument(
        "--list-options",
        action="store_true",
        help="print every option (of the chosen backend) with its type, default and meaning",
    )


def chosen_backend(args: argparse.Namespace) -> str:
    """--backend, else ``--set backend=...``, else what the config or the resumed run folder
    says (its ``backend`` key), else sb3."""
    if getattr(args, "backend", None):
        return args.backend
    for text in reversed(args.set):
        try:
            key, value = parse_override(text)
        except ConfigError:
            continue  # reported by the loader
        if key == "backend" and value in BACKENDS:
            return value
    path = args.resume or args.config
    return config_backend(path) if path else "sb3"


def backend_named(name: str) -> Backend:
    """The backend ``name`` (imported now: the other one stays unimported)."""
    if name == "rllib":
        from .rllib.train import RLLIB  # Ray RLlib backend: docs/rllib.md

        return RLLIB
    from .sb3.train import SB3  # MaskablePPO

    return SB3


def run(args: argparse.Namespace) -> int:
    backend = chosen_backend(args)
    if getattr(args, "address", None):
        if backend != "rllib":
            print(
                "sixtysix train: --address is for the RLlib backend (add --backend rllib)",
                file=sys.stderr,
            )
            return 2
        args.set = [*args.set, f"address={args.address}"]
    return run_session(args, backend_named(backend))
