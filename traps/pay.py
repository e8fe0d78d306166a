"""FA-PAY: Paid a scam or a changed payee."""

from __future__ import annotations
