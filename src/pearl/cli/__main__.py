"""``python -m pearl.cli``."""

import sys

from pearl.cli import main

if __name__ == "__main__":
    sys.exit(main())
