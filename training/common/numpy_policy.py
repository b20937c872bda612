"""An SB3 MaskablePPO policy's actor as a numpy network (what a policy file holds)."""

from __future__ import annotations

import numpy as np

from sixtysix_env.policy import PolicyAgent, PolicyNetwork

_ACTIVATION_NAMES = {"ReLU": "relu", "Tanh": "tanh"}


class ExportError(ValueError):
    """A model that cannot be exported (an architecture the numpy policy does not cover)."""


def _is_dense(layer) -> bool:
    """A torch Linear layer, or a layer with tied weights that gives its dense matrix
    (:class:`~sixtysix_training.common.equivariant.SuitSymmetricLinear`)."""
    from torch import nn

    return isinstance(layer, nn.Linear) or callable(getattr(layer, "dense", None))


def _linear(layer) -> tuple[np.ndarray, np.ndarray]:
    """A dense layer's (weight as inputs x outputs, bias), float32."""
    import torch as th

    with th.no_grad():
        weight, bias = layer.dense() if hasattr(layer, "dense") else (layer.weight, layer.bias)
    return (
        weight.detach().cpu().numpy().T.astype(np.float32),
        bias.detach().cpu().numpy().astype(np.float32),
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
        if _is_dense(m):
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
    if not _is_dense(head):
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
    linears = [m for m in policy.mlp_extractor.policy_net if _is_dense(m)]
    linears.append(policy.action_net)
    for i, (layer, w, b) in enumerate(zip(linears, network.weights, network.biases)):
        if not isinstance(layer, nn.Linear) and not _ties_like(layer, w, b):
            raise ExportError(
                f"the model's actor shares its weights across the suits (option "
                f"actor_symmetry), and layer {i} of the policy file does not: start from a "
                "policy trained with the same actor_symmetry, or set actor_symmetry to null"
            )
    with th.no_grad():
        for layer, w, b in zip(linears, network.weights, network.biases):
            if isinstance(layer, nn.Linear):
                layer.weight.copy_(th.tensor(w.T))
                layer.bias.copy_(th.tensor(b))
            else:  # one entry of each block gives its value (_ties_like checked the rest)
                layer.params[layer.weight_index] = th.tensor(w.T)
                layer.params[layer.bias_index] = th.tensor(b)


def _ties_like(layer, w: np.ndarray, b: np.ndarray) -> bool:
    """Whether a dense (inputs x outputs) matrix and bias have the tied layer's pattern:
    every entry of one shared block holds the same value."""
    index = layer.weight_index.cpu().numpy().T
    values = np.concatenate([w.ravel(), b])
    where = np.concatenate([index.ravel(), layer.bias_index.cpu().numpy()])
    n = int(where.max()) + 1
    lo = np.full(n, np.inf)
    hi = np.full(n, -np.inf)
    np.minimum.at(lo, where, values)
    np.maximum.at(hi, where, values)
    seen = np.isfinite(lo)
    return bool(np.all(hi[seen] - lo[seen] <= 1e-6 * (1.0 + np.abs(hi[seen]))))
