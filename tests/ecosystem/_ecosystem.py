"""Importing an optional RL library in the ecosystem tests.

Locally a missing library skips its test, naming the extra to install. Where
``.ci/run`` installed the extras (it sets ``SIXTYSIX_REQUIRE_EXTRAS``), and in
CI (``CI`` set), it fails: a library that did not install must be reported,
not skipped silently. A library CI runs in its own
virtual environment (its pins conflict with the dev environment) is named by
``own_venv``: its tests run only where that variable is set.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest


def _required() -> bool:
    return bool(os.environ.get("SIXTYSIX_REQUIRE_EXTRAS") or os.environ.get("CI"))


def require(module: str, extra: str, own_venv: str | None = None) -> ModuleType:
    """Import ``module`` for a test that needs the ``extra`` of sixtysix."""
    if own_venv is not None and _required() and not os.environ.get(own_venv):
        pytest.skip(
            f"{module} runs in its own virtual environment in CI ({own_venv}=1)",
            allow_module_level=True,
        )
    try:
        return importlib.import_module(module)
    except ImportError as e:
        if _required():
            raise ImportError(
                f"{module} is not installed in CI; install sixtysix[{extra}] ({e})"
            ) from e
        pytest.skip(
            f"needs {module}: pip install 'sixtysix[{extra}]' ({e})", allow_module_level=True
        )


@pytest.fixture(scope="module")
def one_torch_thread():
    """Torch on one thread for the module: the networks here are tiny, and on a
    busy machine torch's thread pool made each step ~30x slower."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
