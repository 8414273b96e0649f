"""Lists the ops declared in include/adept/ops/*.h and where the parity table calls each one.

Usage: python3 tests/python/gen/op_coverage.py [--missing]   (prints "op: files" or the uncovered ops)
The parity test test_parity_coverage.py uses `declared_ops()` and `uncovered()` from here.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]
HEADERS = ("pointwise", "reduce", "shape", "index", "linalg", "creation")
TESTS = pathlib.Path(__file__).resolve().parents[1]

# C++ helpers with no Python op of their own, and the ops reached in Python by another spelling.
NOT_OPS = {"wrap_dim", "infer_size", "from_blob_copy", "set_dtype", "set_device", "set_requires_grad"}
SPELLED = {
    "index": r"\w\[",                                  # advanced indexing x[i]
    "slice": r"\[[^\]]*:",                             # x[a:b:c]
    "rsub": r"\brsub\(|\d - x",
    "tensor": r"\.tensor\(",
    "copy_": r"\.copy_\(",
}


def declared_ops(headers=HEADERS):
    """Function names declared in the op headers (free functions returning a tensor or value)."""
    names = set()
    decl = re.compile(r"^(?:[\w:<>,\s&*]+?)\s+&?(\w+)\(", re.M)
    for h in headers:
        text = (ROOT / "include" / "adept" / "ops" / f"{h}.h").read_text()
        text = re.sub(r"//.*", "", text)
        for name in decl.findall(text):
            if name not in NOT_OPS and not name[0].isupper():
                names.add(name)
    return sorted(names)


def uses(op, sources):
    # a call `.op(` / `op(`, or the name as a string (ops called through getattr in a loop)
    pat = re.compile(SPELLED.get(op, rf"[.\s(]{re.escape(op)}\(|\"{re.escape(op)}\""))
    return [f for f, text in sources.items() if pat.search(text)]


def sources():
    return {p.name: p.read_text() for p in sorted(TESTS.glob("test_parity_*.py")) + [TESTS / "test_promotion.py"]}


def uncovered():
    src = sources()
    return [op for op in declared_ops() if not uses(op, src)]


if __name__ == "__main__":
    src = sources()
    for op in declared_ops():
        where = uses(op, src)
        if "--missing" not in sys.argv or not where:
            print(f"{op}: {', '.join(where) or 'NOT COVERED'}")
