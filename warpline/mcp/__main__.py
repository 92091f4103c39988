import sys

from warpline.mcp.server import main

sys.exit(main())
