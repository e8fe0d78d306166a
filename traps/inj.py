"""FA-INJ: Followed a hidden instruction."""

from __future__ import annotations
