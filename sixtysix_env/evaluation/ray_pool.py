"""Playing an evaluation's chunks as Ray tasks: on a local Ray or spread over a cluster.

``evaluate(..., address="auto")`` (or ``host:port``, ``ray://host:port``,
``local`` for a Ray started inside the command) sends the same chunks the
process pool would play to Ray instead. Each chunk is a task; a worker
builds the agents from their specs once per evaluation and keeps them, as a
pool worker does. The records come back and are summarised in the order of
their deals, so the figures are the same as with one process or a pool.

Ray is imported only here and only when an address is given: ``sixtysix
eval`` without one needs no Ray. Every machine of a cluster needs this
package installed (the tasks import it), and any policy file named by a
path must be at that path on every machine (shipped names work anywhere).
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Callable
from typing import Any

from ..util.errors import SixtySixError


class RayAddressError(SixtySixError, ValueError):
    """A Ray address that is malformed or where no cluster answers."""


#: The address that starts a Ray inside the command (``ray.init()`` with no address).
LOCAL = "local"


#: The ports a Ray address may name (a larger number would be taken modulo 65536: 99999
#: was probed as port 34463).
PORTS = (1, 65535)
#: The forms of a Ray address, for the errors.
FORMS = "'auto', 'host:port', 'ray://host:port' or 'local'"


def check_address(address: str) -> str:
    """``address`` if it is a Ray address a command can use: ``auto``, ``local``,
    ``host:port`` or ``ray://host:port`` with a port from 1 to 65535; else a
    :class:`RayAddressError` naming the value and what is allowed."""
    if not address.strip():
        raise RayAddressError(f"the Ray address is empty; give {FORMS}")
    if address in ("auto", LOCAL):
        return address
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not (port.isascii() and port.isdigit()):
        raise RayAddressError(f"Ray address {address!r} is not {FORMS}")
    low, high = PORTS
    if not low <= int(port) <= high:
        raise RayAddressError(
            f"Ray address {address!r} names port {int(port)}; a port is a number from "
            f"{low} to {high}"
        )
    return address


def ray_address(address: str | None) -> str | None:
    """The address a command was asked for: ``--address``, else the environment's
    ``RAY_ADDRESS``, else None (the library's :func:`~.runner.evaluate` reads no
    environment: a training run's evaluations on a cluster stay in their process).
    Either is checked (:func:`check_address`)."""
    if address is not None:
        return check_address(address)
    env = os.environ.get("RAY_ADDRESS") or None
    return check_address(env) if env is not None else None


def check_reachable(
    address: str,
    timeout: float = 5.0,
    otherwise: str = "give no address to play in local processes",
) -> None:
    """Fail fast (not after Ray's long retries) when nothing listens at ``host:port``;
    the error ends with ``otherwise``, what to do instead. A malformed address or a port
    out of range is refused first (:func:`check_address`)."""
    check_address(address)
    if address in ("auto", LOCAL):
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except OSError as e:
        raise RayAddressError(
            f"cannot reach the Ray cluster at {address!r} ({e}); start its head node with "
            f"`ray start --head`, or {otherwise}"
        ) from None


def _import_ray():
    try:
        import ray
    except ModuleNotFoundError:
        raise RayAddressError(
            "a Ray address was given (--address or RAY_ADDRESS) but Ray is not installed; "
            'install it with pip install "ray>=2.40" (or the [rllib] extra), or give no address'
        ) from None
    return ray


def connect(
    address: str, workers: int, otherwise: str = "give no address to play in local processes"
) -> tuple[Any, bool, str]:
    """(the ray module, whether this call started Ray, a description of where tasks run).

    ``local`` starts a Ray here with ``workers`` CPUs; any other address joins
    that cluster, or fails with an error ending with ``otherwise``.
    """
    check_reachable(address, otherwise=otherwise)
    ray = _import_ray()
    if ray.is_initialized():
        return ray, False, "the Ray already running in this process"
    try:
        if address == LOCAL:
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=True)
            return ray, True, f"a local Ray with {workers} CPUs"
        ray.init(address=address, log_to_driver=True)
    except (ConnectionError, RuntimeError, ValueError) as e:
        raise RayAddressError(
            f"cannot join the Ray cluster at {address!r}: {e}; start one with "
            f"`ray start --head`, or {otherwise}"
        ) from None
    return ray, True, f"the Ray cluster at {address}"


def play_on_ray(
    address: str,
    workers: int,
    play: Callable[[tuple, Any], Any],
    context: tuple,
    tasks: list,
    take: Callable[[Any], None],
) -> None:
    """``take(play((key, *context), task))`` for each task, as Ray tasks.

    At most ``workers`` run at a time (with 1: as many as the cluster has
    CPUs). ``context`` is sent once to the object store, under a ``key``
    new to this call (a worker keeps what it builds from it for the calls
    with the same key). A task's error is raised here as the error itself
    (an illegal action names the agent, as in local processes).
    """
    ray, started, _ = connect(address, workers)
    try:
        if workers <= 1 and address != LOCAL:
            workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
        remote = ray.remote(num_cpus=1, max_retries=0)(play)
        ctx = ray.put((uuid.uuid4().hex, *context))
        pending, queue = [], list(tasks)
        try:
            while queue or pending:
                while queue and len(pending) < workers:
                    pending.append(remote.remote(ctx, queue.pop(0)))
                done, pending = ray.wait(pending, num_returns=1)
                for ref in done:
                    try:
                        take(ray.get(ref))
                    except ray.exceptions.RayTaskError as e:
                        cause = getattr(e, "cause", None)
                        raise (cause if isinstance(cause, BaseException) else e) from None
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)
    finally:
        if started:
            ray.shutdown()
