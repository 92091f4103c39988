"""One line of ``warpline doctor``'s verdict."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Status = Literal["ok", "warn", "fail", "unavailable", "skipped"]
# What ``doctor --fix`` can do about a failed check.
Repair = Literal["hooks", "mcp", "store", "backfill", "reach"]


@dataclass(frozen=True, slots=True)
class Check:
    """``required`` checks decide the exit status; the others inform."""

    name: str
    status: Status
    required: bool
    detail: str
    fix: str | None = None
    repair: Repair | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "status": self.status, "required": self.required,
                "detail": self.detail, "fix": self.fix}
