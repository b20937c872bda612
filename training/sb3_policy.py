"""The SB3 policy of a run with a privileged critic (``privileged_critic: true``).

The training observation is the information set (``OBS_SIZE`` entries)
followed by the hidden cards (:data:`sixtysix_training.learning.PRIV_SIZE`).
:class:`PrivilegedCriticPolicy` is sb3-contrib's maskable actor-critic with
one change: its actor reads only the first ``actor_dim`` entries, its critic
all of them. The actor's layers are exactly a plain run's, so the export
(``numpy_policy.network_from_policy``) and ``init_policy`` work unchanged,
and an exported policy cannot depend on a hidden card.
"""

from __future__ import annotations

import torch as th
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn


class PrivilegedMlpExtractor(nn.Module):
    """SB3's ``MlpExtractor`` whose actor reads the first ``actor_dim`` features only."""

    def __init__(
        self, feature_dim: int, actor_dim: int, net_arch: dict, activation_fn: type[nn.Module]
    ) -> None:
        super().__init__()
        if not 0 < actor_dim <= feature_dim:
            raise ValueError(f"actor_dim {actor_dim} must be in 1..{feature_dim} (the features)")
        self.actor_dim = actor_dim

        def mlp(n_in: int, sizes: list[int]) -> tuple[nn.Sequential, int]:
            layers: list[nn.Module] = []
            for n in sizes:
                layers += [nn.Linear(n_in, n), activation_fn()]
                n_in = n
            return nn.Sequential(*layers), n_in

        self.policy_net, self.latent_dim_pi = mlp(actor_dim, list(net_arch.get("pi", [])))
        self.value_net, self.latent_dim_vf = mlp(feature_dim, list(net_arch.get("vf", [])))

    def forward(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        return self.policy_net(features[..., : self.actor_dim])

    def forward_critic(self, features: th.Tensor) -> th.Tensor:
        return self.value_net(features)


class PrivilegedCriticPolicy(MaskableActorCriticPolicy):
    """A maskable actor-critic whose actor sees the information set, its critic everything."""

    def __init__(self, *args, actor_dim: int, **kwargs) -> None:
        self.actor_dim = int(actor_dim)  # read by _build_mlp_extractor inside __init__
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        arch = self.net_arch
        if not isinstance(arch, dict):
            arch = {"pi": list(arch or []), "vf": list(arch or [])}
        self.mlp_extractor = PrivilegedMlpExtractor(
            self.features_dim, self.actor_dim, arch, self.activation_fn
        ).to(self.device)

    def _get_constructor_parameters(self) -> dict:
        data = super()._get_constructor_parameters()
        data["actor_dim"] = self.actor_dim
        return data
