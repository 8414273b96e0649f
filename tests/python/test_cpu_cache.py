"""adept.cpu: the CPU caching allocator's statistics and controls (include/adept/storage.h)."""
import pytest

import adept


def test_freed_buffer_is_cached_reused_and_emptied():
    saved = adept.cpu.memory_stats()["cache_limit_bytes"]
    try:
        adept.cpu.empty_cache()
        adept.cpu.set_cache_limit(64 << 20)
        x = adept.empty(1 << 18)  # 1 MiB of float32
        del x
        s = adept.cpu.memory_stats()
        assert s["cached_bytes"] == 1 << 20 and s["cached_blocks"] == 1 and s["cache_limit_bytes"] == 64 << 20
        hits = s["cache_hits"]
        y = adept.zeros(1 << 18)
        assert adept.cpu.memory_stats()["cache_hits"] == hits + 1 and y.sum().item() == 0
        del y
        adept.cpu.empty_cache()
        assert adept.cpu.memory_stats()["cached_bytes"] == 0
        adept.cpu.set_cache_limit(0)
        z = adept.empty(1 << 18)
        del z
        assert adept.cpu.memory_stats()["cached_bytes"] == 0
    finally:
        adept.cpu.set_cache_limit(saved)


def test_negative_limit_is_a_value_error():
    with pytest.raises(ValueError, match="set_cache_limit"):
        adept.cpu.set_cache_limit(-1)
