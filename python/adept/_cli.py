"""The ``adept`` console script and ``python -m adept``: run the C++ command-line tool.

``pip install .`` puts the tool at ``adept/bin/adept`` inside the package; in a build tree
(``PYTHONPATH=build/<preset>/python``) it is ``build/<preset>/bin/adept``. The Python process is
replaced by the tool (same arguments, environment and exit status).
"""
import os
import sys


def executable():
    """The path of the ``adept`` tool that belongs to this package; FileNotFoundError if there is none."""
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.path.join(here, "bin", "adept"),  # installed wheel
                  os.path.join(here, os.pardir, os.pardir, "bin", "adept")]  # build tree: build/<preset>/python/adept
    for path in candidates:
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return os.path.normpath(path)
    raise FileNotFoundError("the adept command-line tool is not beside the package; looked for "
                            + " and ".join(os.path.normpath(p) for p in candidates))


def main(argv=None):
    """Runs ``adept <argv>`` (default: this process's arguments) in place of the Python process."""
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        exe = executable()
    except FileNotFoundError as e:
        sys.exit(f"adept: error: {e}")
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(exe, ["adept", *args])
