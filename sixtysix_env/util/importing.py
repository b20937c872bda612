"""Importing a module a user names on the command line (``module:Class`` agents and bots)."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any


def import_from_here(module_name: str) -> ModuleType:
    """``importlib.import_module``, with the current folder's modules found from the command
    line too, as uvicorn does for module:app (a console script's sys.path starts with its bin
    folder, not the current folder, where ``python -m`` would look)."""
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    return importlib.import_module(module_name)


def import_callable(
    name: str, who: str, error: Callable[[str], Exception], hint: str = ""
) -> tuple[Callable[..., Any], str]:
    """The callable that ``"package.module:Attr"`` names (imported by :func:`import_from_here`)
    and ``Attr``; ``error(message)`` is raised, the message starting with ``who``, where the
    module cannot be imported (``hint`` ends that message) or has no callable ``Attr``."""
    module_name, _, attr = name.partition(":")
    try:
        module = import_from_here(module_name)
    except ImportError as e:
        raise error(f"{who}: cannot import the module {module_name!r} ({e}){hint}") from None
    found = getattr(module, attr, None)
    if not callable(found):
        raise error(f"{who}: the module {module_name!r} has no class {attr!r}")
    return found, attr
