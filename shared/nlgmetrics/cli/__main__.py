"""``python -m nlgmetrics.cli`` (as torchrun launches it)."""
import sys

from nlgmetrics.cli import main

if __name__ == "__main__":
    sys.exit(main())
