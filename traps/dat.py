"""FA-DAT: Deleted or merged the wrong record."""

from __future__ import annotations
