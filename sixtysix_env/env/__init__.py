"""The environments: PettingZoo AEC (``sixtysix_v0``) and single-agent Gymnasium.

Submodules: :mod:`.observation` (the observation encoder), :mod:`.sixtysix`
(the AEC environment), :mod:`.single_agent` (the Gymnasium environment),
:mod:`.registration` (Gymnasium ids). Nothing heavy is imported here, so
importing the registration stays cheap.
"""
