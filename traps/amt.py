"""FA-AMT: Wrong amount."""

from __future__ import annotations
