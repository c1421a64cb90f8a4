# cds_acs(): tidycensus's get_acs() arguments, answered by this service, so a tidycensus script
# ports by renaming its call. It translates geography/state/county into the service's geo
# specifiers, variables "B19013_001" into census codes "B19013_001E", year/survey into
# vintage/dataset, and gives back the same columns (GEOID, NAME, variable, estimate, moe, with
# variable as tidycensus names it), followed by the service's own columns.

cds_states <- data.frame(
  fips = c(
    "01", "02", "04", "05", "06", "08", "09", "10", "11", "12", "13", "15", "16", "17", "18", "19",
    "20", "21", "22", "23", "24", "25", "26", "27", "28", "29", "30", "31", "32", "33", "34", "35",
    "36", "37", "38", "39", "40", "41", "42", "44", "45", "46", "47", "48", "49", "50", "51", "53",
    "54", "55", "56", "72"
  ),
  abb = c(
    "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "DC", "FL", "GA", "HI", "ID", "IL", "IN", "IA",
    "KS", "KY", "LA", "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM",
    "NY", "NC", "ND", "OH", "OK", "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA",
    "WV", "WI", "WY", "PR"
  ),
  name = c(
    "Alabama", "Alaska", "Arizona", "Arkansas", "California", "Colorado", "Connecticut", "Delaware",
    "District of Columbia", "Florida", "Georgia", "Hawaii", "Idaho", "Illinois", "Indiana", "Iowa",
    "Kansas", "Kentucky", "Louisiana", "Maine", "Maryland", "Massachusetts", "Michigan", "Minnesota",
    "Mississippi", "Missouri", "Montana", "Nebraska", "Nevada", "New Hampshire", "New Jersey",
    "New Mexico", "New York", "North Carolina", "North Dakota", "Ohio", "Oklahoma", "Oregon",
    "Pennsylvania", "Rhode Island", "South Carolina", "South Dakota", "Tennessee", "Texas", "Utah",
    "Vermont", "Virginia", "Washington", "West Virginia", "Wisconsin", "Wyoming", "Puerto Rico"
  ),
  stringsAsFactors = FALSE
)

# "VT", "Vermont", "50" or 50 -> "50", as tidycensus's validate_state() accepts them.
cds_state_fips <- function(state) {
  vapply(as.character(state), function(s) {
    s <- trimws(s)
    if (grepl("^[0-9]{1,2}$", s)) s <- sprintf("%02d", as.integer(s))
    hit <- which(cds_states$fips == s | toupper(cds_states$abb) == toupper(s) | tolower(cds_states$name) == tolower(s))
    if (!length(hit)) stop(sprintf("'%s' is not a valid state name, abbreviation or FIPS code.", s), call. = FALSE)
    cds_states$fips[hit[1]]
  }, character(1), USE.NAMES = FALSE)
}

# County names ("Orange", "Orange County") or codes ("059", "06059") -> 5-digit FIPS, looked up
# among the state's counties in the service's geography list.
cds_county_fips <- function(county, state_fips, vintage, base_url, key) {
  out <- character(0)
  counties <- NULL
  for (c in as.character(county)) {
    c <- trimws(c)
    if (grepl("^[0-9]{3}$", c)) {
      out <- c(out, paste0(state_fips, c))
      next
    }
    if (grepl("^[0-9]{5}$", c)) {
      out <- c(out, c)
      next
    }
    if (is.null(counties)) {
      counties <- cds_geographies(
        children_of = paste0("state:", state_fips), type = "county", vintage = vintage, all = TRUE,
        limit = 1000, base_url = base_url, key = key
      )
    }
    hit <- counties$fips[startsWith(tolower(counties$name), tolower(c))]
    if (length(hit) != 1) {
      stop(sprintf("County '%s' matches %d counties of state %s.", c, length(hit), state_fips), call. = FALSE)
    }
    out <- c(out, hit)
  }
  out
}

cds_level_of <- function(geography) {
  g <- tolower(geography)
  switch(g,
    us = "nation",
    state = "state",
    county = "county",
    tract = "tract",
    `block group` = "block_group",
    cbg = "block_group",
    `congressional district` = "cd",
    cbsa = "metro",
    `metropolitan statistical area/micropolitan statistical area` = "metro",
    `metropolitan/micropolitan statistical area` = "metro",
    stop(sprintf("geography = '%s' is not served by this service (us, state, county, tract, block group, congressional district, cbsa).", geography), call. = FALSE)
  )
}

cds_acs_geo <- function(geography, state, county, year, base_url, key) {
  level <- cds_level_of(geography)
  if (level == "nation") return("nation:1")
  if (level == "metro") return("metro:*")
  if (is.null(state)) {
    if (level %in% c("tract", "block_group")) stop(sprintf("geography = '%s' needs `state`.", geography), call. = FALSE)
    return(paste0(level, ":*"))
  }
  st <- cds_state_fips(state)
  if (level == "state") return(paste0("state:", st))
  if (level == "cd") return(paste0("cd:", st, "*"))
  if (is.null(county)) {
    if (level == "county") return(paste0("county:", st, "*"))
    return(paste0(level, ":", st, "*"))
  }
  if (length(st) != 1) stop("`county` needs exactly one `state`.", call. = FALSE)
  cf <- cds_county_fips(county, st, year, base_url, key)
  if (level == "county") return(paste0("county:", cf))
  paste0(level, ":", cf, "*")
}

# "B19013_001" -> "B19013_001E" (tidycensus leaves the E/M suffix off); catalog names unchanged.
cds_acs_code <- function(v) ifelse(grepl("^[A-Z][0-9A-Z]*_[0-9]{3}$", v), paste0(v, "E"), v)

#' tidycensus's get_acs(), answered by this service
#'
#' Takes the arguments of `tidycensus::get_acs()` and gives back its columns (`GEOID`, `NAME`,
#' `variable`, `estimate`, `moe`), so a tidycensus script ports by renaming `get_acs` to
#' `cds_acs`. The service's own columns (annotations, units, labels) follow them.
#'
#' @param geography `"us"`, `"state"`, `"county"`, `"tract"`, `"block group"`,
#'   `"congressional district"` or `"cbsa"`.
#' @param variables Census codes as tidycensus writes them (`"B19013_001"`), optionally named;
#'   catalog names work too.
#' @param table A table (`"B19013"`), instead of `variables`.
#' @param cache_table Ignored (tidycensus caches the variable list; nothing to cache here).
#' @param year The ACS year.
#' @param output `"tidy"` or `"wide"`.
#' @param state,county Where: state names, abbreviations or FIPS codes; county names or codes.
#' @param geometry `TRUE` for an sf object.
#' @param survey `"acs5"` or `"acs1"`.
#' @param moe_level 90 (as published), 95 or 99.
#' @param ... Ignored tidycensus arguments (`key`, `show_call`, ...) are refused by name so a
#'   ported script says what it relied on.
#' @inheritParams cds_data
#' @return A tibble (or an sf object).
#' @examples
#' \dontrun{
#' vt <- cds_acs(
#'   geography = "county",
#'   variables = c(medincome = "B19013_001"),
#'   state = "VT",
#'   year = 2021
#' )
#' }
#' @export
cds_acs <- function(geography, variables = NULL, table = NULL, cache_table = FALSE, year = 2023,
                    output = "tidy", state = NULL, county = NULL, geometry = FALSE,
                    survey = "acs5", moe_level = 90, ..., base_url = NULL, key = NULL) {
  extra <- list(...)
  if (length(extra)) {
    stop(sprintf("cds_acs() does not take %s (tidycensus-only arguments).", paste(names(extra), collapse = ", ")), call. = FALSE)
  }
  if (is.null(variables) && is.null(table)) stop("Give `variables` or `table`.", call. = FALSE)
  asked <- if (!is.null(table)) paste0(table, "*") else variables
  codes <- cds_acs_code(asked)
  names(codes) <- names(variables)
  geo <- cds_acs_geo(geography, state, county, year, base_url, key)
  out <- cds_data(codes, geo, dataset = survey, vintage = year, base_url = base_url, key = key)
  # tidycensus names unnamed codes without their E suffix
  unnamed <- out$variable == out$census_code & grepl("^[A-Z][0-9A-Z]*_[0-9]{3}E$", out$variable)
  unnamed[is.na(unnamed)] <- FALSE
  out$variable[unnamed] <- sub("E$", "", out$variable[unnamed])
  z <- c(`90` = 1.645, `95` = 1.96, `99` = 2.576)[[as.character(moe_level)]]
  if (is.null(z)) stop("`moe_level` must be 90, 95 or 99.", call. = FALSE)
  # published MOEs are at 90%: rescaled only for another level, as tidycensus does
  if (moe_level != 90) out$moe <- out$moe * z / 1.645
  if (isTRUE(geometry)) {
    geom <- cds_geometry_for(out, base_url = base_url, key = key, vintage = year)
    if (output == "wide") out <- cds_wide(out)
    return(cds_join_geometry(out, geom))
  }
  if (output == "wide") out <- cds_wide(out)
  out
}
