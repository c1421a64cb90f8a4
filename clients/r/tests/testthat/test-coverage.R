# cds_coverage(): for one place, how many of some variables have a value in each survey and year.
# Each answer is checked against /v1/coverage as plain HTTP gives it (the oracle is the service,
# not numbers written here), and its refusal against the route's problem.

# A few of the place profile's headline figures (web/profile/layout.ts), and a census code.
headline <- c("core_total_population", "core_median_household_income", "core_poverty_rate", "B25001_001E")
coverage_cols <- c("dataset", "vintage", "with_values", "variables", "loaded")

# The plain answer's rows as a data frame of the same columns and types as the client's tibble.
raw_rows <- function(data) {
  data.frame(
    dataset = vapply(data, function(r) r$dataset, character(1)),
    vintage = vapply(data, function(r) as.numeric(r$vintage), numeric(1)),
    with_values = vapply(data, function(r) r$with_values, integer(1)),
    variables = vapply(data, function(r) r$variables, integer(1)),
    loaded = vapply(data, function(r) r$loaded, logical(1))
  )
}
# The client's rows alone (its meta differs per answer: request_id, elapsed_ms).
rows_of <- function(x) {
  out <- as.data.frame(x)
  attr(out, "meta") <- NULL
  out
}
same_rows <- function(client, data) {
  expect_identical(rows_of(client), raw_rows(data))
}

test_that("cds_coverage(): Texas's rows are what /v1/coverage answers", {
  skip_without_server()
  client <- cds_coverage(headline, "state:48")
  raw <- raw_get("/v1/coverage", list(variables = paste(headline, collapse = ","), geo = "state:48"))
  expect_equal(raw$status, 200)
  expect_s3_class(client, "tbl_df")
  expect_identical(names(client), coverage_cols)
  same_rows(client, raw$body$data)
  # every survey, and counts that differ by year: the comparison above compared something
  expect_identical(unique(client$dataset), unlist(raw$body$meta$datasets))
  expect_gt(length(unique(client$dataset)), 1)
  expect_gt(length(unique(client$with_values)), 1)
  expect_true(all(client$variables == length(headline)))
  meta <- attr(client, "meta")
  for (m in c("geo_key", "name", "geo_type", "datasets", "counted", "variable_count", "total_count")) {
    expect_identical(meta[[m]], raw$body$meta[[m]], label = paste("meta", m))
  }
  expect_identical(c(meta$geo_key, meta$name), c("state:48", "Texas"))
  # named variables (as cds_data() takes them) ask the same question
  named <- cds_coverage(stats::setNames(headline, paste0("v", seq_along(headline))), "state:48")
  expect_identical(rows_of(named), rows_of(client))
})

test_that("cds_coverage(dataset = \"acs1\") narrows to acs1", {
  skip_without_server()
  acs1 <- cds_coverage(headline, "state:48", dataset = "acs1")
  raw <- raw_get("/v1/coverage", list(variables = paste(headline, collapse = ","), geo = "state:48", dataset = "acs1"))
  expect_equal(raw$status, 200)
  same_rows(acs1, raw$body$data)
  expect_gt(nrow(acs1), 0)
  expect_identical(unique(acs1$dataset), "acs1")
  expect_identical(unlist(attr(acs1, "meta")$datasets), "acs1")
  expect_true(any(acs1$with_values > 0))
  # the acs1 rows of the unnarrowed answer, no more, no fewer
  every <- cds_coverage(headline, "state:48")
  expect_identical(rows_of(acs1), rows_of(every[every$dataset == "acs1", ]))
})

test_that("cds_coverage() of a wildcard raises the route's problem as a classed condition", {
  skip_without_server()
  err <- tryCatch(cds_coverage(headline, "state:*"), cds_error = function(e) e)
  raw <- raw_get("/v1/coverage", list(variables = paste(headline, collapse = ","), geo = "state:*"))
  expect_s3_class(err, c("cds_error_validation_error", "cds_error_400", "cds_error"))
  expect_identical(err$status, raw$status)
  expect_identical(err$status, 400L)
  expect_identical(c(err$type, err$title, err$detail), c(raw$body$type, raw$body$title, raw$body$detail))
  expect_identical(err$errors, raw$body$errors)
  expect_match(conditionMessage(err), "wildcard", fixed = TRUE)
})
