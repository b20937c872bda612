"""The Gymnasium id ``SixtySix-v0``, registered without importing Gymnasium (or numpy).

``import sixtysix_env`` must stay light (the rules engine is standard library
only), yet ``gymnasium.make("SixtySix-v0")`` must work after it, as the README
shows. Gymnasium (1.x) has no plugin entry points, so the registration is
done at the moment Gymnasium is imported:

* Gymnasium already imported (``import gymnasium, sixtysix_env``): register now.
* Not yet: a one-shot finder on ``sys.meta_path`` lets the ordinary finders
  locate Gymnasium and registers right after Gymnasium's own module has run,
  so ``import sixtysix_env; import gymnasium`` works too.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType
from typing import Any

GYMNASIUM = "gymnasium"
ENV_ID = "SixtySix-v0"


def register_envs() -> None:
    """Register ``SixtySix-v0`` with Gymnasium, once; a no-op without Gymnasium."""
    try:
        from gymnasium.envs.registration import register, registry
    except ImportError:  # the rules engine alone still imports
        return
    if ENV_ID not in registry:
        register(
            id=ENV_ID,
            entry_point="sixtysix_env.env.single_agent:SixtySixEnv",
            # gymnasium.make_vec(ENV_ID, num_envs=N, vectorization_mode="vector_entry_point"):
            # the batched engine (needs numba, the [fast] extra).
            vector_entry_point="sixtysix_env.env.vector:make_vector_env",
        )


class _RegisterAfter(importlib.abc.Loader):
    """Gymnasium's own loader, then the registration."""

    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        register_envs()

    def __getattr__(self, name: str) -> Any:  # get_resource_reader, get_source, ...
        return getattr(self._loader, name)


class _GymnasiumWatch(importlib.abc.MetaPathFinder):
    """Finds nothing itself: wraps the loader of the spec the other finders give Gymnasium."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None):
        if fullname != GYMNASIUM:
            return None
        uninstall()  # one shot; also keeps the lookup below from finding this finder again
        spec = importlib.util.find_spec(fullname)
        if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _RegisterAfter(spec.loader)
        return spec


_WATCH = _GymnasiumWatch()


def uninstall() -> None:
    if _WATCH in sys.meta_path:
        sys.meta_path.remove(_WATCH)


def install() -> None:
    """Register now if Gymnasium is loaded, else when it is (idempotent)."""
    if GYMNASIUM in sys.modules:
        register_envs()
    elif _WATCH not in sys.meta_path:
        sys.meta_path.insert(0, _WATCH)
