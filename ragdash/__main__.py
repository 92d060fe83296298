import sys

from ragdash.cli import main

sys.exit(main())
