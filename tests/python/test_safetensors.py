"""Tests of safetensors checkpoints (adept.io, adept.save/load): round trips, interop with the
`safetensors` package both ways, rejection of corrupt files and atomic replacement.

Run: PYTHONPATH=build/<preset>/python /usr/bin/python3 -m pytest tests/python/test_safetensors.py
(scripts/setup.sh installs `safetensors` for /usr/bin/python3).
"""
import os
import pathlib
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch
from safetensors import safe_open
import safetensors.numpy
import safetensors.torch

import adept

DTYPES = ["float64", "float32", "float16", "bfloat16", "int64", "int32", "uint8", "bool"]


def torch_random(name, shape, seed):
    """Seeded random torch tensor of dtype `name` (signed values for the signed types)."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g, dtype=torch.float64) * 40
    if name == "bool":
        return x > 0
    if name == "uint8":
        x = x.abs()
    return x.to(getattr(torch, name))


def A(t):
    """The adept tensor with the values, shape and dtype of torch tensor `t`."""
    name = str(t.dtype).split(".")[1]
    return adept.tensor(t.double().numpy(), dtype=getattr(adept, name)).reshape(tuple(t.shape))


def T(a):
    """The torch tensor with the values, shape and dtype of adept tensor `a`."""
    name = str(a.dtype).split(".")[1]
    return torch.from_numpy(a.to(adept.float64).numpy().copy()).to(getattr(torch, name)).reshape(tuple(a.shape))


def assert_same(a, t):
    """adept tensor `a` equals torch tensor `t` exactly: shape, dtype and values."""
    assert isinstance(a, adept.Tensor)
    assert tuple(a.shape) == tuple(t.shape)
    assert str(a.dtype) == str(t.dtype).replace("torch.", "adept.")
    assert torch.equal(T(a), t)


def sample_state(seed=0):
    """{name: (adept tensor, equal torch tensor)}: every dtype, 0-d, zero-size and non-contiguous."""
    out = {}
    for i, name in enumerate(DTYPES):
        t = torch_random(name, (3, 4), seed + i)
        out[f"w_{name}"] = (A(t), t)
    t = torch_random("float32", (), seed + 20)
    out["scalar"] = (A(t), t)
    t = torch.zeros(0, 3, dtype=torch.float16)
    out["empty"] = (A(t), t)
    t = torch_random("float64", (4, 5), seed + 21)
    out["transposed"] = (A(t).t(), t.t())
    t = torch_random("int32", (6, 5), seed + 22)
    out["sliced"] = (A(t)[1::2, 1:], t[1::2, 1:])
    assert not out["transposed"][0].is_contiguous() and not out["sliced"][0].is_contiguous()
    return out


def files_in(d):
    return sorted(os.listdir(d))


# ---------------------------------------------------------------- round trips

def test_round_trip_every_dtype_and_layout_with_metadata(tmp_path):
    state = sample_state()
    meta = {"epoch": "3", "config": '{"lr": 0.01}', "ünï": "✓"}
    path = tmp_path / "ckpt.safetensors"
    adept.io.save_file({k: a for k, (a, _) in state.items()}, path, metadata=meta)
    loaded = adept.io.load_file(path)
    assert list(loaded) == list(state), "tensors come back in the order saved"
    for k, (_, t) in state.items():
        assert loaded[k].is_contiguous()
        assert_same(loaded[k], t)
    assert adept.io.load_metadata(str(path)) == meta
    assert files_in(tmp_path) == ["ckpt.safetensors"]


def test_save_load_state_dict(tmp_path):
    state = {k: a for k, (a, _) in sample_state(5).items()}
    state["w_float32"].requires_grad_()
    path = tmp_path / "model.safetensors"
    adept.save(state, path, metadata={"step": "100"})
    for loaded in (adept.load(path), adept.load(str(path), map_location="cpu"),
                   adept.load(path, map_location=adept.device("cpu"))):
        assert list(loaded) == list(state)
        for k, a in state.items():
            assert not loaded[k].requires_grad
            assert_same(loaded[k], T(a.detach()))
    assert adept.io.load_metadata(path) == {"step": "100"}
    adept.save({}, path)
    assert adept.load(path) == {} and adept.io.load_metadata(path) == {}


def test_argument_type_errors(tmp_path):
    path = tmp_path / "x.safetensors"
    with pytest.raises(TypeError, match="state dict"):
        adept.save([adept.ones(2)], path)
    with pytest.raises(TypeError, match="value of 'b' must be an adept.Tensor"):
        adept.io.save_file({"a": adept.ones(2), "b": torch.ones(2)}, path)
    with pytest.raises(TypeError, match="keys must be str"):
        adept.io.save_file({1: adept.ones(2)}, path)
    with pytest.raises(TypeError, match="value of 'k' must be str"):
        adept.io.save_file({"a": adept.ones(2)}, path, metadata={"k": 1})
    assert files_in(tmp_path) == []


# ---------------------------------------------------------------- interop with `safetensors`

def test_reads_files_of_safetensors_numpy(tmp_path):
    rng = np.random.default_rng(0)
    arrays = {
        "f64": rng.standard_normal((2, 3)),
        "f32": rng.standard_normal((4,)).astype(np.float32),
        "f16": rng.standard_normal((3, 1, 2)).astype(np.float16),
        "i64": rng.integers(-2**40, 2**40, (5,)),
        "i32": rng.integers(-1000, 1000, (2, 2)).astype(np.int32),
        "u8": rng.integers(0, 256, (7,)).astype(np.uint8),
        "b": rng.random((3, 3)) > 0.5,
        "s": np.array(2.5, dtype=np.float32),
        "z": np.zeros((0, 4), dtype=np.float64),
    }
    path = tmp_path / "np.safetensors"
    safetensors.numpy.save_file(arrays, str(path), metadata={"who": "numpy"})
    loaded = adept.io.load_file(path)
    assert sorted(loaded) == sorted(arrays)
    for k, x in arrays.items():
        a = loaded[k]
        assert a.numpy().dtype == x.dtype, k
        np.testing.assert_array_equal(a.numpy(), x)
    assert adept.io.load_metadata(path) == {"who": "numpy"}


def test_reads_files_of_safetensors_torch(tmp_path):
    tensors = {k: t.contiguous() for k, (_, t) in sample_state(7).items()}
    path = tmp_path / "pt.safetensors"
    safetensors.torch.save_file(tensors, str(path), metadata={"format": "pt"})
    loaded = adept.io.load_file(path)
    assert sorted(loaded) == sorted(tensors)
    for k, t in tensors.items():
        assert_same(loaded[k], t)
    assert adept.io.load_metadata(path) == {"format": "pt"}


def test_safetensors_package_reads_our_files(tmp_path):
    state = sample_state(11)
    meta = {"epoch": "12", "rng": "[1, 2]"}
    path = tmp_path / "ours.safetensors"
    adept.io.save_file({k: a for k, (a, _) in state.items()}, path, metadata=meta)
    loaded = safetensors.torch.load_file(str(path))
    assert sorted(loaded) == sorted(state)
    for k, (_, t) in state.items():
        assert loaded[k].dtype == t.dtype and torch.equal(loaded[k], t), k
    with safe_open(str(path), framework="pt") as f:
        assert f.metadata() == meta
        assert sorted(f.keys()) == sorted(state)
        assert torch.equal(f.get_tensor("w_bfloat16"), state["w_bfloat16"][1])
    with safe_open(str(path), framework="np") as f:  # NumPy has no bfloat16: read one tensor
        np.testing.assert_array_equal(f.get_tensor("w_uint8"), state["w_uint8"][1].numpy())
        np.testing.assert_array_equal(f.get_tensor("transposed"), state["transposed"][1].numpy())


def test_unsupported_dtype_of_safetensors_file_names_file_and_tensor(tmp_path):
    path = tmp_path / "i16.safetensors"
    safetensors.numpy.save_file({"ok": np.ones(2, np.float32), "lut": np.arange(4, dtype=np.int16)}, str(path))
    with pytest.raises(adept.DtypeError, match=r"i16\.safetensors.*tensor 'lut' has the unsupported dtype \"I16\""):
        adept.io.load_file(path)
    assert issubclass(adept.DtypeError, TypeError)


# ---------------------------------------------------------------- corrupt files

def raw_file(header, data=b""):
    """File bytes of a safetensors file with JSON `header` text and buffer `data`."""
    h = header.encode()
    return struct.pack("<Q", len(h)) + h + data


def expect_io_error(path, pattern):
    with pytest.raises(adept.IOError) as info:
        adept.io.load_file(path)
    msg = str(info.value)
    assert str(path) in msg
    assert pattern in msg, msg
    assert isinstance(info.value, OSError)
    with pytest.raises(adept.IOError):
        adept.io.load_metadata(path)


def test_truncated_files_raise_naming_the_file(tmp_path):
    good = tmp_path / "good.safetensors"
    adept.io.save_file({"a": A(torch_random("float32", (3, 5), 1)), "b": A(torch_random("int64", (4,), 2))},
                       good, metadata={"k": "v"})
    data = good.read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    cut = tmp_path / "cut.safetensors"
    # Cut inside the length, inside the header, at the buffer's start, inside and at the last tensor.
    for length, pattern in [(0, "too short"), (5, "too short"), (8, "exceeds the file size"),
                            (8 + n // 2, "exceeds the file size"), (8 + n - 1, "exceeds the file size"),
                            (8 + n, "beyond the"), (8 + n + 30, "beyond the"), (len(data) - 1, "beyond the")]:
        cut.write_bytes(data[:length])
        expect_io_error(cut, pattern)


@pytest.mark.parametrize("header,data,pattern", [
    ('{"a": {"dtype": "F32", "shape": [2], ', b"", "invalid JSON"),
    ("garbage that is not JSON", b"", "does not start with '{'"),
    ('{"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}} trailing', bytes(8), "invalid JSON"),
    ('{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}',
     bytes(12), "overlap"),
    ('{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}', bytes(8), "needs 12 bytes"),
    ('{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}', bytes(16), "after the last tensor"),
    ('{"a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}}', bytes(8), "beyond the"),
    ('{"__metadata__":{"epoch":1}}', b"", "metadata 'epoch' is 1"),
], ids=["cut_json", "garbage", "trailing_garbage", "overlap", "shape_mismatch", "hole_at_end",
        "out_of_range", "metadata_not_str"])
def test_malformed_headers_raise_naming_the_file(tmp_path, header, data, pattern):
    path = tmp_path / "bad.safetensors"
    path.write_bytes(raw_file(header, data))
    expect_io_error(path, pattern)


def test_header_length_too_big_missing_file_and_bad_dtype(tmp_path):
    path = tmp_path / "big.safetensors"
    path.write_bytes(struct.pack("<Q", 2**63) + b"{}")
    expect_io_error(path, "exceeds the file size")
    missing = tmp_path / "missing.safetensors"
    with pytest.raises(adept.IOError, match="missing.safetensors.*No such file"):
        adept.load(missing)
    path = tmp_path / "dtype.safetensors"
    path.write_bytes(raw_file('{"w":{"dtype":"F3","shape":[1],"data_offsets":[0,4]}}', bytes(4)))
    with pytest.raises(adept.DtypeError, match=r"dtype\.safetensors.*tensor 'w' has an unknown dtype \"F3\""):
        adept.io.load_file(path)


# ---------------------------------------------------------------- atomic replacement

def test_failing_saves_keep_the_old_file_and_leave_no_temp_files(tmp_path):
    path = tmp_path / "model.safetensors"
    adept.save({"w": adept.ones(3)}, path, metadata={"v": "1"})
    before = path.read_bytes()
    t = A(torch_random("float32", (4,), 3))
    for bad, err in [({"a": t, "": t}, "non-empty"), ({"a": t, "__metadata__": t}, "reserved")]:
        with pytest.raises(adept.ValueError, match=err):
            adept.save(bad, path)
        assert path.read_bytes() == before
        assert files_in(tmp_path) == ["model.safetensors"]
    # The target is a directory: the temp file is written, then the rename fails.
    (tmp_path / "sub").mkdir()
    with pytest.raises(adept.IOError, match="sub"):
        adept.save({"w": t}, tmp_path / "sub")
    with pytest.raises(adept.IOError, match="no_dir"):
        adept.save({"w": t}, tmp_path / "no_dir" / "m.safetensors")
    assert files_in(tmp_path) == ["model.safetensors", "sub"] and files_in(tmp_path / "sub") == []
    assert adept.io.load_metadata(path) == {"v": "1"}


def test_write_failing_midway_keeps_the_old_file(tmp_path):
    """A file-size limit makes the data write fail half-way (EFBIG), in a child process."""
    path = tmp_path / "model.safetensors"
    adept.save({"w": adept.ones(3)}, path)
    before = path.read_bytes()
    code = textwrap.dedent(f"""
        import resource, signal, sys
        import adept
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
        try:
            adept.save({{"w": adept.zeros(100000)}}, {str(path)!r})
        except OSError as e:
            print("ERROR", e)
            sys.exit(3)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 3, r.stdout + r.stderr
    assert "File too large" in r.stdout and str(path) in r.stdout, r.stdout
    assert path.read_bytes() == before
    assert files_in(tmp_path) == ["model.safetensors"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_unwritable_directory_keeps_the_old_file(tmp_path):
    path = tmp_path / "model.safetensors"
    adept.save({"w": adept.ones(3)}, path)
    before = path.read_bytes()
    tmp_path.chmod(0o555)
    try:
        with pytest.raises(adept.IOError, match="temporary file"):
            adept.save({"w": adept.zeros(3)}, path)
    finally:
        tmp_path.chmod(0o755)
    assert path.read_bytes() == before and files_in(tmp_path) == ["model.safetensors"]


def test_complete_save_replaces_the_file(tmp_path):
    path = pathlib.Path(tmp_path) / "model.safetensors"
    adept.save({"old": adept.ones(3)}, path, metadata={"v": "1"})
    new = A(torch_random("bfloat16", (2, 3), 4))
    adept.save({"new": new}, path)
    loaded = adept.load(path)
    assert list(loaded) == ["new"]
    assert_same(loaded["new"], T(new))
    assert adept.io.load_metadata(path) == {}
    assert files_in(tmp_path) == ["model.safetensors"]


def test_nested_state_round_trip_resumes_optimizer_identically(tmp_path):
    """adept.save/load of an optimizer's and a scheduler's state dicts (nested, int keys, numbers,
    tuples) in one checkpoint: the resumed optimizer takes exactly the steps the original takes."""
    import adept

    def make():
        adept.manual_seed(0)
        model = adept.nn.Linear(3, 2)
        opt = adept.optim.AdamW(model.parameters(), lr=0.1, betas=(0.8, 0.9))
        sched = adept.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        return model, opt, sched

    def train_step(model, opt, sched):
        opt.zero_grad()
        model(adept.ones(4, 3)).pow(2).sum().backward()
        opt.step()
        sched.step()

    model, opt, sched = make()
    for _ in range(3):
        train_step(model, opt, sched)
    path = tmp_path / "ckpt.safetensors"
    adept.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "scheduler": sched.state_dict(),
                "epoch": 3}, path, metadata={"note": "x"})
    assert adept.io.load_metadata(path)["note"] == "x"
    ck = adept.load(path)
    assert ck["epoch"] == 3 and isinstance(ck["optimizer"]["param_groups"][0]["betas"], tuple)
    model2, opt2, sched2 = make()
    model2.load_state_dict(ck["model"])
    opt2.load_state_dict(ck["optimizer"])
    sched2.load_state_dict(ck["scheduler"])
    for _ in range(2):
        train_step(model, opt, sched)
        train_step(model2, opt2, sched2)
    np.testing.assert_array_equal(model.weight.detach().numpy(), model2.weight.detach().numpy())
    assert sched.get_last_lr() == sched2.get_last_lr()
    # Flat state dicts stay plain safetensors files (no structure key).
    adept.save(model.state_dict(), tmp_path / "flat.safetensors")
    assert "adept.tree" not in adept.io.load_metadata(tmp_path / "flat.safetensors")
    with pytest.raises(TypeError):
        adept.save({"a": object()}, tmp_path / "bad.safetensors")
    assert not (tmp_path / "bad.safetensors").exists()
