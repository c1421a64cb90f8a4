# Pure parts of the client, no server: header parsing, GEOIDs, the long shape, wide output,
# problem bodies as conditions.

test_that("RateLimit headers parse into one row per policy", {
  lim <- cds_parse_rate_limit(
    '"monthly";r=993;t=1209600, "burst";r=0;t=42, "concurrency";r=1',
    '"monthly";q=1000;w=2592000, "burst";q=60;w=60, "concurrency";q=2;qu="concurrent-requests"'
  )
  expect_identical(lim$policy, c("monthly", "burst", "concurrency"))
  expect_identical(lim$quota, c(1000, 60, 2))
  expect_identical(lim$remaining, c(993, 0, 1))
  expect_identical(lim$reset, c(1209600, 42, NA))
  expect_identical(lim$unit, c(NA, NA, "concurrent-requests"))
  expect_equal(nrow(cds_parse_rate_limit(NULL, NULL)), 0)
})

test_that("GEOIDs are the FIPS part of a key; regions keep their key", {
  expect_identical(
    cds_geoid(c("state:06", "county:06037", "nation:1", "tract:48453000101", "region:bay-area", "region(state:06,state:41)")),
    c("06", "06037", "1", "48453000101", "region:bay-area", "region(state:06,state:41)")
  )
})

cell <- function(geo_key, name, variable, estimate, moe, ...) {
  out <- list(geo_key = geo_key, geo_name = name, geo_type = sub(":.*", "", geo_key), variable = variable,
    unit = "dollar", vintage = 2018L, estimate = estimate, moe_numeric = moe,
    estimate_annotation = NULL, moe_annotation = NULL)
  extra <- list(...)
  # as parsed JSON: a null member is present with a NULL value
  for (n in names(extra)) out[n] <- list(extra[[n]])
  out
}

test_that("cells flatten into the long shape with change, comparison and dollars columns", {
  cells <- list(
    cell("state:06", "California", "B19013_001E", 75277L, 317L, comparison = NULL,
      dollars = list(adjusted = TRUE, factor = 1.2, source_year = 2018L, target_year = 2024L),
      change = list(base_vintage = 2012L, base_estimate = 1, difference = 2, significant = TRUE)),
    cell("state:48", "Texas", "B19013_001E", NULL, NULL,
      estimate_annotation = list(code = "no_data_loaded", symbol = "", meaning = "not loaded"),
      comparison = list(reference_geo_key = "state:06", difference = -3, significant = FALSE),
      dollars = list(adjusted = FALSE, reason = "not_dollars"), change = NULL)
  )
  out <- censusdataservice:::cds_cells(cells)
  expect_identical(names(out)[1:5], c("GEOID", "NAME", "variable", "estimate", "moe"))
  expect_identical(out$estimate, c(75277, NA))
  expect_identical(out$estimate_annotation, c(NA, "no_data_loaded"))
  expect_identical(out$target_year, c(2024, NA))
  expect_identical(out$dollars_reason, c(NA, "not_dollars"))
  expect_identical(out$significant, c(TRUE, NA))
  expect_identical(out$difference, c(2, NA))
  expect_identical(out$comparison_difference, c(NA, -3))
  expect_identical(out$comparison_significant, c(NA, FALSE))
  expect_identical(out$reference_geo_key, c(NA, "state:06"))
})

test_that("wide output has an E and M column per variable, as tidycensus's", {
  long <- censusdataservice:::cds_cells(list(
    cell("state:06", "California", "B19013_001E", 1, 2),
    cell("state:06", "California", "core_x", 3, 4),
    cell("state:48", "Texas", "B19013_001E", 5, 6),
    cell("state:48", "Texas", "core_x", 7, NULL)
  ))
  wide <- cds_wide(long)
  expect_identical(names(wide), c("GEOID", "NAME", "B19013_001E", "B19013_001M", "core_xE", "core_xM"))
  expect_identical(wide$B19013_001E, c(1, 5))
  expect_identical(wide$core_xM, c(4, NA))
})

test_that("a problem body becomes a condition with classes by type and status", {
  problem <- list(
    type = "https://census-data-service.dev/errors/variable-not-found", title = "Variable not found",
    status = 404L, detail = "Unknown variable: core_x.", errors = NULL, unknown_variables = list("core_x")
  )
  cond <- censusdataservice:::cds_error_condition(problem, 404L)
  expect_s3_class(cond, c("cds_error_variable_not_found", "cds_error_404", "cds_error", "error"))
  expect_error(stop(cond), "core_x", class = "cds_error_variable_not_found")
  expect_identical(cond$detail, "Unknown variable: core_x.")
  v <- censusdataservice:::cds_error_condition(list(
    type = "x/validation-error", title = "Invalid request parameter", status = 400L, detail = "d",
    errors = list(list(field = "query -> limit", message = "unknown parameter", type = "extra_forbidden"))
  ), 400L)
  expect_match(conditionMessage(v), "query -> limit: unknown parameter [extra_forbidden]", fixed = TRUE)
})

test_that("without an address or key the client says how to give one", {
  saved <- Sys.getenv(c("CDS_BASE_URL", "CDS_API_KEY"), unset = NA)
  saved <- saved[!is.na(saved)]
  on.exit(if (length(saved)) do.call(Sys.setenv, as.list(saved)), add = TRUE)
  Sys.unsetenv(c("CDS_BASE_URL", "CDS_API_KEY"))
  expect_error(cds_topics(), "CDS_BASE_URL", class = "cds_config_error")
  expect_error(cds_topics(base_url = "http://127.0.0.1:9"), "CDS_API_KEY", class = "cds_config_error")
})

test_that("tidycensus's state and variable spellings translate", {
  expect_identical(censusdataservice:::cds_state_fips(c("VT", "Vermont", "50", "6")), c("50", "50", "50", "06"))
  expect_error(censusdataservice:::cds_state_fips("Atlantis"), "not a valid state")
  expect_identical(censusdataservice:::cds_acs_code(c("B19013_001", "B19013_001E", "core_x")), c("B19013_001E", "B19013_001E", "core_x"))
})

test_that("after an answer saying the burst window is spent, the next request waits for its reset", {
  id <- "http://example.invalid svc_live_offline"
  on.exit(censusdataservice:::cds_forget_limits(), add = TRUE)
  spent <- httr2::response(200, headers = list(
    RateLimit = '"monthly";r=10;t=1000, "burst";r=0;t=2, "concurrency";r=1',
    `RateLimit-Policy` = '"monthly";q=1000;w=2592000, "burst";q=60;w=60'
  ))
  censusdataservice:::cds_remember_limits(id, spent)
  started <- Sys.time()
  expect_message(censusdataservice:::cds_wait_for_window(id), class = "cds_retry")
  expect_gte(as.numeric(difftime(Sys.time(), started, units = "secs")), 1.5)
  fresh <- httr2::response(200, headers = list(RateLimit = '"burst";r=59;t=60'))
  censusdataservice:::cds_remember_limits(id, fresh)
  expect_silent(censusdataservice:::cds_wait_for_window(id))
})

test_that("burst and concurrency 429s and 503s are retried; a spent monthly quota or a long wait is not", {
  answer <- function(status, limit_type = NULL, retry_after = NULL) {
    body <- if (is.null(limit_type)) "{}" else sprintf('{"limit_type":"%s"}', limit_type)
    headers <- list(`Content-Type` = "application/problem+json")
    if (!is.null(retry_after)) headers$`Retry-After` <- retry_after
    httr2::response(status, headers = headers, body = charToRaw(body))
  }
  transient <- censusdataservice:::cds_is_transient
  expect_true(transient(answer(429, "burst", "12")))
  expect_true(transient(answer(429, "concurrency", "1")))
  expect_true(transient(answer(503)))
  expect_false(transient(answer(429, "monthly", "86400")))
  expect_false(transient(answer(429, "burst", "3600")))
  expect_false(transient(answer(404)))
  expect_message(wait <- censusdataservice:::cds_retry_after(answer(429, "burst", "12")), class = "cds_retry")
  expect_identical(wait, 12)
})

test_that("coverage rows keep their columns and types, also when there are none", {
  none <- censusdataservice:::cds_coverage_rows(list(), list(geo_key = "state:48"))
  expect_identical(names(none), c("dataset", "vintage", "with_values", "variables", "loaded"))
  expect_identical(vapply(none, typeof, character(1), USE.NAMES = FALSE), c("character", "double", "integer", "integer", "logical"))
  expect_identical(attr(none, "meta")$geo_key, "state:48")
  two <- censusdataservice:::cds_coverage_rows(list(
    list(dataset = "acs1", vintage = 2018L, with_values = 21L, variables = 36L, loaded = TRUE),
    list(dataset = "acs1", vintage = 2019L, with_values = 0L, variables = 36L, loaded = FALSE)
  ))
  expect_identical(two$vintage, c(2018, 2019))
  expect_identical(two$with_values, c(21L, 0L))
  expect_identical(two$loaded, c(TRUE, FALSE))
})
