"""Self-play training (SB3's MaskablePPO or Ray RLlib), behaviour cloning, export of numpy policies.

Needs the ``train`` extra (torch, stable-baselines3, sb3-contrib, pyyaml,
tensorboard, tqdm, rich; ``rllib`` for Ray). The folders are the layers, top to
bottom: the commands here (:mod:`.commands` is ``sixtysix train``, :mod:`.export`
``sixtysix export``, the only two that know both backends; :mod:`.exploit`,
:mod:`.ensemble`), the backends (:mod:`.sb3`, :mod:`.rllib`), what they share
(:mod:`.common`) and the config (:mod:`.config`).
"""
