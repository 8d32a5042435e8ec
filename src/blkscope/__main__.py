import sys

from blkscope.cli import main

sys.exit(main())
