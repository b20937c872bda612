"""The benchmark's file names (an agent's figures, the ladder's ratings) and the refusal
to write over a file that holds something else (:func:`check_replaceable`)."""

from __future__ import annotations

import os
from typing import Any

from ..agents.registry import FILE_SUFFIXES
from ..ranking.standings import MAX_RESULT_BYTES, BenchmarkFileError, read_json
from .protocol import Protocol
from .schema import FORMAT, NAME, shown


def file_stem(spec: str) -> str:
    """A file name for an agent spec: its letters, digits, '.', '-' and '_' (others as '_')."""
    base = os.path.basename(spec[:-4]) if spec.endswith(FILE_SUFFIXES) else spec
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in base) or "agent"


def result_file_name(spec: str, protocol: Protocol) -> str:
    """The file ``--out-dir`` writes an agent's figures to: ``NAME.json``, and
    ``NAME-quick.json`` for ``--quick`` (so a quick look never replaces a full run). Two
    specs can still have one name (``a/policy.npz``, ``b/policy.npz``):
    :func:`check_replaceable` refuses to write one over the other."""
    return f"{file_stem(spec)}{'-quick' if protocol.quick else ''}.json"


def ladder_file_name(protocol: Protocol) -> str:
    """The file ``--ladder`` writes the ladder's ratings to: ``PROTOCOL-ladder.json``, and
    ``PROTOCOL-ladder-quick.json`` for ``--quick``."""
    return f"{protocol.name}-ladder{'-quick' if protocol.quick else ''}.json"


def _held(data: Any) -> str:
    """What a JSON file holds, in words (the refusal to write over it says it)."""
    if isinstance(data, dict):
        protocol = data.get("protocol")
        protocol = protocol if NAME.test(protocol) and len(protocol) < 60 else shown(protocol)
        quick = " --quick" if data.get("quick") is True else ""
    if isinstance(data, dict) and data.get("format") == FORMAT:
        return f"the figures of {shown(data.get('agent'))} ({protocol}{quick})"
    if isinstance(data, dict) and "ratings" in data and "format" not in data:
        return f"the ladder's ratings of {protocol}{quick}"
    if isinstance(data, dict) and isinstance(data.get("format"), str):
        return f"a file of format {shown(data['format'])}"
    return "a JSON file that is not a benchmark's"


def check_replaceable(path: str, protocol: Protocol, agent: str | None = None) -> None:
    """Refuse (:class:`BenchmarkFileError`) to write over ``path`` what it does not already
    hold: ``agent``'s figures under ``protocol`` in the same mode (``agent`` None: the
    ladder's ratings of ``protocol``, the same mode). Nothing there: nothing to refuse. A
    benchmark file is so replaced only by a run of the same spec, protocol and mode."""
    if not os.path.lexists(path):
        return
    mode = f"{protocol.name}{' --quick' if protocol.quick else ''}"
    new = (f"the ladder's ratings of {mode}" if agent is None
           else f"the figures of {agent!r} ({mode})")
    try:
        data = read_json(path, "a benchmark file", MAX_RESULT_BYTES)
    except BenchmarkFileError as e:
        raise BenchmarkFileError(f"{e}: {new} would be written over it; write them "
                                 "elsewhere, or move that file away first") from None
    same = (isinstance(data, dict) and data.get("protocol") == protocol.name
            and data.get("quick") is protocol.quick)
    if same and (data.get("format") == FORMAT and data.get("agent") == agent if agent
                 else "format" not in data and "ratings" in data):
        return
    raise BenchmarkFileError(
        f"{path} holds {_held(data)}; {new} would replace it: write them elsewhere "
        "(another --out-dir, or --json PATH), or move that file away first")
