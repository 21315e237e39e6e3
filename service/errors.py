"""The service's one error type, and how its gRPC codes map to HTTP statuses.

>>> error = ServiceError(StatusCode.ABORTED, "STALE_VERSION", "the match is at version 7", current_version=7)
>>> error.http_status, error.status_name, error.metadata
(409, 'ABORTED', {'current_version': '7'})

A refusal that says when to try again (a rate limit, a full store) has ``retry_after_seconds`` in its
metadata; the REST body repeats it as a number, and the transports send it as ``Retry-After`` (HTTP)
and as a ``google.rpc.RetryInfo`` detail (gRPC):

>>> error = ServiceError(StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED", "too many", retry_after_seconds=12)
>>> error.retry_after, error.to_json()["error"]["retry_after_seconds"]
(12, 12)
"""

from __future__ import annotations

from grpc import StatusCode

#: google.rpc.ErrorInfo domain of every error this service returns.
DOMAIN = "typhoon.v1"

#: The longest error sentence sent (gRPC carries it in a header, twice, within an 8 KB limit).
MAX_MESSAGE = 500

#: gRPC code → HTTP status (the mapping of google/rpc/code.proto).
HTTP_STATUS: dict[StatusCode, int] = {
    StatusCode.OK: 200,
    StatusCode.CANCELLED: 499,
    StatusCode.UNKNOWN: 500,
    StatusCode.INVALID_ARGUMENT: 400,
    StatusCode.DEADLINE_EXCEEDED: 504,
    StatusCode.NOT_FOUND: 404,
    StatusCode.ALREADY_EXISTS: 409,
    StatusCode.PERMISSION_DENIED: 403,
    StatusCode.UNAUTHENTICATED: 401,
    StatusCode.RESOURCE_EXHAUSTED: 429,
    StatusCode.FAILED_PRECONDITION: 400,
    StatusCode.ABORTED: 409,
    StatusCode.OUT_OF_RANGE: 400,
    StatusCode.UNIMPLEMENTED: 501,
    StatusCode.INTERNAL: 500,
    StatusCode.UNAVAILABLE: 503,
    StatusCode.DATA_LOSS: 500,
}


class ServiceError(Exception):
    """A refused or failed call: a gRPC code, a stable machine-readable reason, a sentence for people
    and string metadata (google.rpc.ErrorInfo.metadata). Raising one never leaves a partial write."""

    def __init__(self, code: StatusCode, reason: str, message: str, http_status: int | None = None,
                 **metadata: object) -> None:
        if len(message) > MAX_MESSAGE:  # the sentence may quote the caller's input, which can be huge
            message = message[:MAX_MESSAGE - 1] + "…"
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.metadata = {key: str(value) for key, value in metadata.items()}
        self._http_status = http_status  # where HTTP is more precise than the gRPC code (413, 415)
        #: the hash of a seat token or key this refusal found wrong, where the code alone does not say so
        #: (JoinMatch's NO_FREE_SEAT to a token that holds no seat): the guard counts it as a guess
        self.wrong_credential: str | None = None

    @property
    def status_name(self) -> str:
        return self.code.name

    @property
    def http_status(self) -> int:
        return self._http_status or HTTP_STATUS.get(self.code, 500)

    @property
    def retry_after(self) -> int | None:
        """Seconds to wait before trying again, where the refusal says (``retry_after_seconds``)."""
        value = self.metadata.get("retry_after_seconds")
        return int(value) if value is not None else None

    def to_json(self) -> dict:
        """The REST error body."""
        body: dict = {"code": self.http_status, "status": self.status_name, "reason": self.reason,
                      "message": self.message}
        if self.metadata:
            body["metadata"] = dict(self.metadata)
        if self.retry_after is not None:
            body["retry_after_seconds"] = self.retry_after
        return {"error": body}

    def __repr__(self) -> str:
        return f"ServiceError({self.code.name}, {self.reason!r}, {self.message!r})"


def internal_error() -> ServiceError:
    return ServiceError(StatusCode.INTERNAL, "INTERNAL", "internal error; it has been logged")


def shutting_down() -> ServiceError:
    return ServiceError(StatusCode.UNAVAILABLE, "SHUTTING_DOWN",
                        "the service is shutting down; retry (with the same request_id), on another replica if any")


def client_gone() -> ServiceError:
    """The end of a call whose client closed its connection: nobody reads it; logged and counted as
    CANCELLED, never as a failure of the service or of its store."""
    return ServiceError(StatusCode.CANCELLED, "CLIENT_GONE", "the client closed the connection")


def unavailable() -> ServiceError:
    return ServiceError(StatusCode.UNAVAILABLE, "STORE_UNAVAILABLE",
                        "the match store is unavailable; retry (with the same request_id)")
