# A tidycensus script ported by renaming get_acs() to cds_acs(), and geometry = TRUE.

test_that("tidycensus's basic-usage example runs renamed, answering what /v1/data answers", {
  skip_without_server()
  # vignettes/basic-usage.Rmd (walkerke/tidycensus), with get_acs renamed to cds_acs:
  vt <- cds_acs(geography = "county",
                variables = c(medincome = "B19013_001"),
                state = "VT",
                year = 2021)
  raw <- raw_get("/v1/data", list(variables = "B19013_001E", geo = "county:50*", vintage = 2021))
  expect_identical(names(vt)[1:5], c("GEOID", "NAME", "variable", "estimate", "moe"))
  expect_equal(nrow(vt), 14)
  expect_true(all(vt$variable == "medincome"))
  expect_same_cells(transform(vt, variable = census_code), raw$body$data)
  # The test build holds no county incomes (only B01003/B25001 for acs5 2022-2023): the rows are
  # null with the reason, as /v1/data says.
  expect_true(all(vt$estimate_annotation == "no_data_loaded"))
})

test_that("the same script on data the build holds gives /v1/data's numbers", {
  skip_without_server()
  # The same call with the variable and year the test build holds (housing units, 2018-2022).
  ca <- cds_acs(geography = "county",
                variables = c(housing_units = "B25001_001"),
                state = "CA",
                year = 2022)
  raw <- raw_get("/v1/data", list(variables = "B25001_001E", geo = "county:06*", vintage = 2022))
  expect_equal(nrow(ca), 58)
  expect_true(all(ca$variable == "housing_units"))
  expect_same_cells(transform(ca, variable = census_code), raw$body$data)
  expect_false(anyNA(ca$estimate))
  # unnamed codes come back as tidycensus names them (no E suffix); wide gives E/M columns
  plain <- cds_acs(geography = "county", variables = "B25001_001", state = "CA", county = "Alameda", year = 2022)
  expect_identical(plain$variable, "B25001_001")
  expect_identical(plain$estimate, ca$estimate[ca$GEOID == "06001"])
  wide <- cds_acs(geography = "county", variables = "B25001_001", state = "CA", year = 2022, output = "wide")
  expect_identical(names(wide), c("GEOID", "NAME", "B25001_001E", "B25001_001M"))
  m95 <- cds_acs(geography = "county", variables = "B25001_001", state = "CA", county = "Alameda", year = 2022, moe_level = 95)
  expect_equal(m95$moe, plain$moe * 1.96 / 1.645)
})

test_that("geometry = TRUE gives an sf object joined on /v1/boundaries", {
  skip_without_server()
  skip_if_not_installed("sf")
  ca <- cds_data("B25001_001E", "county:06*", vintage = 2022, geometry = TRUE)
  expect_s3_class(ca, "sf")
  expect_equal(nrow(ca), 58)
  expect_false(any(sf::st_is_empty(ca)))
  shapes <- raw_get("/v1/boundaries/county", list(within = "state:06", vintage = 2022))
  expect_equal(shapes$status, 200)
  keys <- vapply(shapes$body$features, function(f) f$properties$geo_key, character(1))
  expect_setequal(ca$geo_key, keys)
  # each row carries its own county's shape: the Alameda row's box is the Alameda feature's box
  ala <- shapes$body$features[[which(keys == "county:06001")]]
  coords <- matrix(unlist(ala$geometry$coordinates), ncol = 2, byrow = TRUE)
  box <- sf::st_bbox(ca[ca$GEOID == "06001", ])
  expect_equal(unname(c(box["xmin"], box["xmax"])), range(coords[, 1]), tolerance = 1e-9)
  expect_equal(unname(c(box["ymin"], box["ymax"])), range(coords[, 2]), tolerance = 1e-9)
  # a region row has no shape
  mixed <- cds_data("B17001_002E", c("state:06", "region(state:41,state:53)"), dataset = "acs1", vintage = 2018, geometry = TRUE)
  expect_identical(as.vector(sf::st_is_empty(mixed)), c(FALSE, TRUE))
})
