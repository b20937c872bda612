"""Crafted policy files are refused promptly, with bounded memory,
always as PolicyFileError naming the problem."""

from __future__ import annotations

import io
import json
import os
import threading
import tracemalloc
import zipfile
import zlib

import numpy as np
import pytest
from _networks import small_network

from sixtysix_env.game.actions import NUM_ACTIONS
from sixtysix_env.policy import PolicyFileError, PolicyNetwork, read_policy, save_policy
from sixtysix_env.policy.observation import OBS_SIZE


@pytest.fixture
def good(tmp_path) -> str:
    path = str(tmp_path / "good.npz")
    save_policy(path, small_network(), {"name": "t"})
    return path


def members(path: str) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as z:
        return {i.filename: z.read(i) for i in z.infolist()}


def write_zip(path, items: dict[str, bytes], compression=zipfile.ZIP_DEFLATED) -> str:
    with zipfile.ZipFile(path, "w", compression) as z:
        for name, data in items.items():
            z.writestr(name, data)
    return str(path)


def npy(arr: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, arr, allow_pickle=False)
    return buf.getvalue()


def npy_header_only(descr: str, shape: tuple) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buf, {"descr": descr, "fortran_order": False, "shape": shape}
    )
    return buf.getvalue()


def with_meta(path, good, meta_bytes: bytes) -> str:
    items = members(good)
    items["metadata.npy"] = npy(np.frombuffer(meta_bytes, np.uint8))
    return write_zip(path, items)


def refused(path, match: str, max_peak_mb: float = 32.0) -> str:
    tracemalloc.start()
    try:
        with pytest.raises(PolicyFileError, match=match) as ei:
            read_policy(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < max_peak_mb * 2**20, f"peak {peak / 2**20:.1f} MiB"
    return str(ei.value)


def test_a_good_file_still_loads(good):
    net, meta = read_policy(good)
    assert net.layers == [[OBS_SIZE, 8], [8, NUM_ACTIONS]] and meta["name"] == "t"


@pytest.mark.slow  # over a second: the full run, not the fast lane
def test_zip_bomb_member_is_refused_before_decompressing(tmp_path, good):
    items = members(good)
    # 256 MiB of zeros after a header that claims the right shape: ~250 KiB deflated.
    w = items["layer0_weight.npy"]
    bomb_path = tmp_path / "bomb.npz"
    with zipfile.ZipFile(bomb_path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in items.items():
            if name != "layer0_weight.npy":
                z.writestr(name, data)
        with z.open("layer0_weight.npy", "w", force_zip64=True) as f:
            f.write(w[:128])
            zeros = bytes(1 << 20)
            for _ in range(256):
                f.write(zeros)
    assert os.path.getsize(bomb_path) < 2 << 20
    refused(bomb_path, "layer0_weight.*declares")


def test_metadata_declaring_a_huge_member_is_refused(tmp_path, good):
    items = members(good)
    # a metadata header declaring 4 TB of uint8: refused from the header alone
    items["metadata.npy"] = npy_header_only("|u1", (4 << 40,)) + b"{}"
    refused(write_zip(tmp_path / "huge.npz", items), "metadata")


def test_a_huge_declared_architecture_is_refused(tmp_path, good):
    meta = json.loads(members(good)["metadata.npy"][128:].decode())
    meta["architecture"]["layers"] = [[OBS_SIZE, 10**9], [10**9, NUM_ACTIONS]]
    msg = refused(with_meta(tmp_path / "arch.npz", good, json.dumps(meta).encode()),
                  "out of bounds")
    assert "layers" in msg


def test_weight_header_declaring_a_huge_shape_is_refused(tmp_path, good):
    items = members(good)
    items["layer0_weight.npy"] = npy_header_only("<f4", (1 << 20, 1 << 20))
    refused(write_zip(tmp_path / "shape.npz", items), "layer0_weight")


def test_a_lone_npy_is_named(tmp_path):
    path = tmp_path / "lone.npz"
    with open(path, "wb") as f:
        np.save(f, np.zeros(3, np.float32))
    msg = refused(path, "single .npy array")
    assert "allow_pickle" not in msg


def test_not_a_zip_gives_no_pickle_advice(tmp_path):
    path = tmp_path / "junk.npz"
    path.write_bytes(b"\x00" * 100)
    msg = refused(path, "not a zip archive")
    assert "allow_pickle" not in msg


def test_deeply_nested_metadata(tmp_path, good):
    deep = b"[" * 200_000 + b"]" * 200_000
    refused(with_meta(tmp_path / "deep.npz", good, deep), "not valid JSON")


def test_a_5000_digit_integer_in_the_metadata(tmp_path, good):
    refused(with_meta(tmp_path / "digits.npz", good, b'{"obs_version": ' + b"9" * 5000 + b"}"),
            "not valid JSON")


def patch_zip(path: str, central_offset: int, local_offset: int, value: int) -> None:
    """Set a 2-byte field of every local header and central directory entry."""
    data = bytearray(open(path, "rb").read())
    for sig, off in ((b"PK\x03\x04", local_offset), (b"PK\x01\x02", central_offset)):
        i = data.find(sig)
        while i >= 0:
            data[i + off : i + off + 2] = value.to_bytes(2, "little")
            i = data.find(sig, i + 4)
    open(path, "wb").write(bytes(data))


def test_an_encrypted_member(tmp_path, good):
    path = write_zip(tmp_path / "enc.npz", members(good), zipfile.ZIP_STORED)
    patch_zip(path, central_offset=8, local_offset=6, value=0x1)
    refused(path, "encrypted")


@pytest.mark.parametrize("method", [99, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
def test_an_unknown_or_foreign_compression(tmp_path, good, method):
    path = str(tmp_path / "comp.npz")
    if method == 99:
        write_zip(path, members(good), zipfile.ZIP_STORED)
        patch_zip(path, central_offset=10, local_offset=8, value=99)
    else:
        write_zip(path, members(good), method)
    refused(path, "compression method")


def test_extra_or_missing_members_are_named_before_reading(tmp_path, good):
    items = members(good)
    items["evil/../x.npy"] = b"x"
    refused(write_zip(tmp_path / "extra.npz", items), "unexpected member")
    items = members(good)
    del items["layer1_bias.npy"]
    refused(write_zip(tmp_path / "missing.npz", items), "'layer1_bias' is missing")


def test_a_corrupt_member_is_a_policy_file_error(tmp_path, good):
    path = write_zip(tmp_path / "crc.npz", members(good), zipfile.ZIP_STORED)
    data = bytearray(open(path, "rb").read())
    i = data.find(b"layer0_weight.npy") + 400
    data[i] ^= 0xFF  # flips a weight byte: the CRC no longer matches
    open(path, "wb").write(bytes(data))
    refused(path, "readable|checksum|CRC")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_refused_without_blocking(tmp_path):
    path = str(tmp_path / "pipe.npz")
    os.mkfifo(path)
    out: list = []
    t = threading.Thread(target=lambda: out.append(_try(path)), daemon=True)
    t.start()
    t.join(timeout=20)
    if t.is_alive():  # unblock the reader so the test run can end
        with open(path, "wb"):
            pass
        t.join(timeout=5)
        pytest.fail("read_policy blocked on a FIFO")
    assert isinstance(out[0], PolicyFileError) and "not a regular file" in str(out[0])


def _try(path):
    try:
        read_policy(path)
    except Exception as e:  # noqa: BLE001 - the test inspects the type
        return e
    return None


def test_zlib_is_what_numpy_writes(good):
    # the loader accepts exactly what save_policy writes (deflated members)
    with zipfile.ZipFile(good) as z:
        assert {i.compress_type for i in z.infolist()} == {zipfile.ZIP_DEFLATED}
    assert zlib  # used by the loader for corrupt streams


def test_a_folder_or_an_oversized_file_is_refused_before_opening(tmp_path):
    folder = tmp_path / "dir.npz"
    folder.mkdir()
    refused(folder, "not a regular file")
    big = tmp_path / "big.npz"
    with open(big, "wb") as f:
        f.truncate(1 << 30)  # sparse: 1 GiB on paper, nothing on disk
    refused(big, "at most")


def test_finite_weights_whose_outputs_overflow_are_refused(tmp_path, monkeypatch):
    """Finite weights, NaN probabilities (290 illegal moves of 400)."""
    import sixtysix_env.policy.fileformat as policy

    net = small_network()
    huge = PolicyNetwork([w * 1e18 for w in net.weights], net.biases, "relu")
    assert all(np.isfinite(w).all() for w in huge.weights)
    with pytest.raises(PolicyFileError, match="overflow"):
        save_policy(tmp_path / "refused.npz", huge)  # nothing is written that would not load
    assert not (tmp_path / "refused.npz").exists()
    monkeypatch.setattr(policy, "check_network", lambda network, where="": None)
    monkeypatch.setattr(policy, "read_policy", lambda path: None)  # the writer's read-back
    path = tmp_path / "huge.npz"
    save_policy(path, huge)  # as an older writer (or a hand) could
    monkeypatch.undo()
    message = refused(path, "overflow")
    assert "logits up to" in message
    assert policy.logit_bound(net.weights, net.biases) < 1e4  # a plain network is far below


def test_a_huge_central_directory_is_refused_from_the_end_record(tmp_path, monkeypatch):
    """zipfile parses the whole central directory before anything can
    count its members (2.9 million entries: 137 s, 1 GB). The end record is read first."""
    import sixtysix_env.policy.fileformat as policy

    path = tmp_path / "many.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for i in range(5000):
            z.writestr(f"m{i}.npy", b"")

    def no_zipfile(*args, **kwargs):
        raise AssertionError("the archive was parsed before its member count was checked")

    monkeypatch.setattr(policy.zipfile, "ZipFile", no_zipfile)
    message = refused(path, "central directory declares 5000 members")
    assert f"at most {policy.MAX_MEMBERS} members" in message
