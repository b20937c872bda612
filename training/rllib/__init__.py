"""The Ray RLlib training backend: ``sixtysix train --backend rllib --config configs/rllib-tiny.yaml``.

Same job as the SB3 path (self-play against an opponent league, paired-deal
evaluation, TensorBoard, resumable run folders, a numpy policy file at the
end), run by RLlib's PPO on the PettingZoo environment so it scales from
one process to a Ray cluster. Its options are the RLlib section of
:mod:`sixtysix_training.config`. Modules: :mod:`.league` (opponents through the
policy mapping), :mod:`.modules` (the opponents' RLModules), :mod:`.weights`
(RLlib module -> numpy policy), :mod:`.bc` (behaviour cloning's interface for
RLlib's module), :mod:`.callbacks`, :mod:`.train` (the loop) and :mod:`.export`. Guide: ``docs/rllib.md``. Needs the ``[rllib]`` extra.
"""
