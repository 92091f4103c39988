import sys

from warpline.cli import main

sys.exit(main())
