"""`python -m blkscope.cli ...`, as `blkscope ...` (the root tests run the command line this way)."""

import sys

from blkscope.cli import main

sys.exit(main())
