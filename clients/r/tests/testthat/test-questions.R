# The ten questions of issue 38's judging section, each answered through the client and through
# plain HTTP to the same server, with identical numbers. Data the test build holds: acs1 state
# and nation (2005-2015, 2017, 2018), acs5 county B01003/B25001 (2022, 2023).

test_that("1. a variable for all states", {
  skip_without_server()
  q <- list(variables = "core_median_household_income", geo = "state:*", dataset = "acs1", vintage = 2018)
  client <- cds_data("core_median_household_income", "state:*", dataset = "acs1", vintage = 2018)
  raw <- raw_get("/v1/data", q)
  expect_equal(raw$status, 200)
  expect_equal(nrow(client), 52)
  expect_same_cells(client, raw$body$data)
  # the Bureau's published figure (api/2018/acs/acs1/state/B19013: California 75277, MOE 317)
  ca <- client[client$GEOID == "06", ]
  expect_identical(c(ca$estimate, ca$moe), c(75277, 317))
  expect_identical(names(client)[1:5], c("GEOID", "NAME", "variable", "estimate", "moe"))
})

test_that("2. a table for the counties of a state", {
  skip_without_server()
  client <- cds_data("B25001*", "county:06*", vintage = 2022)
  raw <- raw_get("/v1/data", list(variables = "B25001*", geo = "county:06*", vintage = 2022))
  expect_equal(nrow(client), 58)
  expect_same_cells(client, raw$body$data)
  expect_true(all(client$table_id == "B25001"))
  wide <- cds_data("B25001*", "county:06*", vintage = 2022, output = "wide")
  expect_identical(names(wide), c("GEOID", "NAME", "B25001_001E", "B25001_001M"))
  expect_identical(wide$B25001_001E, client$estimate[match(wide$GEOID, client$GEOID)])
})

test_that("3. a named tract: the name, and null with its reason where the build holds no value", {
  skip_without_server()
  client <- cds_data("B01003_001E", "tract:48453000101", vintage = 2022)
  raw <- raw_get("/v1/data", list(variables = "B01003_001E", geo = "tract:48453000101", vintage = 2022))
  expect_same_cells(client, raw$body$data)
  expect_identical(client$NAME, "Census Tract 1.01, Travis County, Texas")
  expect_identical(client$GEOID, "48453000101")
  expect_identical(client$estimate_annotation, raw$body$data[[1]]$estimate_annotation$code)
  expect_identical(client$estimate_annotation, "no_data_loaded")
})

test_that("4. a region in constant dollars, with its change since an earlier year", {
  skip_without_server()
  region <- "region(state:06,state:41,state:53)"
  vars <- c("core_median_household_income", "B17001_002E")
  client <- cds_compare(vars, region, dataset = "acs1", vintage = 2018, compare_to = 2012, dollars = 2024)
  raw <- raw_get("/v1/compare", list(
    variables = paste(vars, collapse = ","), geo = region, dataset = "acs1", vintage = 2018,
    compare_to = 2012, dollars = 2024
  ))
  expect_equal(raw$status, 200)
  expect_same_cells(client, raw$body$data, c(
    estimate = "estimate", moe = "moe_numeric", base_estimate = "change$base_estimate",
    base_moe = "change$base_moe", difference = "change$difference",
    difference_moe = "change$difference_moe", percent_change = "change$percent_change",
    dollars_factor = "dollars$factor", target_year = "dollars$target_year"
  ))
  income <- client[client$variable == "core_median_household_income", ]
  expect_identical(income$target_year, 2024)
  expect_true(income$dollars_adjusted)
  expect_gt(income$dollars_factor, 1)
  poor <- client[client$variable == "B17001_002E", ]
  cell <- Filter(function(c) c$variable == "B17001_002E", raw$body$data)[[1]]
  expect_identical(poor$significant, cell$change$significant)
  expect_false(is.na(poor$significant))
  expect_identical(poor$dollars_reason, "not_dollars")
})

test_that("5. a timeseries", {
  skip_without_server()
  client <- cds_timeseries("core_median_household_income", "state:06", dataset = "acs1", from = 2010, to = 2018)
  raw <- raw_get("/v1/timeseries", list(
    variables = "core_median_household_income", geo = "state:06", dataset = "acs1", from = 2010, to = 2018
  ))
  expect_equal(nrow(client), 9)
  expect_same_cells(client, raw$body$data)
  expect_identical(client$estimate_annotation[client$vintage == 2016], "no_data_loaded")
  wide <- cds_timeseries("core_median_household_income", "state:06", dataset = "acs1", from = 2010, to = 2018, output = "wide")
  expect_identical(wide$vintage, as.numeric(2010:2018))
})

test_that("6. a comparison of two geographies", {
  skip_without_server()
  client <- cds_compare("core_median_household_income", c("state:06", "state:48"), dataset = "acs1", vintage = 2018)
  raw <- raw_get("/v1/compare", list(
    variables = "core_median_household_income", geo = "state:06;state:48", dataset = "acs1", vintage = 2018
  ))
  expect_same_cells(client, raw$body$data, c(
    estimate = "estimate", moe = "moe_numeric", comparison_difference = "comparison$difference",
    comparison_difference_moe = "comparison$difference_moe"
  ))
  tx <- client[client$GEOID == "48", ]
  expect_identical(tx$reference_geo_key, "state:06")
  expect_identical(tx$comparison_significant, raw$body$data[[2]]$comparison$significant)
  expect_identical(tx$comparison_difference, 60629 - 75277)
})

test_that("7. a geocode", {
  skip_without_server()
  client <- cds_geocode(lat = 30.2672, lng = -97.7431)
  raw <- raw_get("/v1/geocode", list(lat = 30.2672, lng = -97.7431))
  levels <- raw$body$data$geographies
  expect_identical(client$level, names(levels))
  expect_identical(client$geo_key, vapply(levels, function(g) g$key %||% NA_character_, character(1), USE.NAMES = FALSE))
  expect_identical(client$geo_key[client$level == "county"], "county:48453")
  expect_identical(attr(client, "geocode")$status, raw$body$data$status)
  # and the place found answers with its numbers: the county's housing units, client and plain HTTP
  county <- client$geo_key[client$level == "county"]
  units <- cds_data("B25001_001E", county, vintage = 2022)
  rawu <- raw_get("/v1/data", list(variables = "B25001_001E", geo = county, vintage = 2022))
  expect_same_cells(units, rawu$body$data)
  expect_false(is.na(units$estimate))
})

test_that("8. a search", {
  skip_without_server()
  client <- cds_variables("median household income", limit = 20)
  raw <- raw_get("/v1/variables", list(search = "median household income", limit = 20))
  expect_identical(client$api_name, vapply(raw$body$data, function(v) v$api_name, character(1)))
  expect_identical(client$census_code, vapply(raw$body$data, function(v) v$census_code %||% NA_character_, character(1)))
  expect_identical(attr(client, "meta")$total_count, raw$body$meta$total_count)
  expect_true("core_median_household_income" %in% client$api_name)
  everything <- cds_variables("median household income", limit = 5, all = TRUE)
  expect_equal(nrow(everything), raw$body$meta$total_count)
  tables <- cds_tables("poverty", limit = 5)
  rawt <- raw_get("/v1/tables", list(search = "poverty", limit = 5))
  expect_identical(tables$table_id, vapply(rawt$body$data, function(v) v$table_id, character(1)))
})

test_that("9. a saved region", {
  skip_without_server()
  skip_if(!nzchar(Sys.getenv("CDS_TOKEN")), "no sign-in token: set CDS_TOKEN (test/clients/r.test.ts does)")
  saved <- cds_save_region("r-west-coast", c("state:06", "state:41", "state:53"))
  on.exit(try(cds_delete_region("r-west-coast"), silent = TRUE), add = TRUE)
  expect_identical(saved$name, "r-west-coast")
  expect_true("r-west-coast" %in% cds_regions()$name)
  client <- cds_data("B17001_002E", "region:r-west-coast", dataset = "acs1", vintage = 2018)
  raw <- raw_get("/v1/data", list(variables = "B17001_002E", geo = "region:r-west-coast", dataset = "acs1", vintage = 2018))
  expect_same_cells(client, raw$body$data)
  # the same three states asked inline give the same sum and MOE
  inline <- cds_data("B17001_002E", "region(state:06,state:41,state:53)", dataset = "acs1", vintage = 2018)
  expect_identical(c(client$estimate, client$moe), c(inline$estimate, inline$moe))
  members <- raw_get("/v1/data", list(variables = "B17001_002E", geo = "state:06;state:41;state:53", dataset = "acs1", vintage = 2018))
  expect_identical(client$estimate, sum(vapply(members$body$data, function(c) c$estimate, numeric(1))))
  # the same token reads the account's usage: the requests above were charged to it
  usage <- cds_usage()
  expect_gt(usage$units$used, 0)
  expect_s3_class(usage$by_route, "tbl_df")
  expect_true("/v1/data" %in% usage$by_route$route)
})

test_that("10. an error: a bad variable raises a classed condition naming it", {
  skip_without_server()
  err <- tryCatch(
    cds_data("core_median_houshold_income", "state:06", dataset = "acs1", vintage = 2018),
    cds_error_404 = function(e) e
  )
  raw <- raw_get("/v1/data", list(variables = "core_median_houshold_income", geo = "state:06", dataset = "acs1", vintage = 2018))
  expect_s3_class(err, c("cds_error_variable_not_found", "cds_error_404", "cds_error"))
  expect_match(conditionMessage(err), "core_median_houshold_income", fixed = TRUE)
  expect_identical(err$status, raw$status)
  expect_identical(err$type, raw$body$type)
  expect_identical(err$title, raw$body$title)
  expect_identical(err$detail, raw$body$detail)
  expect_identical(err$problem$unknown_variables, raw$body$unknown_variables)
  expect_identical(unlist(err$problem$suggestions), "core_median_household_income")
  expect_error(cds_data("B01003_001E", "state:06", vintage = 2022, vintgae = 2022), class = "cds_error_400")
  bad <- tryCatch(cds_data("B01003_001E", "state:06", vintage = 2022, vintgae = 2022), cds_error = function(e) e)
  expect_identical(bad$errors[[1]]$type, "extra_forbidden")
})
