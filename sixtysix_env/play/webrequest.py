"""The web server's rules for requests: what a body may hold, which hosts and sites it serves.

Every refusal is an :class:`ApiError` (answered as ``{"error": ...}`` with its
status) raised before the request changes anything.
"""

from __future__ import annotations

import ipaddress
import json
from typing import Any

from flask import request

#: JSON nesting a request may have: ours are flat objects.
MAX_JSON_DEPTH = 8


class ApiError(Exception):
    """A request refused: answered as ``{"error": message, **extra}`` with ``status``."""

    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.extra = extra


# -- reading requests -------------------------------------------------------------


def _json_depth(raw: bytes) -> int:
    """The deepest nesting of ``[``/``{`` outside strings (a bound checked before parsing)."""
    depth = deepest = 0
    in_str = esc = False
    for b in raw:
        if in_str:
            if esc:
                esc = False
            elif b == 0x5C:  # backslash
                esc = True
            elif b == 0x22:
                in_str = False
        elif b == 0x22:
            in_str = True
        elif b in (0x5B, 0x7B):
            depth += 1
            deepest = max(deepest, depth)
        elif b in (0x5D, 0x7D):
            depth -= 1
    return deepest


def request_body() -> dict[str, Any]:
    """The request's JSON object (``{}`` when empty); :class:`ApiError` 400 otherwise."""
    if request.mimetype != "application/json":
        raise ApiError(400, "send the request body as JSON, with Content-Type: application/json")
    raw = request.get_data(cache=True)
    if not raw.strip():
        return {}
    brackets = raw.count(b"[") + raw.count(b"{")  # fast: the scan only when it may matter
    if brackets > MAX_JSON_DEPTH and _json_depth(raw) > MAX_JSON_DEPTH:
        raise ApiError(400, "the request body is nested too deeply: send a flat JSON object")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise ApiError(400, "the request body is not valid JSON") from None
    if not isinstance(data, dict):
        raise ApiError(400, "the request body must be a JSON object")
    return data


def host_name(host: str) -> str:
    """The name in a ``Host`` header, without the port or IPv6 brackets, lower case."""
    h = host.strip().lower()
    if h.startswith("["):
        return h[1:].split("]", 1)[0]
    if h.count(":") == 1:
        h = h.split(":", 1)[0]
    return h.rstrip(".")


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def check_same_site(hosts: set[str]) -> None:
    """Refuse a foreign host name (DNS rebinding) and a cross-site write."""
    name = host_name(request.host)
    if not (name in hosts or _is_ip(name)):
        # DNS rebinding: a foreign page reaching us under its own name.
        raise ApiError(
            400,
            f"this server does not answer to the host name {name!r}; "
            "use localhost or an IP address (or start it with --allow-host NAME)",
        )
    if request.method not in ("GET", "HEAD", "OPTIONS"):
        origin = request.headers.get("Origin")
        if origin is not None and origin != request.host_url.rstrip("/"):
            raise ApiError(403, "requests from other sites are not accepted")
        if request.headers.get("Sec-Fetch-Site", "same-origin") not in ("same-origin", "none"):
            raise ApiError(403, "requests from other sites are not accepted")
