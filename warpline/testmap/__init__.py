"""The per-test execution map: recording (coverage.py, per-test contexts), the pytest
plugin (``plugin``: hooks only), and importing coverage data files (``importer``)."""
