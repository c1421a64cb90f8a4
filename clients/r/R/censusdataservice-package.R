#' censusdataservice: Client for the Census Data Service API
#'
#' American Community Survey estimates from a Census Data Service deployment, as tibbles in
#' tidycensus's long shape. Set `CDS_BASE_URL` and `CDS_API_KEY` (or pass `base_url =` and
#' `key =` to each function), then call [cds_data()], [cds_compare()], [cds_timeseries()] or
#' [cds_acs()] (tidycensus's `get_acs()` arguments); [cds_coverage()] says in which surveys and
#' years one place has values for some variables. Problems are raised as conditions of class
#' `cds_error` (and `cds_error_<status>`, `cds_error_<type>`); rate limits are retried as the
#' server's `Retry-After` and `RateLimit` headers say (options `cds.max_tries`, `cds.max_wait`).
#'
#' @keywords internal
"_PACKAGE"
