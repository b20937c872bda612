"""A tampered run model is refused before anything is built from it:
layers, parameters, rollout size, members and member sizes bounded, only regular files
read, every failure a ModelFileError naming the file and the bound."""

from __future__ import annotations

import json
import os
import zipfile

import pytest
from _torch_files import Tensor, torch_file

from sixtysix_env.policy.sb3 import MAX_MEMBER_BYTES, MAX_MODEL_TOTAL_BYTES
from sixtysix_training.sb3.model_file import (
    MAX_NET_LAYERS,
    MAX_ROLLOUT,
    ModelFileError,
    check_bounds,
    check_model,
    load_model,
    read_data_record,
)

_DATA = {
    "policy_class": {":type:": "<class 'abc.ABCMeta'>", ":serialized:": "x",
                     "__module__": "sb3_contrib.common.maskable.policies"},
    "observation_space": {":type:": "<class 'gymnasium.spaces.box.Box'>", ":serialized:": "x",
                          "_shape": [349]},
    "action_space": {":type:": "<class 'gymnasium.spaces.discrete.Discrete'>",
                     ":serialized:": "x", "n": "34"},
    "n_steps": 128, "n_envs": 4, "batch_size": 64, "n_epochs": 4,
}


def _zip(path, data=None, members=None) -> str:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("data", json.dumps(_DATA if data is None else data))
        for name, raw in (members or {}).items():
            zf.writestr(name, raw)
    return str(path)


def test_a_plain_record_passes_the_bounds(tmp_path):
    path = _zip(tmp_path / "m.zip")
    assert read_data_record(path) == _DATA
    check_bounds(_DATA, path)  # raises nothing (building the policy is SB3's, slow-lane work)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"policy_kwargs": {"net_arch": [4096] * 300}}, f"at most {MAX_NET_LAYERS} layers"),
        ({"policy_kwargs": {"net_arch": [65536, 65536]}}, "parameters per network"),
        ({"n_steps": 10**9}, f"at most {MAX_ROLLOUT:,}"),
        ({"n_envs": 10**7}, "transitions per rollout"),
        ({"n_steps": -5}, "n_steps -5 is not a positive integer"),
        ({"n_steps": "many"}, "is not a positive integer"),
        ({"batch_size": 10**12}, "batch_size"),
        # A resumed run seeds its games from it: Gymnasium's traceback for a negative seed.
        ({"num_timesteps": -5}, "num_timesteps -5 is not a whole number of steps"),
        ({"num_timesteps": "many"}, "num_timesteps 'many' is not a whole number"),
    ],
)
def test_a_record_asking_for_too_much_is_refused_before_anything_is_built(tmp_path, change,
                                                                          message):
    data = {**_DATA, **change}
    path = _zip(tmp_path / "m.zip", data)
    with pytest.raises(ModelFileError, match=message) as e:
        load_model(path)
    assert path in str(e.value)


def test_a_member_declaring_a_gigabyte_is_refused_unread(tmp_path):
    path = tmp_path / "m.zip"
    _zip(path, members={"policy.pth": b"\0" * 1024})
    raw = bytearray(path.read_bytes())
    # Declare 1 GiB uncompressed for policy.pth in its central directory entry.
    at = raw.rfind(b"PK\x01\x02")  # the last entry: policy.pth
    raw[at + 24:at + 28] = (1 << 30).to_bytes(4, "little")
    path.write_bytes(bytes(raw))
    with pytest.raises(ModelFileError, match="declares 1073741824 bytes"):
        load_model(str(path))


def test_too_many_members_are_refused(tmp_path):
    path = _zip(tmp_path / "m.zip", members={f"m{i}": b"" for i in range(40)})
    with pytest.raises(ModelFileError, match="members; a model has at most"):
        load_model(path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_or_device_is_refused_without_reading(tmp_path):
    fifo = tmp_path / "model.zip"
    os.mkfifo(fifo)
    with pytest.raises(ModelFileError, match="not a regular file"):
        load_model(str(fifo))
    if os.path.exists("/dev/zero"):
        with pytest.raises(ModelFileError, match="not a regular file"):
            load_model("/dev/zero")


def test_damaged_weights_are_refused_unread_naming_the_file(tmp_path):
    path = _zip(tmp_path / "m.zip", members={"policy.pth": b"not torch at all"})
    with pytest.raises(ModelFileError, match="policy.pth: it is not a torch file") as e:
        load_model(path)
    assert path in str(e.value)


@pytest.mark.slow  # imports SB3 and torch
def test_weights_that_do_not_fit_the_record_are_a_model_file_error_naming_the_file(tmp_path):
    pytest.importorskip("sb3_contrib")
    path = _zip(tmp_path / "m.zip", members={"policy.pth": torch_file({"w": Tensor((3,))})})
    with pytest.raises(ModelFileError, match="cannot be loaded as a run's model") as e:
        load_model(path)
    assert path in str(e.value)


# -- the members: only SB3's, bounded together, each .pth checked unread (issue 71, item 4)


def _declare(path, name: str, size: int) -> None:
    """Declare ``size`` bytes uncompressed for member ``name`` in the zip's central directory."""
    raw = bytearray(path.read_bytes())
    at = raw.find(b"PK\x01\x02")
    while raw[at + 46:at + 46 + int.from_bytes(raw[at + 28:at + 30], "little")] != name.encode():
        at = raw.index(b"PK\x01\x02", at + 4)
    raw[at + 24:at + 28] = size.to_bytes(4, "little")
    path.write_bytes(bytes(raw))


def test_members_sb3_does_not_write_are_refused_unread(tmp_path):
    extra = {f"extra{i}.pth": b"\0" * 64 for i in range(3)}
    path = _zip(tmp_path / "m.zip", members={"policy.pth": torch_file({}), **extra})
    with pytest.raises(ModelFileError, match=r"members \['extra0.pth'.* are not ones SB3 "):
        check_model(path)


def test_members_declaring_over_the_total_are_refused_unread(tmp_path):
    path = tmp_path / "m.zip"
    names = ("policy.pth", "policy.optimizer.pth", "pytorch_variables.pth")
    _zip(path, members={name: b"\0" * 64 for name in names})
    for name in names:  # each under the cap on one member, the three over the total
        _declare(path, name, MAX_MEMBER_BYTES)
    with pytest.raises(ModelFileError, match=f"in all; .* at most {MAX_MODEL_TOTAL_BYTES}"):
        check_model(str(path))


@pytest.mark.parametrize(
    ("name", "tensor", "message"),
    [
        ("policy.pth", Tensor((30000, 30000), numel=1, stride=(0, 0)), "900000000 elements"),
        ("policy.optimizer.pth", Tensor((64, 64), numel=1, stride=(0, 0)), "is not dense"),
        ("pytorch_variables.pth", Tensor((64, 64), stride=(1, 64)), "is not dense"),
    ],
)
def test_a_weight_that_is_not_dense_is_refused_before_sb3_reads_it(tmp_path, name, tensor,
                                                                   message):
    members = {"policy.pth": torch_file({}), name: torch_file({"w": tensor})}
    path = _zip(tmp_path / "m.zip", members=members)
    with pytest.raises(ModelFileError, match=message) as e:
        check_model(path)
    assert f"{path}: {name}" in str(e.value)


def test_a_long_version_member_is_refused(tmp_path):
    path = _zip(tmp_path / "m.zip", members={"_stable_baselines3_version": "2" * 100})
    with pytest.raises(ModelFileError, match="_stable_baselines3_version is 100 bytes"):
        check_model(path)
