"""Every op declared in include/adept/ops/{pointwise,reduce,shape,index,linalg,creation}.h has a row
in the parity table (see gen/op_coverage.py for the per-op listing)."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent / "gen"))
import op_coverage  # noqa: E402


def test_every_declared_op_is_in_the_parity_table():
    ops = op_coverage.declared_ops()
    assert len(ops) > 100, f"header parsing found only {len(ops)} ops"
    missing = op_coverage.uncovered()
    assert not missing, f"ops without a parity case: {missing}"
