"""An SB3 MaskablePPO policy's actor as a numpy network (what a policy file holds)."""

from __future__ import annotations

import numpy as np

from sixtysix_env.policy import PolicyAgent, PolicyNetwork

_ACTIVATION_NAMES = {"ReLU": "relu", "Tanh": "tanh"}


class ExportError(ValueError):
    """A model that cannot be exported (an architecture the numpy policy does not cover)."""


def _linear(layer) -> tuple[np.ndarray, np.ndarray]:
    """A torch Linear layer's (weight as inputs x outputs, bias), float32."""
    return (
        layer.weight.detach().cpu().numpy().T.astype(np.float32),
        layer.bias.detach().cpu().numpy().astype(np.float32),
    )


def network_from_policy(policy) -> PolicyNetwork:
    """The actor of an SB3 ``MaskableActorCriticPolicy`` over a flat Box observation, in numpy."""
    from torch import nn

    extractor = getattr(policy, "pi_features_extractor", None) or policy.features_extractor
    if not isinstance(extractor, nn.Flatten) and type(extractor).__name__ != "FlattenExtractor":
        raise ExportError(
            "only a flat observation (FlattenExtractor) can be exported, "
            f"not {type(extractor).__name__}"
        )
    weights, biases, activation = [], [], None
    for m in policy.mlp_extractor.policy_net:
        if isinstance(m, nn.Linear):
            w, b = _linear(m)
            weights.append(w)
            biases.append(b)
        else:
            name = _ACTIVATION_NAMES.get(type(m).__name__)
            if name is None:
                raise ExportError(f"layer {type(m).__name__} has no numpy counterpart (ReLU, Tanh)")
            if activation not in (None, name):
                raise ExportError("mixed activations cannot be exported")
            activation = name
    head = policy.action_net
    if not isinstance(head, nn.Linear):
        raise ExportError(f"the action head must be a Linear layer, not {type(head).__name__}")
    w, b = _linear(head)
    weights.append(w)
    biases.append(b)
    return PolicyNetwork(weights, biases, activation or "relu")


def policy_agent(model_or_policy, name: str = "learner", deterministic: bool = True) -> PolicyAgent:
    """A numpy agent playing the model's current policy (for evaluation and snapshots)."""
    policy = getattr(model_or_policy, "policy", model_or_policy)
    return PolicyAgent(
        network_from_policy(policy), {"name": name}, deterministic=deterministic, name=name
    )


def load_into_policy(policy, network: PolicyNetwork) -> None:
    """Copy a numpy network into the actor of an SB3 maskable policy (``network_from_policy``'s inverse).

    The actor's layer sizes and activation must be the network's; anything
    else is an :class:`ExportError` naming both, and nothing is copied.
    """
    import torch as th
    from torch import nn

    have = network_from_policy(policy)
    if have.layers != network.layers or have.activation != network.activation:
        raise ExportError(
            f"the policy file's network is {network.layers} {network.activation}, the model's "
            f"actor is {have.layers} {have.activation}; set net_arch and activation to match"
        )
    linears = [m for m in policy.mlp_extractor.policy_net if isinstance(m, nn.Linear)]
    linears.append(policy.action_net)
    with th.no_grad():
        for layer, w, b in zip(linears, network.weights, network.biases):
            layer.weight.copy_(th.tensor(w.T))
            layer.bias.copy_(th.tensor(b))
