# The same questions as the Python client asks them (clients/python/tests/test_ten_questions.py),
# so that curl, Python and R answer identical queries: each through this client and plain HTTP.

test_that("the Python client's data, compare and timeseries questions", {
  skip_without_server()
  region <- "region(state:06,state:41,state:53)"
  asked <- list(
    list(fn = cds_compare, path = "/v1/compare", variables = c("B19025_001E", "B19013_001E"), geo = region,
      args = list(dataset = "acs1", vintage = 2018, dollars = 2024, compare_to = 2013)),
    list(fn = cds_timeseries, path = "/v1/timeseries", variables = "B19013_001E", geo = "state:06",
      args = list(dataset = "acs1", from = 2010, to = 2018)),
    list(fn = cds_compare, path = "/v1/compare", variables = "B19013_001E", geo = c("state:06", "state:48"),
      args = list(dataset = "acs1", vintage = 2018))
  )
  for (q in asked) {
    client <- do.call(q$fn, c(list(q$variables, q$geo), q$args))
    raw <- raw_get(q$path, c(list(variables = paste(q$variables, collapse = ","), geo = paste(q$geo, collapse = ";")), q$args))
    expect_equal(raw$status, 200)
    expect_same_cells(client, raw$body$data)
  }
  chg <- cds_compare(c("B19025_001E", "B19013_001E"), region, dataset = "acs1", vintage = 2018, dollars = 2024, compare_to = 2013)
  agg <- chg[chg$variable == "B19025_001E", ]
  expect_true(agg$significant)
  expect_identical(agg$target_year, 2024)
})

test_that("the Python client's named tract, found by name among its county's tracts", {
  skip_without_server()
  tracts <- cds_geographies(type = "tract", parent = "Alameda County, CA", vintage = 2022, limit = 1000, all = TRUE)
  listed <- raw_get("/v1/geographies", list(type = "tract", parent = "Alameda County, CA", vintage = 2022, limit = 1000))
  expect_setequal(tracts$geo_key, vapply(listed$body$data, function(g) g$geo_key, character(1)))
  name <- "Census Tract 4001, Alameda County, California"
  key <- tracts$geo_key[tracts$name == name]
  expect_identical(key, "tract:06001400100")
  client <- cds_data("B01003_001E", key, vintage = 2022)
  raw <- raw_get("/v1/data", list(variables = "B01003_001E", geo = key, vintage = 2022))
  expect_same_cells(client, raw$body$data)
  expect_identical(c(client$NAME, client$GEOID), c(name, "06001400100"))
  expect_identical(client$estimate_annotation_meaning, raw$body$data[[1]]$estimate_annotation$meaning)
})

test_that("the Python client's geocode, saved region and error", {
  skip_without_server()
  geo <- cds_geocode(lat = 37.8716, lng = -122.2727)
  raw <- raw_get("/v1/geocode", list(lat = 37.8716, lng = -122.2727))
  levels <- raw$body$data$geographies
  expect_identical(geo$geo_key, vapply(levels, function(g) g$key %||% NA_character_, character(1), USE.NAMES = FALSE))
  expect_identical(geo$geo_key[geo$level == "county"], "county:06001")
  expect_identical(geo$reason[geo$level == "tract"], levels$tract$reason)

  err <- tryCatch(cds_data(c("B19013_001E", "B19013_001X"), "state:06", dataset = "acs1", vintage = 2018), cds_error = function(e) e)
  rawe <- raw_get("/v1/data", list(variables = "B19013_001E,B19013_001X", geo = "state:06", dataset = "acs1", vintage = 2018))
  expect_s3_class(err, "cds_error_variable_not_found")
  expect_identical(c(err$status, err$type, err$detail), c(rawe$status, rawe$body$type, rawe$body$detail))
  expect_identical(unlist(err$problem$unknown_variables), "B19013_001X")
  expect_match(conditionMessage(err), "B19013_001X", fixed = TRUE)

  skip_if(!nzchar(Sys.getenv("CDS_TOKEN")), "no sign-in token: set CDS_TOKEN (test/clients/r.test.ts does)")
  cds_save_region("r-west-coast-py", c("state:06", "state:41", "state:53"))
  on.exit(try(cds_delete_region("r-west-coast-py"), silent = TRUE), add = TRUE)
  saved <- cds_data(c("B19025_001E", "B01001_001E"), "region:r-west-coast-py", dataset = "acs1", vintage = 2018)
  raws <- raw_get("/v1/data", list(variables = "B19025_001E,B01001_001E", geo = "region:r-west-coast-py", dataset = "acs1", vintage = 2018))
  expect_same_cells(saved, raws$body$data)
  inline <- cds_data(c("B19025_001E", "B01001_001E"), "region(state:06,state:41,state:53)", dataset = "acs1", vintage = 2018)
  expect_identical(saved$estimate, inline$estimate)
  cds_delete_region("r-west-coast-py")
  expect_false("r-west-coast-py" %in% (cds_regions()$name %||% character(0)))
})
