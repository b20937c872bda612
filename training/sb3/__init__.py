"""The Stable-Baselines3 backend (MaskablePPO): the trainer (:mod:`.train`, its
``lifecycle.Backend``), the callback that drives the shared lifecycle
(:mod:`.callbacks`), the training games (:mod:`.vec_env`, :mod:`.batched_vec_env`,
:mod:`.learner_games`), the policy with a privileged critic (:mod:`.policy`),
``model.zip`` read without pickle (:mod:`.model_file`) and the export of a run's model
(:mod:`.export`). Only :mod:`sixtysix_training.commands` and
:mod:`sixtysix_training.export` choose it.
"""
