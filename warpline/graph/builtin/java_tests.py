"""placeholder"""
from typing import Any
def discovery_facts(commit: Any, scans: Any, table: Any, edges: Any) -> dict[str, Any]:
    return {}
