"""`python -m s2s_ad ...` is the `s2s-ad` command."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
