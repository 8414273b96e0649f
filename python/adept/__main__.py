"""``python -m adept``: the ``adept`` command-line tool (adept/_cli.py)."""
from adept._cli import main

if __name__ == "__main__":
    main()
