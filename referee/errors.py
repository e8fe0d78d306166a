"""The referee's errors: a few named classes, each refining the builtin it is.

    ArenaError
     ├── UnknownAgent (ValueError)      an agent spec we cannot parse or do not have
     │    └── KeyMissing                a model agent's API key is not in the environment
     ├── UnknownVersion (ValueError)    a task or rules version not in the catalogue
     ├── LogCorrupt (ValueError)        the bytes show a change: broken chain, non-canonical, bad JSON
     │    └── LogShapeError             intact JSON, but not an event of the shape this arena writes
     ├── SignatureInvalid (ValueError)  the signature does not verify over the stored bytes
     ├── Unverifiable                   cannot decide: no such file, not a log, unknown key
     │    └── UnknownKey                signed by a key outside the keyring
     ├── KeyFileError (PermissionError) a key file missing, unreadable, malformed or readable by others
     ├── ResumeError (ValueError)       a paused bout's log and its rebuilt world (or agent) disagree
     ├── RowsDisagree (ValueError)      stored rows are not what their signed logs say (exit 1)
     ├── UsageError (ValueError)        something the user gave cannot be used: a path, a list, a plan
     ├── StoreError                     the store cannot be opened: a bad URL, a missing driver or folder
     ├── SiteError (ValueError)         a site cannot be built from what was given: no bouts, not a dataset
     ├── ProviderError                  a model provider failed past its retries
     │    ├── RateLimited               the provider said slow down (carries retry_after)
     │    └── KeyRefused                the provider refused the API key (401, 403): a person must act
     ├── AgentFailed                    a user's own agent crashed, hung or answered out of shape:
     │                                  that bout's failure, logged, never the run's
     ├── AgentGone                      an MCP client went away (disconnected or silent): the bout
     │                                  pauses for the client to resume, never counted against it
     └── RegradeError (ValueError)      a log cannot be regraded under other rules (ADR 0061)
          └── RegradeRefused            the log does not reproduce, or a regrade record does not match it

Messages never carry key material or provider API keys.
"""

from __future__ import annotations

__all__ = [
    "AgentFailed", "AgentGone", "ArenaError", "KeyFileError", "KeyMissing", "KeyRefused", "LogCorrupt",
    "LogShapeError", "ProviderError", "RateLimited", "RegradeError", "RegradeRefused", "ResumeError",
    "RowsDisagree", "SignatureInvalid", "SiteError", "StoreError", "UnknownAgent", "UnknownKey", "UnknownVersion",
    "Unverifiable", "UsageError",
]


class ArenaError(Exception):
    """Base of every error the referee raises on purpose."""


class UnknownAgent(ArenaError, ValueError):
    pass


class KeyMissing(UnknownAgent):
    """A model agent's API key is not set: the arena cannot start (exit 2), the command line
    itself is fine. The message names the variable to set and never holds a key."""


class UnknownVersion(ArenaError, ValueError):
    pass


class LogCorrupt(ArenaError, ValueError):
    pass


class LogShapeError(LogCorrupt):
    """Well-formed JSON with an intact chain that is still not a log this arena writes
    (a missing or unknown member, ``1`` where a bool belongs): signed, it is not a log of ours."""


class SignatureInvalid(ArenaError, ValueError):
    pass


class Unverifiable(ArenaError):
    pass


class UnknownKey(Unverifiable):
    pass


class KeyFileError(ArenaError, PermissionError):
    pass


class ResumeError(ArenaError, ValueError):
    pass


class RowsDisagree(ArenaError, ValueError):
    """Stored rows whose figures are not the ones their signed logs state (edited behind the
    arena's back), or whose logs show a change: refused, never published (ADR 0060). A change,
    so the CLI exits 1, as `arena verify` does for a changed log."""


class UsageError(ArenaError, ValueError):
    pass


class StoreError(ArenaError):
    pass


class SiteError(ArenaError, ValueError):
    """A site cannot be built from what was given: no bouts, a folder that is not a dataset."""


class ProviderError(ArenaError):
    pass


class RateLimited(ProviderError):
    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class KeyRefused(ProviderError):
    """The provider answered 401 or 403: the key is missing, wrong or not allowed. Not an
    outage: the bout pauses as ``key_refused`` and is not retried until the user resumes."""


class AgentFailed(ArenaError):
    """A user's agent (``python:…``) failed inside its own code: ``kind`` is ``crashed``,
    ``timed_out`` or ``bad_reply``; ``detail`` is bounded (a traceback's tail). The bout
    logs it and is judged as it stands: the agent's code is the agent, so unlike a
    provider outage this counts against it."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


class AgentGone(ArenaError):
    """The client playing a bout over MCP went away: it disconnected, or sent no call for
    the server's idle limit. The bout pauses (reason ``disconnected``) and any session
    holding its id can resume it; like an outage, and unlike a crash in a user's code,
    a dropped connection says nothing about the agent."""


class RegradeError(ArenaError, ValueError):
    """A log cannot be regraded, or a regrade record checked, and nothing shows a change: the
    target rules do not judge its task version, its job or rules are not in the catalogue, a
    record names a log that is not at hand (exit 2)."""


class RegradeRefused(RegradeError):
    """A log that does not reproduce (its calls or verdict differ from the rebuilt world's) or a
    regrade record that does not match its log: something changed, so nothing is regraded (exit 1)."""
