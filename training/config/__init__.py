"""The training config: one loader and saver (:mod:`.loader`: ``TrainConfig``,
``RLlibConfig``, each key filed into its section), the options (:mod:`.options`:
shared, SB3's section, RLlib's section, each with its documentation), the checks
(:mod:`.checks`) and the bounded YAML reader (:mod:`.yaml_reader`). Both backends
read their config here; nothing here imports a backend.
"""
