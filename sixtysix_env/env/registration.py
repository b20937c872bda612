"""Gymnasium ids of the environments (imported by the package's ``__init__``)."""

from __future__ import annotations

ENV_ID = "SixtySix-v0"


def register_envs() -> None:
    """Register ``SixtySix-v0`` with Gymnasium, once; a no-op without Gymnasium."""
    try:
        from gymnasium.envs.registration import register, registry
    except ImportError:  # the rules engine alone still imports
        return
    if ENV_ID not in registry:
        register(
            id=ENV_ID,
            entry_point="sixtysix_env.env.single_agent:SixtySixEnv",
            # gymnasium.make_vec(ENV_ID, num_envs=N, vectorization_mode="vector_entry_point"):
            # the batched engine (needs numba, the [fast] extra).
            vector_entry_point="sixtysix_env.env.vector:make_vector_env",
        )
