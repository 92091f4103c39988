"""The per-test execution map, whatever runner recorded it: lines -> entities
(``entitymap``) and the map as bytes that travel with git (``wire``). Recording one is a
runner's (``warpline.runners``: pytest's coverage.py recorder and import)."""
