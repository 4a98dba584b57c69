"""One error root for everything Engram raises on purpose; the API maps these to typed results."""

from __future__ import annotations


class EngramError(Exception):
    """Root of all expected Engram errors."""


class ConfigurationError(EngramError):
    """Settings or installed files do not allow the service to run."""


class ModelNotInstalledError(ConfigurationError):
    """A model named in Settings is not installed; the message names the package to install."""


class DatabaseUnavailableError(EngramError):
    """Neo4j does not answer (stopped, unreachable, or refused our credentials)."""


class BusyError(EngramError):
    """The service already runs its limit of reads or writes and enough wait; retry
    after ``retry_after_s`` seconds, or ask another process."""

    def __init__(self, message: str, retry_after_s: float = 1.0) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class QueryTimeoutError(EngramError):
    """The request's deadline (ENGRAM_REQUEST_TIMEOUT_S) passed while Neo4j ran its query, or
    before it could start one; that transaction was rolled back, so nothing of it was written."""


class LocalServerError(EngramError):
    """The local Neo4j server could not be installed, started or stopped."""


class ValidationError(EngramError):
    """Input was rejected before anything was written; the message says which item and why."""


class NotFoundError(EngramError):
    """The memory, entity or message asked for does not exist in the caller's scope."""


class UnknownQueryError(EngramError):
    """A Cypher query was asked for by a name the catalogue does not have."""


class ForbiddenError(EngramError):
    """The caller's API key may not touch the scope it asked for."""
