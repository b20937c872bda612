"""Loading a run's SB3 ``model.zip`` without unpickling anything from it.

Stable-Baselines3 saves a model as a zip holding the weights (``*.pth``,
which it reads with ``torch.load(weights_only=True)``) and a JSON record
``data`` of the model's attributes. The attributes JSON cannot hold (the
observation space, the policy class and its keyword arguments, schedules,
the last observations, ...) are cloudpickled into that record as
``":serialized:"`` entries, and ``MaskablePPO.load`` unpickles them: a
crafted run folder would run its code on ``sixtysix export`` or ``sixtysix
train --resume``.

:func:`load_model` unpickles none of them. Each serialized entry a training
run writes is rebuilt instead, from the readable text SB3 stores beside the
pickle (the network's layer sizes, the activation's class name, the
observation's shape) checked against what ``sixtysix train`` builds, or set
to what the model recomputes when it trains (schedules come from the run's
config on resume, and the last observations are reset). A model whose record
has any other serialized entry, or readable parts this version does not
build, is refused with a :class:`ModelFileError` naming them.

Before SB3 reads anything the file is checked as :mod:`sixtysix_env.policy.sb3` checks a
model (a regular file, opened once so that a FIFO cannot block; few members, of bounded
size each and together), its members are the ones SB3 writes (SB3 loads every ``.pth``
member of the zip: no other is accepted), and each ``.pth`` is read without unpickling
(:mod:`sixtysix_env.policy.torch_file`): dense, contiguous tensors of bounded size, few
of them. SB3 then loads from the same open file.
"""

from __future__ import annotations

import zipfile
import zlib
from typing import IO, Any

import numpy as np

from sixtysix_env.policy.sb3 import (
    MAX_VERSION_BYTES,
    SB3ModelError,
    check_members,
    data_record,
    open_model_file,
    read_model_record,
)
from sixtysix_env.policy.torch_file import read_torch_file

# What a model may declare, checked before anything is built from it: layers per network
# (actor, critic), the parameters of each, and the transitions one rollout holds (the
# buffer SB3 allocates on loading: n_steps x n_envs rows). Every run here is far below.
MAX_NET_LAYERS = 16
MAX_NET_PARAMETERS = 1 << 24
MAX_ROLLOUT = 1 << 18
# The steps a model records (num_timesteps: a resumed run seeds its games from it).
MAX_STEPS = 1 << 48

#: The members SB3 writes in a model.zip; SB3 loads every ``.pth`` member, so no other is read.
MEMBERS = frozenset({"data", "policy.pth", "policy.optimizer.pth", "pytorch_variables.pth",
                     "_stable_baselines3_version", "system_info.txt"})

# The serialized entries of a run's model.zip, each rebuilt by _rebuilt below.
REBUILT = frozenset(
    {
        "policy_class",
        "policy_kwargs",
        "observation_space",
        "action_space",
        "rollout_buffer_class",
        "learning_rate",
        "lr_schedule",
        "clip_range",
        "_last_obs",
        "_last_episode_starts",
        "ep_info_buffer",
        "ep_success_buffer",
    }
)

_ACTIVATIONS = {
    "<class 'torch.nn.modules.activation.ReLU'>": "relu",
    "<class 'torch.nn.modules.activation.Tanh'>": "tanh",
}
# The module of the runs' own policy class (PrivilegedCriticPolicy), as a model file records
# it: today's, and the one models saved before the training folders were laid out recorded.
OWN_POLICY_MODULES = ("sixtysix_training.sb3.policy", "sixtysix_training.sb3_policy")
_POLICY_MODULES = ("sb3_contrib.common.maskable.policies", *OWN_POLICY_MODULES)
_BUFFER_MODULE = "sb3_contrib.common.maskable.buffers"
_ACTION_SPACES = (
    "<class 'gymnasium.spaces.discrete.Discrete'>",  # the training games'
    "<class 'sixtysix_env.env.core.ActionSpace'>",  # SixtySix-v0's
)


class ModelFileError(ValueError):
    """A model.zip this loader will not read, and why."""


def _zero(_progress_remaining: float) -> float:
    return 0.0


def read_data_record(path: str) -> dict[str, Any]:
    """The JSON ``data`` record of an SB3 model zip, read as text (nothing unpickled), after
    the file (a regular file, of bounded size) and its zip directory (few members, each of
    bounded size) are checked (:func:`sixtysix_env.policy.sb3.read_model_record`)."""
    try:
        return read_model_record(path, str(path))
    except SB3ModelError as e:
        raise ModelFileError(str(e)) from None


def serialized_entries(data: dict[str, Any]) -> set[str]:
    """The names of the record's cloudpickled entries."""
    return {k for k, v in data.items() if isinstance(v, dict) and ":serialized:" in v}


def _readable(data: dict[str, Any], key: str) -> dict[str, Any]:
    entry = data.get(key)
    return entry if isinstance(entry, dict) else {}


def _net_arch(value: Any, path: str) -> dict[str, list[int]]:
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], dict):
        value = value[0]  # SB3 < 1.8 wrote [dict(pi=..., vf=...)]
    if isinstance(value, list):
        value = {"pi": value, "vf": value}
    ok = isinstance(value, dict) and set(value) == {"pi", "vf"}
    ok = ok and all(
        isinstance(v, list) and all(type(n) is int and 0 < n <= 65536 for n in v)
        for v in value.values()
    )
    if not ok:
        raise ModelFileError(
            f"{path}: policy_kwargs.net_arch {value!r} is not a list of layer sizes"
        )
    return {"pi": list(value["pi"]), "vf": list(value["vf"])}


def _spaces(data: dict[str, Any], path: str) -> tuple[Any, Any, bool]:
    """(observation space, action space, whether the observation is the env's Dict)."""
    import gymnasium
    from gymnasium import spaces

    from sixtysix_env.game.actions import NUM_ACTIONS
    from sixtysix_env.policy.observation import OBS_SIZE

    from ..common.learning import PRIV_SIZE

    obs = _readable(data, "observation_space")
    kind = obs.get(":type:")
    if kind == "<class 'gymnasium.spaces.box.Box'>":
        shape = obs.get("_shape")
        if shape not in ([OBS_SIZE], [OBS_SIZE + PRIV_SIZE]):
            raise ModelFileError(
                f"{path}: observation shape {shape!r}; this version trains on "
                f"[{OBS_SIZE}] or [{OBS_SIZE + PRIV_SIZE}] (with the hidden cards)"
            )
        obs_space: Any = spaces.Box(0.0, 1.0, (shape[0],), np.float32)
        is_dict = False
    elif kind == "<class 'gymnasium.spaces.dict.Dict'>":
        import sixtysix_env  # noqa: F401  registers SixtySix-v0

        env = gymnasium.make("SixtySix-v0")
        obs_space, act_space = env.observation_space, env.action_space
        is_dict = True
    else:
        raise ModelFileError(
            f"{path}: observation space of type {kind!r} is not one this version builds"
        )
    act = _readable(data, "action_space")
    if act.get(":type:") not in _ACTION_SPACES or str(act.get("n")) != str(NUM_ACTIONS):
        raise ModelFileError(f"{path}: the action space is not Discrete({NUM_ACTIONS})")
    return obs_space, act_space if is_dict else spaces.Discrete(NUM_ACTIONS), is_dict


def _policy_kwargs(kwargs: dict[str, Any], path: str) -> dict[str, Any]:
    """The policy's keyword arguments from the readable part of its record."""
    import torch

    extra = set(kwargs) - {
        ":type:", ":serialized:", "net_arch", "activation_fn", "actor_dim", "actor_symmetry",
    }  # fmt: skip
    if extra:
        raise ModelFileError(
            f"{path}: policy_kwargs has {sorted(extra)}, which this version never sets"
        )
    policy_kwargs: dict[str, Any] = {}  # what is absent takes the policy's defaults
    if "activation_fn" in kwargs:
        if kwargs["activation_fn"] not in _ACTIVATIONS:
            raise ModelFileError(
                f"{path}: activation {kwargs['activation_fn']!r}; this version builds ReLU or Tanh"
            )
        name = _ACTIVATIONS[kwargs["activation_fn"]]
        policy_kwargs["activation_fn"] = {"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}[name]
    if "net_arch" in kwargs:
        policy_kwargs["net_arch"] = _net_arch(kwargs["net_arch"], path)
    return policy_kwargs


def _privileged_policy(
    kwargs: dict[str, Any], is_dict: bool, path: str
) -> tuple[Any, dict[str, Any]]:
    """The privileged-critic policy class, and the arguments only it takes: its actor's
    input size (the observation's) and the actor's symmetry."""
    from sixtysix_env.policy.observation import OBS_SIZE

    from .policy import PrivilegedCriticPolicy

    if kwargs.get("actor_dim") != OBS_SIZE or is_dict:
        raise ModelFileError(f"{path}: a privileged critic's actor must read {OBS_SIZE} features")
    from ..common.equivariant import ACTOR_SYMMETRIES

    symmetry = kwargs.get("actor_symmetry")
    if symmetry is not None and symmetry not in ACTOR_SYMMETRIES:
        raise ModelFileError(
            f"{path}: actor_symmetry {symmetry!r}; this version builds "
            f"{', '.join(map(repr, ACTOR_SYMMETRIES))} or none"
        )
    return PrivilegedCriticPolicy, {"actor_dim": OBS_SIZE, "actor_symmetry": symmetry}


def _rebuilt(data: dict[str, Any], path: str) -> dict[str, Any]:
    """The objects that stand in for the record's serialized entries."""
    from sb3_contrib.common.maskable.policies import (
        MaskableActorCriticPolicy,
        MaskableMultiInputActorCriticPolicy,
    )

    obs_space, act_space, is_dict = _spaces(data, path)
    kwargs = _readable(data, "policy_kwargs")
    policy_kwargs = _policy_kwargs(kwargs, path)
    module = _readable(data, "policy_class").get("__module__")
    if module not in _POLICY_MODULES:
        raise ModelFileError(
            f"{path}: policy class from module {module!r}; expected one of {_POLICY_MODULES}"
        )
    policy_class: Any
    if module in OWN_POLICY_MODULES:
        policy_class, own_kwargs = _privileged_policy(kwargs, is_dict, path)
        policy_kwargs.update(own_kwargs)
    else:
        if "actor_dim" in kwargs or "actor_symmetry" in kwargs:
            raise ModelFileError(
                f"{path}: actor_dim or actor_symmetry is set for a policy class that has none"
            )
        policy_class = MaskableMultiInputActorCriticPolicy if is_dict else MaskableActorCriticPolicy
    buffer = _readable(data, "rollout_buffer_class").get("__module__", _BUFFER_MODULE)
    if buffer != _BUFFER_MODULE:
        raise ModelFileError(f"{path}: rollout buffer class from module {buffer!r}")
    return {
        "policy_class": policy_class,
        "policy_kwargs": policy_kwargs,
        "observation_space": obs_space,
        "action_space": act_space,
        "rollout_buffer_class": None,  # MaskablePPO picks its own for the observation space
        # Never used as loaded: a resume sets them again from the run's config
        # (ppo_settings); export and distillation do not train.
        "learning_rate": 0.0,
        "lr_schedule": _zero,
        "clip_range": _zero,
        # Reset when the model next trains.
        "_last_obs": None,
        "_last_episode_starts": None,
        "ep_info_buffer": None,
        "ep_success_buffer": None,
    }


def load_model(path: str, **kwargs: Any) -> Any:
    """``MaskablePPO.load(path, device="cpu", **kwargs)`` with every pickled entry rebuilt.

    Raises :class:`ModelFileError` for a file with a serialized entry this
    version does not rebuild, whose readable parts it does not build, or that fails to
    load (damaged weights, a record that does not fit them), naming the file.
    """
    with _opened(path) as f:
        custom = _checked(f, path)  # before SB3 is imported: a refusal costs nothing
        from sb3_contrib import MaskablePPO

        f.seek(0)
        try:  # the file checked, still open: what is put at its path since is never read
            return MaskablePPO.load(f, device="cpu", custom_objects=custom, **kwargs)
        except (KeyboardInterrupt, MemoryError):
            raise
        except Exception as e:  # torch and SB3 raise many kinds for a damaged or forged file
            raise ModelFileError(
                f"{path}: cannot be loaded as a run's model ({type(e).__name__}: {e})"
            ) from None


def _int_field(data: dict[str, Any], key: str, path: str, default: int = 1) -> int:
    value = data.get(key, default)
    if type(value) is not int or value < 1:
        raise ModelFileError(f"{path}: {key} {value!r} is not a positive integer")
    return value


def check_bounds(data: dict[str, Any], path: str) -> None:
    """Refuse a record that asks for more than a run here ever builds: its networks' layers
    and parameters, and its rollout's size (:data:`MAX_NET_LAYERS`, :data:`MAX_NET_PARAMETERS`,
    :data:`MAX_ROLLOUT`); and steps (``num_timesteps``) that are not a count."""
    from sixtysix_env.game.actions import NUM_ACTIONS
    from sixtysix_env.policy.observation import OBS_SIZE

    from ..common.learning import PRIV_SIZE

    kwargs = _readable(data, "policy_kwargs")
    if "net_arch" in kwargs:
        arch = _net_arch(kwargs["net_arch"], path)
        n_in = OBS_SIZE + max(PRIV_SIZE, NUM_ACTIONS)
        for part, sizes in arch.items():
            widths = [n_in, *sizes, NUM_ACTIONS]
            params = sum(a * b + b for a, b in zip(widths, widths[1:]))
            if len(sizes) > MAX_NET_LAYERS or params > MAX_NET_PARAMETERS:
                raise ModelFileError(
                    f"{path}: net_arch {part} has {len(sizes)} layers and about {params:,} "
                    f"parameters; a model here has at most {MAX_NET_LAYERS} layers and "
                    f"{MAX_NET_PARAMETERS:,} parameters per network"
                )
    steps = data.get("num_timesteps", 0)
    if type(steps) is not int or not 0 <= steps <= MAX_STEPS:
        raise ModelFileError(f"{path}: num_timesteps {steps!r:.40} is not a whole number of "
                             f"steps from 0 to {MAX_STEPS:,}")
    rollout = _int_field(data, "n_steps", path) * _int_field(data, "n_envs", path)
    if rollout > MAX_ROLLOUT:
        raise ModelFileError(
            f"{path}: n_steps x n_envs is {rollout:,} transitions per rollout; at most "
            f"{MAX_ROLLOUT:,} are built here"
        )
    for key in ("batch_size", "n_epochs"):
        if _int_field(data, key, path) > MAX_ROLLOUT:
            raise ModelFileError(f"{path}: {key} {data[key]} is over {MAX_ROLLOUT:,}")


def _opened(path: str) -> IO[bytes]:
    """The model file, open (a regular file of bounded size; a FIFO cannot block)."""
    try:
        return open_model_file(path, str(path))
    except SB3ModelError as e:
        raise ModelFileError(str(e)) from None


def check_model(path: str) -> dict[str, Any]:
    """Refuse (:class:`ModelFileError`) a model.zip :func:`load_model` would not load;
    else the objects that stand in for its serialized entries."""
    with _opened(path) as f:
        return _checked(f, path)


def _checked(f: IO[bytes], path: str) -> dict[str, Any]:
    """:func:`check_model` on the open file ``f``: its directory, record and weights."""
    try:
        with zipfile.ZipFile(f) as zf:
            check_members(zf, str(path))
            data = data_record(zf, str(path))
            check_bounds(data, path)
            _check_serialized(data, path)
            _check_weights(zf, path)
            custom = _rebuilt(data, path)  # imports SB3: after every check of the file
    except SB3ModelError as e:
        raise ModelFileError(str(e)) from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, zlib.error) as e:
        raise ModelFileError(f"{path} is not a readable zip file ({e})") from None
    return custom


def _check_weights(zf: zipfile.ZipFile, path: str) -> None:
    """Only the members SB3 writes (:data:`MEMBERS`), its version short, and each ``.pth``
    a torch file of few dense tensors of at most :data:`MAX_NET_PARAMETERS` elements each
    (read without unpickling; its size bounded by :func:`check_members`)."""
    names = zf.namelist()
    other = sorted(set(names) - MEMBERS)
    if other:
        raise ModelFileError(
            f"{path}: members {other[:5]} are not ones SB3 writes; a run's model.zip holds "
            f"{', '.join(sorted(MEMBERS))}"
        )
    if "_stable_baselines3_version" in names:
        size = zf.getinfo("_stable_baselines3_version").file_size
        if size > MAX_VERSION_BYTES:
            raise ModelFileError(f"{path}: its _stable_baselines3_version is {size} bytes; at "
                                 f"most {MAX_VERSION_BYTES}")
    for name in sorted(n for n in names if n.endswith(".pth")):
        read_torch_file(zf.read(name), f"{path}: {name}", ModelFileError,
                        max_elements=MAX_NET_PARAMETERS)


def _check_serialized(data: dict[str, Any], path: str) -> None:
    """Refuse a serialized entry that :func:`_rebuilt` does not rebuild."""
    unknown = serialized_entries(data) - REBUILT
    if unknown:
        raise ModelFileError(
            f"{path}: refusing to load: the serialized (pickled) entries {sorted(unknown)} are not "
            f"ones a training run writes ({', '.join(sorted(REBUILT))}); run folders are loaded "
            "without unpickling anything"
        )
