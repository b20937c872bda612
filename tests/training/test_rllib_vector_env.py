"""RLlib's single-agent path takes SixtySix-v0's vector entry point (docs/rllib.md).

Needs Ray RLlib (the ``[rllib]`` extra; CI runs it in its own virtual environment,
``.ci/run``) and is skipped without it.
"""

from __future__ import annotations

import pytest


@pytest.mark.slow  # starts Ray
def test_ppo_trains_on_the_vector_entry_point():
    pytest.importorskip("ray.rllib")
    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.connectors.env_to_module import FlattenObservations

    import sixtysix_env  # noqa: F401  registers SixtySix-v0
    from sixtysix_env.env.vector import SixtySixVectorEnv

    config = (
        PPOConfig()
        .environment("SixtySix-v0",
                     env_config={"opponent": "heuristic", "illegal_action": "lose"})
        .env_runners(num_env_runners=0, num_envs_per_env_runner=8,
                     gym_env_vectorize_mode="vector_entry_point",
                     env_to_module_connector=lambda env, spaces=None, device=None:
                     FlattenObservations())
        .training(train_batch_size_per_learner=256, minibatch_size=64, num_epochs=1)
    )
    algo = config.build_algo()
    try:
        env = algo.env_runner.env
        assert isinstance(env.unwrapped, SixtySixVectorEnv) and env.num_envs == 8
        result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 256
    finally:
        algo.stop()
        ray.shutdown()
