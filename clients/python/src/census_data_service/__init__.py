"""Census Data Service for Python: ACS estimates with margins of error as pandas data frames.

    >>> from census_data_service import Client
    >>> cds = Client(base_url="https://census.example.org", api_key="svc_live_…")
    >>> cds.data("B19013_001E", geo="state:*", dataset="acs1", vintage=2018)
"""

from ._version import __version__
from .client import Client, region, saved_region
from .errors import (
    AuthenticationError,
    CensusDataServiceError,
    GeographyNotFoundError,
    NotFoundError,
    PlanError,
    RateLimitError,
    ServiceUnavailableError,
    TransportError,
    ValidationError,
    VariableNotFoundError,
)
from .ratelimit import Limit
from .transport import RetryEvent


__all__ = [
    "__version__",
    "AuthenticationError",
    "CensusDataServiceError",
    "Client",
    "GeographyNotFoundError",
    "Limit",
    "NotFoundError",
    "PlanError",
    "RateLimitError",
    "RetryEvent",
    "ServiceUnavailableError",
    "TransportError",
    "ValidationError",
    "VariableNotFoundError",
    "region",
    "saved_region",
]
