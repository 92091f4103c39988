"""The CLI's one writing seam: exit codes and the two ways a result reaches stdout."""

from __future__ import annotations

import json
import sys
from typing import Any

EXIT_OK = 0
EXIT_BAD_INPUT = 1
EXIT_INTERNAL = 70


def emit_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, indent=2, sort_keys=False) + "\n")
    sys.stdout.flush()


def emit_text(text: str) -> None:
    sys.stdout.write(text.rstrip("\n") + "\n")
    sys.stdout.flush()
