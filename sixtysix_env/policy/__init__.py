"""Exported policies: a trained network that plays with numpy alone.

A policy file is a ``.npz`` archive (read with ``allow_pickle=False``, so a
crafted file can run no code) holding:

==================  ==========================================================
array               meaning
==================  ==========================================================
``metadata``        uint8: UTF-8 JSON record (see below)
``layer{i}_weight`` float32 ``(inputs, outputs)`` of dense layer ``i``
``layer{i}_bias``   float32 ``(outputs,)``
==================  ==========================================================

The layers form a multi-layer perceptron: the observation vector of
:func:`sixtysix_env.policy.observation.encode_view` goes in, every layer but the
last is followed by the activation, and the last one gives one logit per
action id. Illegal actions are masked out before the argmax or the softmax.

A network may declare a **symmetry** (``architecture.symmetry``; file format
version 2, which older loaders refuse instead of playing it wrongly):
``"suits"`` plays the mean of the network's logits over the 24 renamings of
the four suits. The rules treat the suits alike, so a renamed position is the
same game; a network trained on raw suits answers the renamings slightly
differently, and their mean is an ensemble of 24 views of one network (each
logit read back under its own renaming, see
:func:`sixtysix_env.policy.observation.suit_relabelling`). The result gives the
same answer for every renaming of a position. A file without a symmetry is
written as version 1, as before.

A network may read the **action mask** beside the observation
(``architecture.inputs``, ``["action_mask", "observation"]`` or the other
order; file format version 3): a Stable-Baselines3 ``MultiInputPolicy``
concatenates the two (its ``CombinedExtractor``), and ``sixtysix export
my_model.zip`` keeps that input (:mod:`.sb3` reads SB3's model files).

The metadata record holds ``format`` (``"sixtysix-policy"``),
``format_version``, ``obs_version``, ``obs_size``, ``num_actions``,
``rules`` (the rule switches it was trained under), ``architecture``
(``hidden``, ``activation``, ``layers`` as ``[inputs, outputs]`` pairs, and
``symmetry`` where there is one),
``training`` (algorithm, config, steps, wall time), ``evaluation`` (figures
measured at export) and ``sha256``, a checksum over every array but the
metadata. Loading checks all of it and refuses, with a message naming what
was expected, a file for another observation version, a malformed file or
one whose weights no longer match their checksum.

    from sixtysix_env.policy import load_policy
    agent = load_policy("checkpoints/sixtysix-ppo.npz")           # argmax
    agent = load_policy("checkpoints/sixtysix-ppo.npz", deterministic=False)  # sampling

``make_agent("path/to/file.npz")`` (and so ``sixtysix eval``, the
environments' ``opponent=`` and play against a person) loads files this way.

The package in four parts: :mod:`.network` (the layers, numpy only),
:mod:`.agent` (the network as an agent: argmax, sampling, the tie rule),
:mod:`.fileformat` (writing a file, and the hardened reader) and :mod:`.sb3`
(a Stable-Baselines3 model file read as a network; torch reads its weights).
"""

from .agent import PolicyAgent
from .fileformat import (
    FORMAT,
    FORMAT_VERSION,
    FORMAT_VERSIONS,
    INPUTS_FORMAT_VERSION,
    MAX_LAYER_WIDTH,
    MAX_LAYERS,
    MAX_LOGIT_BOUND,
    MAX_MEMBERS,
    MAX_METADATA_BYTES,
    MAX_PARAMETERS,
    METADATA_KEY,
    SYMMETRY_FORMAT_VERSION,
    PolicyFileError,
    check_network,
    load_policy,
    read_policy,
    save_policy,
)
from .network import (
    ACTIVATIONS,
    INPUTS,
    SYMMETRIES,
    SYMMETRY_TIE,
    PolicyNetwork,
    logit_bound,
)

__all__ = [
    "ACTIVATIONS",
    "FORMAT",
    "FORMAT_VERSION",
    "INPUTS",
    "FORMAT_VERSIONS",
    "INPUTS_FORMAT_VERSION",
    "MAX_LAYERS",
    "MAX_LAYER_WIDTH",
    "MAX_LOGIT_BOUND",
    "MAX_MEMBERS",
    "MAX_METADATA_BYTES",
    "MAX_PARAMETERS",
    "METADATA_KEY",
    "SYMMETRIES",
    "SYMMETRY_FORMAT_VERSION",
    "SYMMETRY_TIE",
    "PolicyAgent",
    "PolicyFileError",
    "PolicyNetwork",
    "check_network",
    "load_policy",
    "logit_bound",
    "read_policy",
    "save_policy",
]
