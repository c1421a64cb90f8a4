# Helpers for the tests against a running service. The "plain HTTP" side builds its URL by hand
# and sends it with httr2 directly (no client code), as curl would.

skip_without_server <- function() {
  if (!nzchar(Sys.getenv("CDS_BASE_URL")) || !nzchar(Sys.getenv("CDS_API_KEY"))) {
    skip("no server: set CDS_BASE_URL and CDS_API_KEY (test/clients/r.test.ts starts one)")
  }
}

`%||%` <- function(a, b) if (is.null(a)) b else a

raw_get <- function(path, query = list(), key = Sys.getenv("CDS_API_KEY")) {
  enc <- vapply(query, function(v) utils::URLencode(as.character(v), reserved = TRUE), character(1))
  qs <- if (length(query)) paste0("?", paste(names(query), enc, sep = "=", collapse = "&")) else ""
  req <- httr2::request(paste0(Sys.getenv("CDS_BASE_URL"), path, qs))
  req <- httr2::req_headers(req, `X-API-Key` = key)
  req <- httr2::req_error(req, is_error = function(resp) FALSE)
  # one request, its answer as it comes: httr2 would otherwise sleep out a 429's Retry-After
  req <- httr2::req_retry(req, max_tries = 1, is_transient = function(resp) FALSE)
  resp <- httr2::req_perform(req)
  text <- httr2::resp_body_string(resp, encoding = "UTF-8")
  list(
    status = httr2::resp_status(resp),
    headers = httr2::resp_headers(resp),
    text = text,
    body = tryCatch(jsonlite::fromJSON(text, simplifyVector = FALSE), error = function(e) NULL)
  )
}

num_or_na <- function(x) if (is.null(x)) NA_real_ else as.numeric(x)

# Every cell of the plain answer has a row of the client's tibble with the same geography,
# variable (and vintage) and identical numbers; and the client has no other rows.
expect_same_cells <- function(client, cells, fields = c(estimate = "estimate", moe = "moe_numeric")) {
  expect_gt(length(cells), 0)
  expect_equal(nrow(client), length(cells))
  for (cell in cells) {
    hit <- which(client$geo_key == cell$geo_key & client$variable == cell$variable &
      client$vintage == cell$vintage)
    expect_length(hit, 1)
    expect_identical(client$GEOID[hit], cds_geoid(cell$geo_key))
    expect_identical(client$NAME[hit], cell$geo_name)
    for (col in names(fields)) {
      path <- strsplit(fields[[col]], "$", fixed = TRUE)[[1]]
      v <- cell
      for (p in path) v <- if (is.list(v)) v[[p]] else NULL
      expect_identical(client[[col]][hit], num_or_na(v), label = paste(cell$geo_key, cell$variable, col))
    }
  }
}
