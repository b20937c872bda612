"""RLModules of the league's opponents (never trained) and of the learner's variants.

One class covers the three kinds, told apart by the module id:

* ``random``: uniform over the legal actions (the ``action_mask`` key);
* ``heuristic``: the move in the ``heuristic`` key the training environment
  adds (see :mod:`.league`);
* ``snap<i>``: the numpy copy of a frozen learner snapshot that the driver
  pushed into this process (:func:`.league.push`), masked, sampled or argmax
  as the pool says (``snapshot_deterministic``).

They return ``actions`` directly, so RLlib's action sampling is skipped for
them; ``policies_to_train=["learner"]`` keeps them out of the updates.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.models.base import ENCODER_OUT
from ray.rllib.core.models.torch.encoder import TorchMLPEncoder
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

from sixtysix_env.env.rllib import MASK_KEY, OBS_KEY
from sixtysix_env.policy.observation import OBS_SIZE

from .league import _LEAGUE, HINT_KEY


class OpponentModule(TorchRLModule):
    """A league opponent (random, heuristic or a snapshot slot), chosen by ``model_config['kind']``."""

    def setup(self) -> None:
        self.kind = (self.model_config or {}).get("kind", "random")
        self.slot = (self.model_config or {}).get("slot")
        self._rng = np.random.default_rng((self.model_config or {}).get("seed", 0))
        # RLlib's learner builds an optimizer for every module and refuses an empty one;
        # this frozen placeholder is never used or changed.
        self._placeholder = torch.nn.Parameter(torch.zeros(1), requires_grad=False)

    def _forward(self, batch, **kwargs):
        obs = batch[Columns.OBS]
        mask = obs[MASK_KEY].cpu().numpy() > 0
        if self.kind == "heuristic":
            actions = obs[HINT_KEY].cpu().numpy().argmax(-1)
        elif self.kind == "snapshot":
            net = _LEAGUE["networks"].get(self.slot)
            if net is None:
                raise RuntimeError(
                    f"league slot {self.slot!r} was drawn but holds no snapshot in this process"
                )
            # the information set only (a privileged critic's run appends the hidden cards)
            logits = net.logits(obs[OBS_KEY].cpu().numpy()[:, :OBS_SIZE]).astype(np.float64)
            logits = np.where(mask, logits, -np.inf)
            if _LEAGUE["deterministic"]:
                actions = logits.argmax(-1)
            else:
                actions = _sample(np.exp(logits - logits.max(-1, keepdims=True)), self._rng)
        else:
            actions = _sample(mask.astype(np.float64), self._rng)
        return {Columns.ACTIONS: torch.as_tensor(actions, dtype=torch.int64)}

    def _forward_train(self, batch, **kwargs):
        raise NotImplementedError(f"league opponent {self.kind!r} is not trained")


def _sample(weights: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One index per row, drawn in proportion to the row's non-negative weights."""
    cum = np.cumsum(weights, axis=-1)
    u = rng.random(len(cum)) * cum[:, -1]
    a = (cum <= u[:, None]).sum(-1)
    return np.minimum(a, weights.shape[-1] - 1)


#: The ``model_config`` key of the value network's own hidden sizes (``critic_arch``);
#: absent or null: ``fcnet_hiddens``, as RLlib builds it.
CRITIC_KEY = "critic_hiddens"


def _resize_critic(module: ActionMaskingTorchRLModule) -> None:
    """Rebuild the critic's encoder and value head of a learner module with the
    ``critic_hiddens`` of its model config (``critic_arch``); nothing else changes.

    RLlib builds the actor's and the critic's encoders from one config
    (``fcnet_hiddens``). An inference-only copy (an env runner's) has no critic
    encoder, and RLlib drops its value head after setup.
    """
    hiddens = (module.model_config or {}).get(CRITIC_KEY)
    if not hiddens:
        return
    hiddens = [int(n) for n in hiddens]
    critic = module.encoder.critic_encoder
    if critic is not None:  # RLlib's encoder: hidden layers, then an output layer as wide
        # as the last size, with the same activation
        module.encoder.critic_encoder = TorchMLPEncoder(
            dataclasses.replace(
                critic.config, hidden_layer_dims=hiddens[:-1], output_layer_dim=hiddens[-1]
            )
        )
    module.vf = dataclasses.replace(module.catalog.vf_head_config, input_dims=[hiddens[-1]]).build(
        framework="torch"
    )


class LearnerModule(ActionMaskingTorchRLModule):
    """RLlib's action-masking PPO module, its critic sized by ``critic_arch`` (a plain run's
    learner when the critic's sizes differ from the actor's)."""

    def setup(self) -> None:
        super().setup()
        _resize_critic(self)


class PrivilegedLearnerModule(ActionMaskingTorchRLModule):
    """RLlib's action-masking PPO module whose actor reads the information set only.

    For ``privileged_critic``: the ``observations`` vector is the information
    set (``OBS_SIZE`` entries) followed by the hidden cards. The critic's
    encoder reads all of it; the actor's encoder is rebuilt for the first
    ``OBS_SIZE`` entries and slices them off, so its weights (same names and
    shapes as a plain learner's) export to the same numpy policy and cannot
    depend on a hidden card.
    """

    def setup(self) -> None:
        super().setup()
        old = self.encoder.actor_encoder
        self.encoder.actor_encoder = _InformationSetEncoder(
            dataclasses.replace(old.config, input_dims=[OBS_SIZE])
        )
        _resize_critic(self)


class _InformationSetEncoder(TorchMLPEncoder):
    """An MLP encoder over the first ``OBS_SIZE`` entries of the observation."""

    def _forward(self, inputs: dict, **kwargs) -> dict:
        return {ENCODER_OUT: self.net(inputs[Columns.OBS][..., :OBS_SIZE])}


class SuitSymmetricLearnerModule(ActionMaskingTorchRLModule):
    """RLlib's action-masking PPO module with the actor of ``actor_symmetry: suits``.

    The actor's encoder and its ``pi`` head are the layers of
    :func:`sixtysix_training.common.equivariant.suit_symmetric_actor` (weights shared
    across the suits), reading the first ``OBS_SIZE`` entries of the
    observation, so with ``privileged_critic`` too the actor sees only the
    information set while the critic's encoder reads everything. The export
    (:func:`.weights.network_from_state`) gathers their dense matrices.
    """

    def setup(self) -> None:
        super().setup()
        from ..common.equivariant import suit_symmetric_actor

        config = self.model_config or {}
        activation = {"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}[config["fcnet_activation"]]
        body, head = suit_symmetric_actor(list(config["fcnet_hiddens"]), activation)
        old = self.encoder.actor_encoder
        self.encoder.actor_encoder = _SuitSymmetricEncoder(
            dataclasses.replace(old.config, input_dims=[OBS_SIZE]), body
        )
        self.pi = head
        _resize_critic(self)


class _SuitSymmetricEncoder(TorchMLPEncoder):
    """The suit-symmetric hidden layers over the first ``OBS_SIZE`` entries of the observation."""

    def __init__(self, config, body: torch.nn.Sequential) -> None:
        super().__init__(config)
        self.net = body

    def _forward(self, inputs: dict, **kwargs) -> dict:
        return {ENCODER_OUT: self.net(inputs[Columns.OBS][..., :OBS_SIZE])}
