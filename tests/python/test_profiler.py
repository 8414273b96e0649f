"""adept.profiler.record_function and adept.vulkan.profiler_start/stop: labels nest and unwind, rows name the
kernel, label and direction (backward work under the label its forward ran in), errors. The Vulkan tests run
with --device vulkan (skipped on the CPU run)."""
import pytest

import adept


def test_record_function_nests_and_unwinds():
    assert adept.profiler.current_scope() == ""
    with adept.profiler.record_function("model.0 Conv"):
        assert adept.profiler.current_scope() == "model.0 Conv"
        with adept.profiler.record_function("bn"):
            assert adept.profiler.current_scope() == "model.0 Conv/bn"
        assert adept.profiler.current_scope() == "model.0 Conv"
    assert adept.profiler.current_scope() == ""


def test_record_function_unwinds_on_exceptions_and_refuses_reentry():
    label = adept.profiler.record_function("a")
    with pytest.raises(KeyError):
        with label:
            raise KeyError("x")
    assert adept.profiler.current_scope() == ""
    with label:
        with pytest.raises(ValueError, match="already entered"):
            label.__enter__()
    assert adept.profiler.current_scope() == ""


def test_record_function_in_a_generator_ending_after_its_caller():
    def gen():
        with adept.profiler.record_function("g"):
            yield
    g = gen()
    with adept.profiler.record_function("outer"):
        next(g)
        assert adept.profiler.current_scope() == "outer/g"
    assert adept.profiler.current_scope() == "g"
    g.close()
    assert adept.profiler.current_scope() == ""


def test_vulkan_profile_rows(device):
    if not device.startswith("vulkan"):
        pytest.skip("Vulkan profiler: run with --device vulkan")
    x = (adept.randn(64, 48) * 0.1).to(device).requires_grad_()
    w = (adept.randn(48, 8) * 0.1).to(device)
    adept.vulkan.synchronize()
    adept.vulkan.profiler_start()
    with adept.profiler.record_function("layer"):
        y = (x @ w).tanh()
    y.sum().backward()
    grad = x.grad.cpu()
    p = adept.vulkan.profiler_stop()
    rows = p["rows"]
    assert rows == sorted(rows, key=lambda r: -r["device_ms"])
    fwd = [r for r in rows if r["scope"] == "layer" and not r["backward"]]
    bwd = [r for r in rows if r["scope"] == "layer" and r["backward"]]
    assert {r["op"] for r in fwd} >= {"matmul", "unary"}
    assert "matmul" in {r["op"] for r in bwd}  # x's gradient: grad @ w.T under the forward's label
    assert any(r["kernel"] == "copy" for r in rows)  # x.grad.cpu()
    assert p["dispatches"] == sum(r["count"] for r in rows if r["kernel"] != "copy")
    assert p["device_ms"] == pytest.approx(sum(r["device_ms"] for r in rows))
    assert all(r["device_ms"] >= 0 and r["count"] >= 1 for r in rows)
    ref = ((1 - (x.detach().cpu() @ w.cpu()).tanh() ** 2) @ w.cpu().t())
    assert adept.allclose(grad, ref, rtol=1e-4, atol=1e-5)
    with pytest.raises(RuntimeError, match="no profile"):
        adept.vulkan.profiler_stop()
    adept.vulkan.profiler_start()
    with pytest.raises(RuntimeError, match="already running"):
        adept.vulkan.profiler_start()
    assert adept.vulkan.profiler_stop()["rows"] == []
