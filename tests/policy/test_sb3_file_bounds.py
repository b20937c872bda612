"""An SB3 model file is checked before anything large is built from it (issue 71, item 3):
``policy.pth``'s tensors are read as declared without unpickling (sixtysix_env/policy/
torch_file.py) and must be dense, contiguous, of bounded size and few; the version member is
short; every refusal names the file, never a traceback. The files are written by hand
(tests/_torch_files.py): small files that declare huge shapes, no torch needed."""

from __future__ import annotations

import zipfile

import pytest
from _torch_files import (
    DICT_SPACE,
    Tensor,
    actor_tensors,
    sb3_zip,
    state_dict_pickle,
    torch_file,
)

from sixtysix_env.policy.fileformat import PolicyFileError
from sixtysix_env.policy.sb3 import MAX_VERSION_BYTES, SB3ModelError, read_sb3_model
from sixtysix_env.policy.torch_file import MAX_TENSORS, read_torch_file


def _model(tmp_path, change: dict[str, Tensor] | None = None, **kwargs) -> str:
    tensors = {**actor_tensors(), **(change or {})}
    return sb3_zip(tmp_path / "m.zip", torch_file(tensors), **kwargs)


W0 = "mlp_extractor.policy_net.0.weight"


@pytest.mark.parametrize(
    ("tensor", "message"),
    [
        # The file: 4 bytes stored, 3.6 GB once copied.
        (Tensor((30000, 30000), numel=1, stride=(0, 0)), "has 900000000 elements; at most"),
        # The right shape over one element (stride 0): was read, copied to 12 KB.
        (Tensor((8, 383), numel=1, stride=(0, 0)), "is not dense"),
        (Tensor((8, 383), stride=(1, 8)), "is not dense"),  # a transposed view
        (Tensor((8, 383), numel=8 * 383 + 5, offset=5), "is not dense"),  # an offset view
        (Tensor((8, 383), numel=8 * 383 + 1), "is not dense"),  # a storage larger than it
        (Tensor((10**6, 10**6), numel=10**12, record=b""), "elements; at most"),
        (Tensor((2**62, 2**62), numel=1, stride=(0, 0)), "elements; at most"),
        (Tensor((8, 383), record=b"\0" * 16), "its record holds 16"),
        (Tensor((8, 383), storage="QUInt8Storage"), "QUInt8Storage"),
    ],
)
def test_a_weight_that_is_not_a_dense_tensor_of_bounded_size_is_refused(tmp_path, tensor,
                                                                        message):
    path = _model(tmp_path, {W0: tensor})
    with pytest.raises(SB3ModelError, match=message) as e:
        read_sb3_model(path)
    assert path in str(e.value) and "policy.pth" in str(e.value)


def test_a_sparse_weight_is_refused_before_anything_is_built(tmp_path):
    sparse = (b"X\x01\x00\x00\x00wctorch._utils\n_rebuild_sparse_tensor\n)R")
    path = sb3_zip(tmp_path / "m.zip", torch_file(actor_tensors(), extra=sparse))
    with pytest.raises(SB3ModelError, match="_rebuild_sparse_tensor, which a state dict"):
        read_sb3_model(path)


def test_a_pickle_naming_any_other_callable_runs_nothing(tmp_path):
    marker = tmp_path / "ran"
    code = (b"X\x01\x00\x00\x00xcos\nsystem\n(X" + len(f"touch {marker}").to_bytes(4, "little")
            + f"touch {marker}".encode() + b"tR")
    path = sb3_zip(tmp_path / "m.zip", torch_file(actor_tensors(), extra=code))
    with pytest.raises(SB3ModelError, match="names os.system"):
        read_sb3_model(path)
    assert not marker.exists()


def test_too_many_tensors_are_refused(tmp_path):
    extra = {f"extra.{i}": Tensor((1,)) for i in range(MAX_TENSORS + 1)}
    path = _model(tmp_path, extra)
    with pytest.raises(SB3ModelError, match=f"over {MAX_TENSORS} tensors"):
        read_sb3_model(path)


def test_a_long_version_member_is_refused_unread(tmp_path):
    path = _model(tmp_path, members={"_stable_baselines3_version": "2" * (MAX_VERSION_BYTES + 1)})
    with pytest.raises(SB3ModelError, match=f"at most {MAX_VERSION_BYTES}"):
        read_sb3_model(path)


def test_weights_of_the_wrong_rank_are_refused_from_their_declared_shape(tmp_path):
    path = _model(tmp_path, {"action_net.bias": Tensor((34, 1))})
    with pytest.raises(SB3ModelError, match="not the dense layers"):
        read_sb3_model(path)


def test_a_compressed_record_or_a_malformed_pickle_is_refused():
    raw = torch_file(actor_tensors(), compress=zipfile.ZIP_DEFLATED)
    with pytest.raises(ValueError, match="compressed or encrypted"):
        read_torch_file(raw, "w.pth", ValueError, max_elements=10**6)
    for pickle in (b"\x80\x02}q\x00", state_dict_pickle({})[:-2] + b"t.", b"\x80\x02N]."):
        with pytest.raises(ValueError, match="w.pth: "):
            read_torch_file(torch_file({}, pickle=pickle), "w.pth", ValueError, 10**6)


def test_a_plain_state_dict_is_read_as_declared():
    value, tensors = read_torch_file(torch_file(actor_tensors()), "w.pth", ValueError, 10**6)
    assert [t.shape for t in tensors] == [(8, 383), (8,), (34, 8), (34,)]
    assert value[W0].dtype == "float32" and value[W0].numel == 8 * 383


@pytest.mark.parametrize("policy_class", ["stable_baselines3.common.policies", None, [1]])
def test_export_refuses_a_record_whose_policy_class_is_not_an_object(tmp_path, capsys,
                                                                     policy_class):
    pytest.importorskip("sixtysix_training.export", reason="the training extra")
    from sixtysix_env.cli import main

    data = {"policy_class": policy_class, "observation_space": DICT_SPACE}
    path = _model(tmp_path, data=data)
    out = tmp_path / "out.npz"
    assert main(["export", path, "-o", str(out), "--eval-deals", "0"]) == 1
    err = capsys.readouterr().err
    assert "policy class from module None" in err and path in err
    assert not out.exists()


def test_eval_refuses_the_file_naming_it(tmp_path):
    from sixtysix_env.agents import make_agent

    path = _model(tmp_path, {W0: Tensor((30000, 30000), numel=1, stride=(0, 0))})
    with pytest.raises(PolicyFileError, match="policy.pth"):
        make_agent(path)
