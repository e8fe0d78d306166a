"""FA-CLM: False success or false claim."""

from __future__ import annotations
