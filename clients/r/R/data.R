# /v1/data, /v1/compare, /v1/timeseries and /v1/coverage.

cds_variables_param <- function(variables) {
  if (!length(variables)) stop("`variables` needs at least one variable name, census code or table.", call. = FALSE)
  paste(variables, collapse = ",")
}

# Geographies are joined with ";" because their names contain commas ("county:Travis County, TX").
cds_geo_param <- function(geo) {
  if (!length(geo)) stop("`geo` needs at least one geography.", call. = FALSE)
  paste(geo, collapse = ";")
}

# Named variables (c(medincome = "B19013_001E")) come back under their names, as in tidycensus.
cds_rename_variables <- function(out, variables) {
  nm <- names(variables)
  if (is.null(nm) || !nrow(out)) return(out)
  for (i in seq_along(variables)) {
    if (!nzchar(nm[i])) next
    hit <- toupper(out$variable) == toupper(variables[[i]]) |
      (!is.na(out$census_code %||% NA) & toupper(out$census_code %||% "") == toupper(variables[[i]]))
    out$variable[hit] <- nm[i]
  }
  out
}

cds_finish <- function(out, variables, output, geometry, base_url, key, vintage = NULL) {
  out <- cds_rename_variables(out, variables)
  if (isTRUE(geometry)) {
    geom <- cds_geometry_for(out, base_url = base_url, key = key, vintage = vintage)
    if (output == "wide") out <- cds_wide(out)
    return(cds_join_geometry(out, geom))
  }
  if (output == "wide") out <- cds_wide(out)
  out
}

#' Estimates for variables and geographies
#'
#' Calls `GET /v1/data`: every variable for every geography, as a tibble in tidycensus's long
#' shape. `NAME` is the geography's name, `GEOID` its FIPS code, `moe` the published 90\% margin
#' of error; a null value has its reason in `estimate_annotation` / `moe_annotation` (codes in the
#' service's docs/annotations.md).
#'
#' @param variables Catalog names (`core_median_household_income`), census codes
#'   (`B19013_001E`) or whole tables (`B19013*`), up to 50. Name them
#'   (`c(medincome = "B19013_001E")`) to get those names back in `variable`.
#' @param geo Geographies: keys (`state:06`), wildcards (`county:06*`), names
#'   (`county:Travis County, TX`), inline regions (`region(county:06001,county:06013)`) or saved
#'   regions (`region:bay-area`). Several are sent separated by `;`.
#' @param dataset `"acs5"` (the server's default) or `"acs1"`.
#' @param vintage The ACS year; the server's default is the latest it holds values for.
#' @param ... Further query parameters, sent as they are (the server refuses unknown ones).
#' @param dollars A year: restate dollar values in that year's dollars (CPI-U-RS); the result
#'   gains `dollars_adjusted`, `dollars_factor`, `source_year`, `target_year`, ...
#' @param output `"tidy"` (long, one row per geography and variable) or `"wide"` (tidycensus's
#'   `output = "wide"`: `<name>E` and `<name>M` columns).
#' @param geometry `TRUE` for an `sf` object with each geography's shape from
#'   `/v1/boundaries` (needs the sf package and a plan with boundaries at that level).
#' @param base_url The service's address; default the `CDS_BASE_URL` environment variable.
#' @param key An API key; default the `CDS_API_KEY` environment variable.
#' @return A tibble (or an sf object with `geometry = TRUE`); the answer's `meta` (source, hint,
#'   notes) is in `attr(x, "meta")`.
#' @examples
#' \dontrun{
#' cds_data("core_median_household_income", "state:*", dataset = "acs1", vintage = 2018)
#' cds_data("B25001*", "county:06*", vintage = 2022, geometry = TRUE)
#' }
#' @export
cds_data <- function(variables, geo, dataset = NULL, vintage = NULL, ..., dollars = NULL,
                     output = c("tidy", "wide"), geometry = FALSE, base_url = NULL, key = NULL) {
  output <- match.arg(output)
  query <- cds_query(
    variables = cds_variables_param(variables), geo = cds_geo_param(geo), dataset = dataset,
    vintage = vintage, dollars = dollars, ...
  )
  body <- cds_fetch("/v1/data", query, base_url = base_url, key = key)
  out <- cds_cells(body$data, body$meta)
  cds_finish(out, variables, output, geometry, base_url, key, body$meta$source$vintage_year)
}

#' Compare geographies, or one geography with an earlier year
#'
#' Calls `GET /v1/compare`. Every geography after the first is compared with the first
#' (`reference_geo_key`, `comparison_difference`, `comparison_difference_moe`,
#' `comparison_significant`: the Bureau's test at 90\% confidence). With `compare_to`, every
#' geography is also compared with itself in that year (`base_vintage`, `base_estimate`,
#' `difference`, `difference_moe`, `percent_change`, `significant`, `not_tested_reason`); one
#' geography is then enough.
#'
#' @inheritParams cds_data
#' @param compare_to A year to test the change against.
#' @return A tibble (see [cds_data()]).
#' @examples
#' \dontrun{
#' cds_compare("core_median_household_income", c("state:06", "state:48"),
#'   dataset = "acs1", vintage = 2018
#' )
#' cds_compare("core_median_household_income", "region(state:06,state:41,state:53)",
#'   dataset = "acs1", vintage = 2018, compare_to = 2012, dollars = 2018
#' )
#' }
#' @export
cds_compare <- function(variables, geo, dataset = NULL, vintage = NULL, ..., compare_to = NULL,
                        dollars = NULL, output = c("tidy", "wide"), geometry = FALSE,
                        base_url = NULL, key = NULL) {
  output <- match.arg(output)
  query <- cds_query(
    variables = cds_variables_param(variables), geo = cds_geo_param(geo), dataset = dataset,
    vintage = vintage, compare_to = compare_to, dollars = dollars, ...
  )
  body <- cds_fetch("/v1/compare", query, base_url = base_url, key = key)
  out <- cds_cells(body$data, body$meta)
  cds_finish(out, variables, output, geometry, base_url, key, body$meta$source$vintage_year)
}

#' A variable over the years
#'
#' Calls `GET /v1/timeseries`: one row per geography, variable and vintage from `from` to `to`
#' (at most 16), null with a reason where a year has no value. With `compare_to`, every point
#' carries its change from that year (`difference`, `significant`, ...).
#'
#' @inheritParams cds_compare
#' @param from,to First and last vintage.
#' @return A tibble (see [cds_data()]); `output = "wide"` keeps one row per vintage.
#' @examples
#' \dontrun{
#' cds_timeseries("core_median_household_income", "state:06", dataset = "acs1",
#'   from = 2010, to = 2018, dollars = 2018
#' )
#' }
#' @export
cds_timeseries <- function(variables, geo, dataset = NULL, from = NULL, to = NULL, ...,
                           compare_to = NULL, dollars = NULL, output = c("tidy", "wide"),
                           base_url = NULL, key = NULL) {
  output <- match.arg(output)
  query <- cds_query(
    variables = cds_variables_param(variables), geo = cds_geo_param(geo), dataset = dataset,
    from = from, to = to, compare_to = compare_to, dollars = dollars, ...
  )
  body <- cds_fetch("/v1/timeseries", query, base_url = base_url, key = key)
  out <- cds_cells(body$data, body$meta)
  cds_finish(out, variables, output, FALSE, base_url, key)
}

# /v1/coverage's rows with their types, also when there is none: counts as integers, vintage a
# number as in the cells' tibbles.
cds_coverage_rows <- function(rows, meta = NULL) {
  col <- function(name, type) {
    na <- type
    is.na(na) <- 1
    vapply(rows, function(r) r[[name]] %||% na, type)
  }
  out <- tibble::tibble(
    dataset = col("dataset", character(1)),
    vintage = as.numeric(col("vintage", numeric(1))),
    with_values = col("with_values", integer(1)),
    variables = col("variables", integer(1)),
    loaded = col("loaded", logical(1))
  )
  attr(out, "meta") <- meta
  out
}

#' In which surveys and years one place has values
#'
#' Calls `GET /v1/coverage`: for ONE place, how many of the variables have a non-null estimate in
#' each dataset and vintage the service publishes, without the values (1 unit on every plan). One
#' row per dataset and vintage: `dataset`, `vintage`, `with_values` (the variables with a value
#' there), `variables` (how many were counted: a table as its codes published in that dataset)
#' and `loaded` (whether this deployment holds values at the place's level in that vintage).
#'
#' @inheritParams cds_data
#' @param variables Catalog names (`core_median_household_income`), census codes
#'   (`B19013_001E`) or whole tables (`B19013*`), 1 to 50. Names given to them are not used: the
#'   rows are per dataset and vintage, not per variable.
#' @param geo ONE place: a key (`state:48`, `county:48453`) or a name of that level
#'   (`county:Travis County, TX`). A wildcard, several places or a region is refused with a
#'   `cds_error_validation_error` (HTTP 400).
#' @param dataset `"acs5"` or `"acs1"`; `NULL` (the default) counts in every dataset.
#' @return A tibble, one row per dataset and vintage (registry order, then ascending years); the
#'   answer's `meta` (`geo_key`, `name`, `counted`: what is counted, `not_published`: codes a
#'   dataset never published) is in `attr(x, "meta")`.
#' @examples
#' \dontrun{
#' cov <- cds_coverage(c("core_total_population", "core_median_household_income"), "state:48")
#' cov[cov$with_values > 0, ]
#' cds_coverage("B19013*", "county:Travis County, TX", dataset = "acs1")
#' }
#' @export
cds_coverage <- function(variables, geo, dataset = NULL, ..., base_url = NULL, key = NULL) {
  query <- cds_query(variables = cds_variables_param(variables), geo = cds_geo_param(geo), dataset = dataset, ...)
  body <- cds_fetch("/v1/coverage", query, base_url = base_url, key = key)
  cds_coverage_rows(body$data, body$meta)
}
