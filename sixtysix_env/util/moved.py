"""Module paths that moved (0.2.0: the folders became the layers), kept as aliases.

Each old path is a small module (``sixtysix_env/engine.py``, ...) that calls
:func:`alias`: the import gives the module at its new path (the same object, so
its classes and functions are the same ones), with one ``DeprecationWarning``
naming the new path. ``python -m`` on an old path runs the new module.
``CHANGELOG.md`` lists the moves; ``tests/project/test_moved_paths.py`` imports
every one.
"""

from __future__ import annotations

import importlib
import runpy
import sys
import warnings

#: Every module path of 0.1.0 that moved, old -> new.
MOVED = {
    "sixtysix_env.actions": "sixtysix_env.game.actions",
    "sixtysix_env.beliefs": "sixtysix_env.agents.beliefs",
    "sixtysix_env.blas": "sixtysix_env.evaluation.blas",
    "sixtysix_env.cards": "sixtysix_env.game.cards",
    "sixtysix_env.checks": "sixtysix_env.util.checks",
    "sixtysix_env.demo": "sixtysix_env.play.demo",
    "sixtysix_env.engine": "sixtysix_env.game.engine",
    "sixtysix_env.env.observation": "sixtysix_env.policy.observation",
    "sixtysix_env.env.sixtysix": "sixtysix_env.env.sixtysix_v0",
    "sixtysix_env.errors": "sixtysix_env.util.errors",
    "sixtysix_env.events": "sixtysix_env.game.events",
    "sixtysix_env.files": "sixtysix_env.util.files",
    "sixtysix_env.game.wording.play": "sixtysix_env.play.wording",
    "sixtysix_env.gym_registration": "sixtysix_env.env.registration",
    "sixtysix_env.machine": "sixtysix_env.util.machine",
    "sixtysix_env.match": "sixtysix_env.game.match",
    "sixtysix_env.openspiel_game": "sixtysix_env.env.openspiel",
    "sixtysix_env.policy.standings": "sixtysix_env.ranking.standings",
    "sixtysix_env.progress": "sixtysix_env.util.progress",
    "sixtysix_env.render": "sixtysix_env.game.render",
    "sixtysix_env.rules": "sixtysix_env.game.rules",
    "sixtysix_env.shipped": "sixtysix_env.policy.shipped",
    "sixtysix_env.sixtysix_v0": "sixtysix_env.env.sixtysix_v0",
    "sixtysix_env.standings": "sixtysix_env.ranking.standings",
    "sixtysix_env.view": "sixtysix_env.game.view",
    "sixtysix_env.wrappers": "sixtysix_env.env.wrappers",
}


def alias(old: str, run_name: str) -> None:
    """Make the module being imported as ``old`` the module at its new path.

    ``run_name`` is the alias module's ``__name__``: ``"__main__"`` under
    ``python -m``, where the new module is run as the program instead.
    """
    new = MOVED[old]
    # The warning points at the line that imported the old path (warnings skips the
    # import system's frames), or under ``python -m`` at the alias module, which is
    # __main__ then, so that Python's default filters show it.
    warnings.warn(f"{old} moved to {new} in sixtysix 0.2.0: use {new} "
                  f"(the old path is an alias and will be removed)",
                  DeprecationWarning, stacklevel=2 if run_name == "__main__" else 3)
    if run_name == "__main__":
        runpy.run_module(new, run_name="__main__", alter_sys=True)
        return
    sys.modules[old] = importlib.import_module(new)
