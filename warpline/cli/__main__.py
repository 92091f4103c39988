from warpline.cli import run

run()
