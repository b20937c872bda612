"""Importing a module a user names on the command line (``module:Class`` agents and bots)."""

from __future__ import annotations

import importlib
import os
import sys
from types import ModuleType


def import_from_here(module_name: str) -> ModuleType:
    """``importlib.import_module``, with the current folder's modules found from the command
    line too, as uvicorn does for module:app (a console script's sys.path starts with its bin
    folder, not the current folder, where ``python -m`` would look)."""
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    return importlib.import_module(module_name)
