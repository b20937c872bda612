"""The environments: PettingZoo AEC (``sixtysix_v0``) and single-agent Gymnasium.

Submodules: :mod:`.observation` (the observation encoder, built from player
views only), :mod:`.core` (options, spaces, the hand or match being played),
:mod:`.sixtysix` (the AEC environment), :mod:`.single_agent` (the Gymnasium
environment), :mod:`.registration` (Gymnasium ids). Nothing heavy is imported
here, so the package's registration on import stays cheap.
"""
