# A Free key past its per-minute burst: the client waits as the 429 told (Retry-After) and
# retries, instead of failing. CDS_FREE_KEY is a Free key; test/clients/r.test.ts spends its
# burst just before running this file on its own (with the server's clock set so the minute
# window ends some seconds later); run alone, the file spends it itself.

spend_burst <- function(free) {
  for (i in seq_len(200)) {
    r <- raw_get("/v1/topics", key = free)
    if (r$status == 429) return(r)
  }
  NULL
}

test_that("without retries a 429 is a classed condition carrying the problem and the wait", {
  skip_without_server()
  free <- Sys.getenv("CDS_FREE_KEY")
  skip_if(!nzchar(free), "no Free key: set CDS_FREE_KEY (test/clients/r.test.ts does)")
  expect_false(is.null(spend_burst(free)))
  old <- options(cds.max_tries = 1)
  on.exit(options(old), add = TRUE)
  err <- tryCatch(cds_topics(key = free), cds_error = function(e) e)
  expect_s3_class(err, c("cds_error_rate_limit_exceeded", "cds_error_429", "cds_error"))
  expect_identical(err$problem$limit_type, "burst")
  expect_identical(err$problem$plan, "free")
  expect_true(err$retry_after >= 1 && err$retry_after <= 60)
})

test_that("a Free key past its burst gets a retry that waits as told", {
  skip_without_server()
  free <- Sys.getenv("CDS_FREE_KEY")
  skip_if(!nzchar(free), "no Free key: set CDS_FREE_KEY (test/clients/r.test.ts does)")
  spent <- spend_burst(free)
  expect_false(is.null(spent))
  expect_identical(spent$body$limit_type, "burst")
  told <- as.numeric(spent$headers[["retry-after"]])
  expect_true(told >= 1 && told <= 60)

  # a client that has not seen the spent window (the test above left it the 429's RateLimit
  # header, which would make it wait before sending instead): its first answer is the 429
  censusdataservice:::cds_forget_limits()
  retries <- list()
  started <- Sys.time()
  out <- withCallingHandlers(
    cds_data("core_median_household_income", "state:06", dataset = "acs1", vintage = 2018, key = free),
    cds_retry = function(m) {
      retries[[length(retries) + 1]] <<- m
      invokeRestart("muffleMessage")
    }
  )
  waited <- as.numeric(difftime(Sys.time(), started, units = "secs"))
  expect_identical(out$estimate, 75277)
  expect_gte(length(retries), 1)
  expect_identical(retries[[1]]$status, 429L)
  expect_identical(retries[[1]]$limit_type, "burst")
  # the wait announced is the one the server told (a second or two may pass between the 429s)
  expect_true(retries[[1]]$wait <= told && retries[[1]]$wait >= told - 3)
  expect_gte(waited, retries[[1]]$wait - 0.5)
})
