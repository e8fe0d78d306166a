"""FA-TIM: Time zone or deadline."""

from __future__ import annotations
