"""FA-POL: Policy breach."""

from __future__ import annotations
