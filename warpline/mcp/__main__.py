from warpline.mcp import run

run()
