# The account endpoints: saved regions and usage. They take the dashboard's sign-in token
# (Authorization: Bearer), not an API key: the service keeps account management away from keys
# that may sit in scripts. A saved region is then used with any API key of the account as
# geo = "region:<name>".

#' Saved regions
#'
#' `cds_regions()` lists the regions saved to the account (`GET /v1/account/regions`);
#' `cds_save_region()` saves one (`POST`), `cds_delete_region()` removes one (`DELETE`). Use a
#' saved region in any data call as `geo = "region:<name>"`; ad-hoc regions need no saving:
#' `geo = "region(county:06001,county:06013)"`.
#'
#' @param name The region's name (letters, digits, `-`, `_`).
#' @param members Geographies of one level: keys, wildcards or names; they are resolved to keys
#'   when the region is saved.
#' @param token The dashboard's sign-in token; default the `CDS_TOKEN` environment variable.
#' @inheritParams cds_data
#' @return `cds_regions()`: a tibble, one row per region, `members` a list-column.
#'   `cds_save_region()`: the saved region, as one row. `cds_delete_region()`: invisibly `TRUE`.
#' @examples
#' \dontrun{
#' cds_save_region("west-coast", c("state:06", "state:41", "state:53"))
#' cds_data("B01001_001E", "region:west-coast", dataset = "acs1", vintage = 2018)
#' }
#' @export
cds_regions <- function(base_url = NULL, token = NULL) {
  body <- cds_fetch("/v1/account/regions", list(), base_url = base_url, token = token, auth = "token")
  cds_records(body$data, body$meta)
}

#' @rdname cds_regions
#' @export
cds_save_region <- function(name, members, base_url = NULL, token = NULL) {
  body <- cds_fetch("/v1/account/regions", list(),
    base_url = base_url, token = token, auth = "token", method = "POST",
    body = list(name = name, members = as.list(members))
  )
  cds_records(list(body$data), body$meta)
}

#' @rdname cds_regions
#' @export
cds_delete_region <- function(name, base_url = NULL, token = NULL) {
  cds_perform(cds_request(paste0("/v1/account/regions/", cds_path_segment(name)), list(),
    base_url = base_url, token = token, auth = "token", method = "DELETE"
  ))
  invisible(TRUE)
}

#' Usage of the account
#'
#' Calls `GET /v1/account/usage`: units used against the monthly quota, this minute's burst
#' count, in-flight requests, and breakdowns by day, route and key.
#'
#' @param period A month, `"YYYY-MM"`; default the current one.
#' @inheritParams cds_regions
#' @return A list as the service answers it (`units`, `burst`, `concurrency`, ...), with
#'   `by_day`, `by_route` and `by_key` as tibbles.
#' @export
cds_usage <- function(period = NULL, base_url = NULL, token = NULL) {
  body <- cds_fetch("/v1/account/usage", cds_query(period = period), base_url = base_url, token = token, auth = "token")
  out <- body$data
  for (k in c("by_day", "by_route", "by_key")) {
    if (!is.null(out[[k]])) out[[k]] <- cds_records(out[[k]])
  }
  out
}
