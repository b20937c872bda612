"""The SB3 policy of a run with a privileged critic (``privileged_critic: true``) or a
suit-symmetric actor (``actor_symmetry: suits``).

The training observation is the information set (``OBS_SIZE`` entries)
followed by the hidden cards (:data:`sixtysix_training.common.learning.PRIV_SIZE`).
:class:`PrivilegedCriticPolicy` is sb3-contrib's maskable actor-critic with
one change: its actor reads only the first ``actor_dim`` entries, its critic
all of them. The actor's layers are exactly a plain run's, so the export
(``numpy_policy.network_from_policy``) and ``init_policy`` work unchanged,
and an exported policy cannot depend on a hidden card.

With ``actor_symmetry="suits"`` the actor's layers and its action head are
:class:`~sixtysix_training.common.equivariant.SuitSymmetricLinear` layers (weights
shared across the suits); the export reads their dense matrices, so the
policy file is an ordinary one.

:func:`set_critic_precision` (the ``critic_precision`` option) makes the critic
compute its products in bfloat16 under torch's autocast, where the CPU does
them natively: the value network's [512, 512] products were most of what was
left of a PPO update after the factored actor (issue 50).
"""

from __future__ import annotations

import torch as th
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

from sixtysix_env.policy.observation import OBS_SIZE

from ..common.equivariant import ACTOR_SYMMETRIES, suit_symmetric_actor
from ..config.options import PRECISIONS


class PrivilegedMlpExtractor(nn.Module):
    """SB3's ``MlpExtractor`` whose actor reads the first ``actor_dim`` features only."""

    def __init__(
        self,
        feature_dim: int,
        actor_dim: int,
        net_arch: dict,
        activation_fn: type[nn.Module],
        actor_symmetry: str | None = None,
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

        pi = list(net_arch.get("pi", []))
        self.action_head: nn.Module | None = None
        if actor_symmetry is None:
            self.policy_net, self.latent_dim_pi = mlp(actor_dim, pi)
        else:
            if actor_symmetry not in ACTOR_SYMMETRIES or actor_dim != OBS_SIZE:
                raise ValueError(
                    f"actor_symmetry {actor_symmetry!r} with actor_dim {actor_dim}: a "
                    f"symmetric actor is one of {ACTOR_SYMMETRIES} and reads the "
                    f"{OBS_SIZE} observation entries"
                )
            self.policy_net, self.action_head = suit_symmetric_actor(pi, activation_fn)
            self.latent_dim_pi = self.action_head.in_features
        self.value_net, self.latent_dim_vf = mlp(feature_dim, list(net_arch.get("vf", [])))
        # The number format of the critic's products (set_critic_precision); not saved
        # with the model: a run sets it from its config.
        self.critic_dtype = th.float32

    def forward(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        return self.policy_net(features[..., : self.actor_dim])

    def forward_critic(self, features: th.Tensor) -> th.Tensor:
        if self.critic_dtype == th.float32:
            return self.value_net(features)
        # float32 weights and gradients, products in critic_dtype; the latent goes on to
        # SB3's value head (and the loss) in float32
        with th.autocast(features.device.type, dtype=self.critic_dtype):
            return self.value_net(features).float()


class PrivilegedCriticPolicy(MaskableActorCriticPolicy):
    """A maskable actor-critic whose actor sees the information set, its critic everything."""

    def __init__(self, *args, actor_dim: int, actor_symmetry: str | None = None, **kwargs) -> None:
        self.actor_dim = int(actor_dim)  # read by _build_mlp_extractor inside __init__
        self.actor_symmetry = actor_symmetry
        super().__init__(*args, **kwargs)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        head = self.mlp_extractor.action_head
        if head is not None:
            # The symmetric head replaces SB3's Linear one (which the optimizer built
            # above still lists): move it over and rebuild the optimizer on the
            # parameters the policy now has.
            self.mlp_extractor.action_head = None
            self.action_net = head
            self.optimizer = self.optimizer_class(
                self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
            )

    def _build_mlp_extractor(self) -> None:
        arch = self.net_arch
        if not isinstance(arch, dict):
            arch = {"pi": list(arch or []), "vf": list(arch or [])}
        self.mlp_extractor = PrivilegedMlpExtractor(
            self.features_dim, self.actor_dim, arch, self.activation_fn, self.actor_symmetry
        ).to(self.device)

    def _get_constructor_parameters(self) -> dict:
        data = super()._get_constructor_parameters()
        data["actor_dim"] = self.actor_dim
        data["actor_symmetry"] = self.actor_symmetry
        return data


def native_bfloat16() -> bool:
    """Whether this CPU multiplies bfloat16 numbers in hardware (AVX512-BF16 or AMX), where
    torch's bfloat16 products run about 4x its float32 ones (1024 x 512 by 512 x 512 on 2
    cores of an AMD EPYC: 0.57 against 2.6 ms); elsewhere they are emulated and slower."""
    probes = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")  # torch.cpu, private
    return any(bool(getattr(th.cpu, name, lambda: False)()) for name in probes)


def resolve_precision(precision: str) -> str:
    """The number format ('float32' or 'bfloat16') a ``critic_precision`` or
    ``pool_precision`` value means on this machine ('auto': bfloat16 where
    :func:`native_bfloat16`)."""
    if precision not in PRECISIONS:
        raise ValueError(
            f"precision {precision!r}; allowed values: {', '.join(map(repr, PRECISIONS))}"
        )
    if precision == "auto":
        return "bfloat16" if native_bfloat16() else "float32"
    return precision


def set_critic_precision(policy: MaskableActorCriticPolicy, precision: str) -> str:
    """Make ``policy``'s critic compute in ``precision`` (a ``critic_precision`` value);
    returns the format it computes in now. Needs a :class:`PrivilegedCriticPolicy` unless
    that is float32."""
    precision = resolve_precision(precision)
    extractor = policy.mlp_extractor
    if isinstance(extractor, PrivilegedMlpExtractor):
        extractor.critic_dtype = getattr(th, precision)
    elif precision != "float32":
        raise ValueError(
            f"critic precision {precision!r} needs the runs' own policy "
            f"(PrivilegedCriticPolicy), not {type(policy).__name__}"
        )
    return precision


def critic_precision(policy: MaskableActorCriticPolicy) -> str:
    """The number format ``policy``'s critic computes in ('float32' or 'bfloat16')."""
    dtype = getattr(policy.mlp_extractor, "critic_dtype", th.float32)
    return str(dtype).removeprefix("torch.")


#: The logit sb3-contrib's maskable distribution gives an illegal action.
MASKED_LOGIT = -1e8


class SB3ActorCritic:
    """An SB3 maskable actor-critic (any of this package's runs) behind
    :class:`sixtysix_training.common.bc.ActorCritic`, computed as ``evaluate_actions`` computes it:
    one pass of the features extractor and the two latent networks."""

    def __init__(self, policy: MaskableActorCriticPolicy) -> None:
        self.policy = policy

    def logits_and_values(self, obs, masks) -> tuple[th.Tensor, th.Tensor]:
        p = self.policy
        obs = th.as_tensor(obs, device=p.device)
        features = p.extract_features(obs)
        if p.share_features_extractor:
            latent_pi, latent_vf = p.mlp_extractor(features)
        else:
            pi_features, vf_features = features
            latent_pi = p.mlp_extractor.forward_actor(pi_features)
            latent_vf = p.mlp_extractor.forward_critic(vf_features)
        logits = p.action_net(latent_pi)
        legal = th.as_tensor(masks, device=p.device).bool()
        masked = th.where(legal, logits, th.full_like(logits, MASKED_LOGIT))
        return masked, p.value_net(latent_vf).flatten()

    def parameters(self, critic_only: bool = False) -> list:
        p = self.policy
        if not critic_only:
            return list(p.parameters())
        # The critic: its hidden layers and its output.
        return list(p.mlp_extractor.value_net.parameters()) + list(p.value_net.parameters())

    def train(self, mode: bool) -> None:
        self.policy.set_training_mode(mode)
