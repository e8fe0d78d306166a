"""FA-DUP: Double payment or order."""

from __future__ import annotations
