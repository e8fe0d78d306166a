"""FA-PRM: Permission overreach."""

from __future__ import annotations
