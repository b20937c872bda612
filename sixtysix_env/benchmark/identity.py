"""What a benchmarked agent is: the file behind its spec and that file's SHA-256
(:func:`agent_file`; for a bot of the ``schnapsen`` package, the package's name, version
and code), and the recorded summary of a policy file (:func:`recorded_policy`)."""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import os
from pathlib import Path
from typing import Any

from ..agents.registry import FILE_SUFFIXES, SCHNAPSEN_PREFIX, parse_agent_spec
from ..policy.shipped import policy_summary, shipped_policies


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def schnapsen_package() -> dict[str, str] | None:
    """The ``schnapsen`` package's bots as an agent file: ``{"path": "schnapsen 0.0.5",
    "sha256": ...}``, the hash of its Python files' names and bytes (the same for every
    install of one release, wherever it is); None without the package."""
    found = importlib.util.find_spec("schnapsen")
    if found is None or not found.submodule_search_locations:
        return None
    from importlib.metadata import PackageNotFoundError, version

    try:
        release = version("schnapsen")
    except PackageNotFoundError:
        release = "unknown version"
    root = Path(next(iter(found.submodule_search_locations)))
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py"), key=lambda p: p.relative_to(root).as_posix()):
        h.update(path.relative_to(root).as_posix().encode() + b"\0")
        h.update(_sha256(str(path)).encode() + b"\n")
    return {"path": f"schnapsen {release}", "sha256": h.hexdigest()}


def unknown_here(spec: str) -> bool:
    """Whether ``spec`` is a bot of the ``schnapsen`` package and the package is not
    installed here: its file cannot be read (nor its games played), only what was recorded."""
    name, _ = parse_agent_spec(spec)
    return (name.startswith(SCHNAPSEN_PREFIX) and ":" not in name[len(SCHNAPSEN_PREFIX):]
            and schnapsen_package() is None)


def agent_file(spec: str) -> dict[str, str] | None:
    """The file behind an agent spec (policy file, shipped policy, own module) and its hash:
    for the ``schnapsen`` package's own bots (``schnapsen:rdeep``), the package
    (:func:`schnapsen_package`); for a ``Bot`` of your own (``schnapsen:mybots:MyBot``),
    its module's file."""
    name, _ = parse_agent_spec(spec)
    if name.startswith(SCHNAPSEN_PREFIX):
        name = name[len(SCHNAPSEN_PREFIX):]
        if ":" not in name:  # one of the package's bots
            return schnapsen_package()
    shipped = shipped_policies().get(name)
    path: str | None = None
    if shipped is not None:
        path = str(shipped.path)
    elif name.endswith(FILE_SUFFIXES) and os.path.isfile(name):  # a policy file, an SB3 model
        path = name
    elif ":" in name:
        found = importlib.util.find_spec(name.partition(":")[0])
        path = found.origin if found is not None else None
    if not path or not os.path.isfile(path):
        return None
    return {"path": os.path.basename(path) if shipped else path, "sha256": _sha256(path)}


def recorded_policy(file: dict[str, str] | None) -> dict[str, Any] | None:
    """The summary (``policy_summary``) of a benchmarked policy file: the shipped policy of
    that file name, or the file at the recorded path, if its SHA-256 is the recorded one
    (None for a built-in agent, an SB3 model or module, or a file not here or changed
    since)."""
    if not file:
        return None
    path = file["path"]
    shipped = shipped_policies().get(os.path.splitext(os.path.basename(path))[0])
    for candidate in ((str(shipped.path),) if shipped else ()) + (path,):
        if (candidate.endswith(".npz") and os.path.isfile(candidate)
                and _sha256(candidate) == file["sha256"]):
            if file["sha256"] not in _SUMMARIES:  # by content: the same bytes, the same summary
                _SUMMARIES[file["sha256"]] = policy_summary(candidate)
            return copy.deepcopy(_SUMMARIES[file["sha256"]])
    return None


#: The summaries :func:`recorded_policy` read, by the SHA-256 of the file's bytes (each file
#: is hashed again on every call; only reading and checking its network is saved).
_SUMMARIES: dict[str, dict[str, Any]] = {}
