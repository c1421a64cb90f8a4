"""Exceptions carrying the service's problem+json body (RFC 9457): type, title, detail, errors."""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Type

_STANDARD = {"type", "title", "status", "detail", "instance", "request_id", "errors"}


class CensusDataServiceError(Exception):
    """A problem answered by the service (any 4xx/5xx), or a transport failure (status None).

    Every member of the problem body is kept: the standard ones as attributes, the rest (e.g.
    ``unknown_variables``, ``limit_type``, ``upgrade_url``) in :attr:`extensions`.
    """

    type: str
    title: Optional[str]
    status: Optional[int]
    detail: Optional[str]
    instance: Optional[str]
    request_id: Optional[str]
    errors: Optional[List[Dict[str, Any]]]
    extensions: Dict[str, Any]
    headers: Dict[str, str]

    def __init__(
        self,
        type: str = "about:blank",
        title: Optional[str] = None,
        status: Optional[int] = None,
        detail: Optional[str] = None,
        *,
        instance: Optional[str] = None,
        request_id: Optional[str] = None,
        errors: Optional[List[Dict[str, Any]]] = None,
        extensions: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        self.type = type
        self.title = title
        self.status = status
        self.detail = detail
        self.instance = instance
        self.request_id = request_id
        self.errors = errors
        self.extensions = dict(extensions or {})
        self.headers = dict(headers or {})
        super().__init__(self._message())

    @property
    def slug(self) -> str:
        """The last path segment of ``type`` (``variable-not-found``)."""
        return self.type.rstrip("/").rsplit("/", 1)[-1]

    def _message(self) -> str:
        head = f"{self.status} {self.title}" if self.status else (self.title or self.type)
        msg = f"{head}: {self.detail}" if self.detail else head
        for e in self.errors or []:
            field, text = e.get("field"), e.get("message")
            msg += f"\n  - {field}: {text}" if field else f"\n  - {text}"
        return msg

    @classmethod
    def from_problem(
        cls, body: Mapping[str, Any], status: int, headers: Optional[Mapping[str, str]] = None
    ) -> "CensusDataServiceError":
        """The exception for a problem body, of the subclass its ``type`` names."""
        type_ = str(body.get("type") or "about:blank")
        slug = type_.rstrip("/").rsplit("/", 1)[-1]
        klass: Type[CensusDataServiceError] = _BY_SLUG.get(slug, _by_status(status))
        return klass(
            type_,
            body.get("title"),
            body.get("status") if isinstance(body.get("status"), int) else status,
            body.get("detail"),
            instance=body.get("instance"),
            request_id=body.get("request_id"),
            errors=body.get("errors"),
            extensions={k: v for k, v in body.items() if k not in _STANDARD},
            headers=headers,
        )


class AuthenticationError(CensusDataServiceError):
    """401: no key, an unknown or revoked key, or (account endpoints) no valid sign-in token."""


class PlanError(CensusDataServiceError):
    """403: the plan does not include the feature (``required_plan``, ``upgrade_url`` in extensions)."""


class NotFoundError(CensusDataServiceError):
    """404: an unknown path, geography, table or saved region."""


class VariableNotFoundError(NotFoundError):
    """404 ``variable-not-found``: :attr:`unknown_variables` names them."""

    @property
    def unknown_variables(self) -> List[str]:
        return list(self.extensions.get("unknown_variables") or [])


class GeographyNotFoundError(NotFoundError):
    """404 ``geography-not-found``."""


class ValidationError(CensusDataServiceError):
    """400/422: a parameter the endpoint refuses; :attr:`errors` lists each field."""


class RateLimitError(CensusDataServiceError):
    """429 after the client's retries (or a wait longer than ``max_retry_wait``).

    ``limit_type`` is ``monthly``, ``burst`` or ``concurrency``; :attr:`retry_after` the seconds
    the service asked to wait.
    """

    @property
    def limit_type(self) -> Optional[str]:
        return self.extensions.get("limit_type")

    @property
    def retry_after(self) -> Optional[float]:
        raw = {k.lower(): v for k, v in self.headers.items()}.get("retry-after")
        try:
            return float(raw) if raw is not None else None
        except ValueError:
            return None


class ServiceUnavailableError(CensusDataServiceError):
    """503 after the client's retries: a store is unavailable, the heavy queue is full, a timeout."""


class TransportError(CensusDataServiceError):
    """The service could not be reached (connection refused, reset, timed out) after retries."""


_BY_SLUG: Dict[str, Type[CensusDataServiceError]] = {
    "variable-not-found": VariableNotFoundError,
    "geography-not-found": GeographyNotFoundError,
    "rate-limit-exceeded": RateLimitError,
    "validation-error": ValidationError,
}


def _by_status(status: int) -> Type[CensusDataServiceError]:
    if status == 401:
        return AuthenticationError
    if status == 403:
        return PlanError
    if status == 404:
        return NotFoundError
    if status in (400, 422):
        return ValidationError
    if status == 429:
        return RateLimitError
    if status == 503:
        return ServiceUnavailableError
    return CensusDataServiceError
