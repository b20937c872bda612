"""The environments and their pages: PettingZoo AEC (:mod:`.sixtysix_v0`, its page and
its class, as PettingZoo's classic games keep them), single-agent Gymnasium (:mod:`.single_agent`) and its vector
entry point on the batched engine (:mod:`.vector`), what they share (:mod:`.core`:
options, spaces, the hand or match being played), the adapters for other libraries
(:mod:`.wrappers`, :mod:`.rllib`, :mod:`.openspiel`) and the Gymnasium id
(:mod:`.registration`). The observation they hand out is :mod:`sixtysix_env.policy.observation`'s.
Nothing heavy is imported here, so the package's registration on import stays cheap.
"""
