"""What the torch examples share: the state dict saved with ``torch.save``, its linear
layers, and those layers written as a numpy policy file."""

from __future__ import annotations

import os

import torch


def linear_layers(state: dict[str, torch.Tensor]) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """The (weight, bias) pairs of an MLP's state dict, input layer first."""
    weights = [k for k in state if k.endswith(".weight")]
    return [(state[k], state[k[: -len("weight")] + "bias"]) for k in weights]


def load_state(path: str, what: str, saved: str) -> dict[str, torch.Tensor]:
    """The state dict at ``path``; where there is no file, the error says how to save
    ``what`` (the object ``saved``)."""
    if not os.path.isfile(path):
        raise ValueError(
            f"no file {path!r}; save {what} with "
            f"torch.save({saved}.state_dict(), {path!r}) (docs/own-agent.md)"
        )
    return torch.load(path, map_location="cpu", weights_only=True)  # tensors only: no pickle


def write_policy_file(state: dict[str, torch.Tensor], out: str, activation: str,
                      name: str, algorithm: str) -> None:
    """The MLP of ``state`` written as the numpy policy file ``out`` (``.npz``)."""
    from sixtysix_env.policy import PolicyNetwork, save_policy

    layers = [(w.numpy().T, b.numpy()) for w, b in linear_layers(state)]  # torch: (out, in)
    network = PolicyNetwork([w for w, _ in layers], [b for _, b in layers], activation)
    save_policy(out, network, {"name": name, "training": {"algorithm": algorithm}})
