"""A Ray address's port is 1-65535, refused at parse time otherwise.

``sixtysix eval --address 127.0.0.1:99999`` (and ``benchmark``) took the port as it
was: the reachability probe wrapped it (99999 was probed as 34463). Now the address is
checked as the option is parsed (exit status 2, the value and the range named), and
the same check refuses a ``RAY_ADDRESS`` or a library ``evaluate(address=...)``.
"""

from __future__ import annotations

import socket

import pytest

from sixtysix_env import cli
from sixtysix_env.evaluation import evaluate, ray_pool
from sixtysix_env.evaluation.ray_pool import RayAddressError


@pytest.fixture
def no_probe(monkeypatch):
    """Fail the test if any address is probed: a bad one is refused before."""

    def probe(*args, **kwargs):
        raise AssertionError(f"probed {args!r}")

    monkeypatch.setattr(socket, "create_connection", probe)


@pytest.mark.parametrize("command", [["eval", "random", "heuristic"], ["benchmark", "random"]])
@pytest.mark.parametrize(
    "address, port",
    [("127.0.0.1:99999", "99999"), ("ray://head:65536", "65536"), ("head:0", "0")],
)
def test_a_port_out_of_range_is_refused_as_the_option_is_parsed(
    command, address, port, capsys, no_probe
):
    assert cli.main([*command, "--address", address, "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "argument --address" in err  # argparse's: refused while parsing
    assert f"Ray address {address!r} names port {port}" in err
    assert "a port is a number from 1 to 65535" in err


def test_ray_address_from_the_environment_is_checked_too(monkeypatch, capsys, no_probe):
    monkeypatch.setenv("RAY_ADDRESS", "127.0.0.1:99999")
    assert cli.main(["eval", "random", "heuristic", "--deals", "2", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "'127.0.0.1:99999' names port 99999; a port is a number from 1 to 65535" in err


def test_the_library_refuses_the_port_before_probing(no_probe):
    with pytest.raises(RayAddressError, match="names port 70000; a port is a number from 1"):
        evaluate(["random", "heuristic"], deals=2, address="10.0.0.1:70000")


@pytest.mark.parametrize(
    "address", ["auto", "local", "127.0.0.1:1", "head:65535", "ray://head:10001", "[::1]:6379"]
)
def test_good_addresses_pass_the_check(address):
    assert ray_pool.check_address(address) == address


@pytest.mark.parametrize("address", ["nowhere", "head:", ":6379", "head:12a", "head:-1", " "])
def test_malformed_addresses_are_named(address):
    with pytest.raises(RayAddressError, match="is not 'auto'|is empty"):
        ray_pool.check_address(address)


def test_sixtysix_train_refuses_the_port_as_the_option_is_parsed(capsys, no_probe):
    pytest.importorskip("yaml", reason="sixtysix train needs the [train] extra")
    argv = ["train", "--backend", "rllib", "--config", "rllib-tiny", "--address", "head:99999"]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert "argument --address" in err and "names port 99999; a port is a number from 1" in err
