"""What ``sixtysix export`` and ``save_policy`` write is checked before it is put in place
(issue 71, items 6 and 8): a metadata record over the loader's bound, or a file its loader
would refuse for any reason, is refused and leaves nothing behind; an output that is a
folder is refused before any work."""

from __future__ import annotations

import json

import pytest
from _networks import small_network

from sixtysix_env.policy import PolicyFileError, read_policy, save_policy
from sixtysix_env.policy.fileformat import MAX_METADATA_BYTES


def test_a_metadata_record_over_the_loaders_bound_is_refused_and_nothing_is_left(tmp_path):
    path = tmp_path / "out.npz"
    with pytest.raises(PolicyFileError, match=f"would be .* bytes; .* at most "
                                              f"{MAX_METADATA_BYTES} .*nothing was written"):
        save_policy(path, small_network(), {"name": "x", "notes": "v" * (2 << 20)})
    assert list(tmp_path.iterdir()) == []


def test_a_file_its_loader_would_refuse_is_never_put_in_place(tmp_path):
    """A record just under the bound, whose header takes the file's record over it: only
    reading the file back finds it (the loader counts the header)."""
    net = small_network()
    path = tmp_path / "out.npz"
    path.write_bytes(b"the file that was there")
    plain = save_policy(tmp_path / "plain.npz", net, {"notes": ""})
    size = len(json.dumps(plain, sort_keys=True).encode())
    notes = "v" * (MAX_METADATA_BYTES - 8 - size)
    with pytest.raises(PolicyFileError, match=r"out.npz': the file written would not load .*"
                                              r"metadata record declares"):
        save_policy(path, net, {"notes": notes})
    assert path.read_bytes() == b"the file that was there"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.npz", "plain.npz"]
    read_policy(tmp_path / "plain.npz")


def test_export_of_a_folder_output_is_refused_before_any_work(tmp_path, capsys):
    pytest.importorskip("sixtysix_training.export", reason="the training extra")
    from sixtysix_env.cli import main

    (tmp_path / "x.onnx").mkdir()
    (tmp_path / "x.npz").mkdir()
    missing = str(tmp_path / "no-such-model.zip")  # never read: the output is refused first
    assert main(["export", missing, "--format", "onnx", "-o", str(tmp_path / "x.onnx")]) == 2
    assert "x.onnx' is a folder; name the ONNX model's file" in capsys.readouterr().err
    assert main(["export", missing, "-o", str(tmp_path / "x.npz")]) == 2
    assert "x.npz' is a folder; name the policy file" in capsys.readouterr().err


def test_converting_to_a_folder_is_refused_before_any_work(tmp_path):
    from sixtysix_env.policy.onnx import OnnxExportError, convert

    (tmp_path / "x.onnx").mkdir()
    with pytest.raises(OnnxExportError, match="is a folder"):
        convert("no-such-policy", tmp_path / "x.onnx")


@pytest.mark.slow  # reads an SB3 model's weights with torch (about 2 s to import)
def test_export_refuses_what_its_loader_would_and_leaves_nothing(tmp_path, capsys):
    from _torch_files import actor_tensors, sb3_zip, torch_file

    from sixtysix_env.cli import main

    model = sb3_zip(tmp_path / "m.zip", torch_file(actor_tensors()))
    out = tmp_path / "out.npz"
    status = main(["export", model, "-o", str(out), "--eval-deals", "0", "--name",
                   "n" * (2 << 20)])
    assert status == 1
    assert f"at most {MAX_METADATA_BYTES}" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.zip"]
