"""Agents by name: ``make_agent("heuristic")``, ``make_agent("expert", samples=16)``.

A name may carry keyword options after a colon, as used on the command
line: ``"expert:samples=16,time_budget=0.1"`` (values are parsed as int,
float, bool or None where they look like one). A name may also be a policy
shipped with the package (``"sixtysix-ppo"``, see :mod:`sixtysix_env.policy.shipped`
and ``sixtysix agents``). A path ending in ``.npz`` is an exported policy
file, loaded by :func:`sixtysix_env.policy.load_policy`; one ending in ``.zip`` is a
Stable-Baselines3 model (MaskablePPO, PPO, A2C, DQN, as ``model.save`` writes it), read
as a numpy network by :mod:`sixtysix_env.policy.sb3` (torch, from the ``[train]``
extra, reads its weights; nothing is unpickled). And an agent class of
your own is named ``package.module:ClassName`` (with options after a second
colon: ``mybots.greedy:Greedy:depth=2``): the module is imported, and the
class (or any callable) is called with the options to build the agent (the
current folder is searched for the module, as uvicorn does for ``module:app``).
The ``schnapsen`` package's bots are ``schnapsen:NAME`` (``schnapsen:rdeep:num_samples=16,
depth=4``) and a ``schnapsen.game.Bot`` of your own ``schnapsen:package.module:ClassName``
(:mod:`sixtysix_env.agents.schnapsen`, the ``[schnapsen]`` extra).
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable
from typing import Any

from ..policy.shipped import shipped_policies
from ..util.errors import SixtySixError
from ..util.importing import import_callable
from .base import Agent, RandomAgent
from .expert import ExpertAgent, GuidedExpertAgent
from .heuristic import HeuristicAgent
from .lbr import LocalBestResponse

_FACTORIES: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "heuristic": HeuristicAgent,
    "expert": ExpertAgent,
    "guided": GuidedExpertAgent,
    "lbr": LocalBestResponse,
}

#: The endings of the agent files a name may be: a policy file, an SB3 model.
FILE_SUFFIXES = (".npz", ".zip")


class AgentSpecError(SixtySixError, ValueError):
    """An unknown agent name, a malformed option, or an unusable policy file."""


def register_agent(name: str, factory: Callable[..., Agent]) -> None:
    """Make ``make_agent(name)`` build agents with ``factory(**kwargs)``."""
    if not name or ":" in name or name.endswith(FILE_SUFFIXES):
        raise ValueError(
            f"an agent name must be non-empty, without ':' and not end in .npz or .zip: {name!r}"
        )
    _FACTORIES[name] = factory


def builtin_names() -> list[str]:
    """The agents built in code (and any registered with :func:`register_agent`)."""
    return sorted(_FACTORIES)


def factory_of(name: str) -> Callable[..., Agent]:
    return _FACTORIES[name]


def _shipped() -> dict:
    return shipped_policies()


def agent_names() -> list[str]:
    """Every name :func:`make_agent` accepts: the built-in agents, then the shipped policies."""
    builtin = builtin_names()
    return builtin + [n for n in _shipped() if n not in _FACTORIES]


def _known_names() -> str:
    shipped = [n for n in _shipped() if n not in _FACTORIES]
    text = f"built-in agents: {', '.join(builtin_names())}"
    if shipped:
        text += f"; shipped policies: {', '.join(shipped)}"
    return text + (
        "; or a policy file ending in .npz, an SB3 model ending in .zip, an agent class "
        "of your own as package.module:ClassName, or a bot of the schnapsen package as "
        "schnapsen:NAME ('sixtysix agents' lists them all)"
    )


def agent_options(factory: Callable[..., Agent]) -> tuple[set[str] | None, str]:
    """The keyword options ``factory`` takes (None: any) and a phrase describing them."""
    try:
        params = list(inspect.signature(factory).parameters.values())
    except (TypeError, ValueError):
        return None, ""
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return None, ""
    named = [
        p
        for p in params
        if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    ]
    if not named:
        return set(), "it takes no options"
    shown = ", ".join(
        p.name if p.default is inspect.Parameter.empty else f"{p.name}={p.default!r}"
        for p in named
    )
    return {p.name for p in named}, f"its options (with defaults): {shown}"


def _build(name: str, factory: Callable[..., Agent], opts: dict[str, Any]) -> Agent:
    allowed, described = agent_options(factory)
    if allowed is not None:
        unknown = sorted(set(opts) - allowed)
        if unknown:
            raise AgentSpecError(
                f"bad options for agent {name!r}: no option {', '.join(map(repr, unknown))}; "
                f"{described}"
            )
    try:
        return factory(**opts)
    except (TypeError, ValueError) as e:
        if isinstance(e, SixtySixError):
            raise
        raise AgentSpecError(
            f"bad options for agent {name!r} ({e})" + (f"; {described}" if described else "")
        ) from None


def _is_run_folder(path: str) -> bool:
    return os.path.isdir(path) and any(
        os.path.exists(os.path.join(path, f))
        for f in (
            "config.yaml",
            os.path.join("best", "model.zip"),
            os.path.join("latest", "model.zip"),
        )
    )


def _parse_value(text: str) -> Any:
    t = text.strip()
    low = t.lower()
    if low in ("none", "null"):
        return None
    if low in ("true", "yes"):
        return True
    if low in ("false", "no"):
        return False
    for conv in (int, float):
        try:
            return conv(t)
        except ValueError:
            pass
    return t


def _class_part(rest: str) -> tuple[str, str] | None:
    """``"Class:k=v"`` -> ``("Class", "k=v")`` when ``rest`` starts with a class name, else None."""
    head, colon, opts = rest.partition(":")
    if head.isidentifier() and (colon or "=" not in head):
        return head, opts
    return None


#: The prefix of the ``schnapsen`` package's bots (:mod:`sixtysix_env.agents.schnapsen`).
SCHNAPSEN_PREFIX = "schnapsen:"


def _schnapsen_parts(spec: str) -> tuple[str, str]:
    """``"schnapsen:rdeep:depth=2"`` -> ``("schnapsen:rdeep", "depth=2")``;
    ``"schnapsen:mybots:MyBot:k=1"`` -> ``("schnapsen:mybots:MyBot", "k=1")``."""
    parts = spec[len(SCHNAPSEN_PREFIX) :].split(":")
    if len(parts) >= 2 and parts[1].isidentifier() and (
        "." in parts[0] or len(parts) > 2 or parts[0] not in _schnapsen_bot_names()
    ):
        return SCHNAPSEN_PREFIX + ":".join(parts[:2]), ":".join(parts[2:])
    return SCHNAPSEN_PREFIX + parts[0], ":".join(parts[1:])


def _schnapsen_bot_names() -> tuple[str, ...]:
    from .schnapsen import BOTS

    return tuple(BOTS)


def parse_agent_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"expert:samples=16,time_budget=0.1"`` -> ``("expert", {...})``.

    ``"package.module:Class:key=value"`` -> ``("package.module:Class", {...})``;
    ``"schnapsen:rdeep:depth=2"`` -> ``("schnapsen:rdeep", {"depth": 2})``.
    """
    if ":" not in spec or os.path.exists(spec):
        return spec, {}
    if spec.startswith(SCHNAPSEN_PREFIX):
        name, opts = _schnapsen_parts(spec)
        return name, _parse_options(spec, opts)
    name, _, opts = spec.partition(":")
    if spec.endswith(FILE_SUFFIXES) and name not in _FACTORIES and name not in _shipped():
        # A file's path with a colon in it; but "expert:prior=my.npz" is an agent's
        # options whose last value names a file.
        return spec, {}
    cls = _class_part(opts)
    if cls is not None and name not in _FACTORIES and name not in _shipped():
        name, opts = f"{name}:{cls[0]}", cls[1]
    return name, _parse_options(spec, opts)


def _parse_options(spec: str, opts: str) -> dict[str, Any]:
    """``"k=v,k=v"`` (of ``spec``) as keyword options."""
    kwargs: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in opts.split(","))):
        key, eq, value = part.partition("=")
        if not eq or not key.strip().isidentifier():
            raise AgentSpecError(
                f"malformed agent option {part!r} in {spec!r}; write NAME:key=value,key=value"
            )
        kwargs[key.strip()] = _parse_value(value)
    return kwargs


def _import_factory(name: str) -> Callable[..., Agent]:
    """The class (or callable) that ``"package.module:Class"`` names, imported."""
    factory, attr = import_callable(
        name, f"agent {name!r}", AgentSpecError,
        "; an agent of your own is named package.module:ClassName, with the module importable "
        "from here",
    )

    def build(**opts: Any) -> Agent:
        agent = factory(**opts)
        if not callable(getattr(agent, "act", None)):
            raise AgentSpecError(
                f"agent {name!r}: {attr}(...) built {type(agent).__name__!r}, which has no "
                "act(view, rng) method"
            )
        return agent

    try:  # the options the class takes, checked by name as for the built-in agents
        build.__signature__ = inspect.signature(factory)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        pass
    return build


def load_policy_file(path: str, **kwargs: Any) -> Agent:
    """An agent from an exported policy file (:func:`sixtysix_env.policy.load_policy`)."""
    if not os.path.isfile(path):
        raise AgentSpecError(f"policy file {path!r} does not exist (or is not a file)")
    from ..policy import load_policy  # numpy: only when a policy file is asked for

    return load_policy(path, **kwargs)


def load_sb3_file(path: str, **kwargs: Any) -> Agent:
    """An agent from a Stable-Baselines3 model file (:func:`sixtysix_env.policy.sb3.load_sb3_model`)."""
    if not os.path.isfile(path):
        raise AgentSpecError(f"SB3 model {path!r} does not exist (or is not a file)")
    from ..policy.sb3 import load_sb3_model

    allowed = {"deterministic"}
    unknown = sorted(set(kwargs) - allowed)
    if unknown:
        raise AgentSpecError(
            f"bad options for SB3 model {path!r}: no option {', '.join(map(repr, unknown))}; "
            "its options (with defaults): deterministic=True"
        )
    return load_sb3_model(path, **kwargs)


def make_agent(spec: str | Agent, **kwargs: Any) -> Agent:
    """An agent from a built-in name (with options), a policy file, or an agent passed through."""
    if not isinstance(spec, str):
        if hasattr(spec, "act"):
            if kwargs:
                raise TypeError("options can only be given with an agent name, not an agent object")
            return spec
        raise TypeError(f"an agent must be a name or have an act(view, rng) method, got {spec!r}")
    name, opts = parse_agent_spec(spec)
    opts.update(kwargs)
    if name.startswith(SCHNAPSEN_PREFIX):
        from .schnapsen import make_schnapsen_agent

        return make_schnapsen_agent(name[len(SCHNAPSEN_PREFIX) :], opts)
    if name.endswith(".npz"):
        return load_policy_file(name, **opts)
    if name.endswith(".zip"):
        return load_sb3_file(name, **opts)
    factory = _FACTORIES.get(name)
    if factory is not None:
        return _build(name, factory, opts)
    shipped = _shipped().get(name)
    if shipped is not None:
        from ..policy import load_policy

        def load(deterministic: bool = True) -> Agent:
            return load_policy(shipped.path, deterministic=deterministic, name=name)

        return _build(name, load, opts)
    if ":" in name:
        return _build(name, _import_factory(name), opts)
    if _is_run_folder(name):
        out = os.path.normpath(name) + ".npz"
        raise AgentSpecError(
            f"{name!r} is a training run folder, not an agent; export its policy first: "
            f"sixtysix export {name} -o {out} (then name {out})"
        )
    raise AgentSpecError(f"unknown agent {name!r}{_file_hint(name)}; {_known_names()}")


def _file_hint(name: str) -> str:
    """What an unknown name may have meant as a file: ``my_sb3`` for ``my_sb3.zip``, whose
    ending was forgotten, or a file that is neither a policy file nor an SB3 model."""
    meant = [name + s for s in FILE_SUFFIXES if os.path.isfile(name + s)]
    if meant:
        return f" (did you mean {' or '.join(meant)}?)"
    if os.path.exists(name):
        return (
            " (a policy file ends in .npz and an SB3 model in .zip; sixtysix export turns a "
            "trained model into a policy file)"
        )
    return ""
