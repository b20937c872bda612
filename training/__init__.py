"""Self-play training (MaskablePPO), behaviour cloning and export of numpy policies.

Needs the ``train`` extra (torch, stable-baselines3, sb3-contrib, pyyaml,
tensorboard, tqdm, rich). ``sixtysix train`` and ``sixtysix export`` run
:mod:`sixtysix_training.commands` (either backend: SB3 in ``train``, RLlib in
``rllib``) and :mod:`sixtysix_training.export`.
"""
