"""Self-play training (MaskablePPO), behaviour cloning and export of numpy policies.

Needs the ``train`` extra (torch, stable-baselines3, sb3-contrib, pyyaml,
tensorboard, tqdm, rich). ``sixtysix train`` and ``sixtysix export`` run
:mod:`sixtysix_training.train` and :mod:`sixtysix_training.export`.
"""
