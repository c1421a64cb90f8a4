# Building, sending and checking requests: the one place the package talks HTTP.
#
# Every call goes through cds_fetch(): the key (X-API-Key) or sign-in token (Bearer), the
# retry policy (httr2::req_retry with our own is_transient/after, so a 429 waits exactly what
# the server said), a wait before sending when the last answer said a window is spent, and
# problem+json answers turned into classed conditions (errors.R).

`%||%` <- function(a, b) if (is.null(a)) b else a

# Where the package keeps the last RateLimit state seen per server and key (ratelimit.R).
.cds_state <- new.env(parent = emptyenv())

cds_base_url <- function(base_url = NULL) {
  url <- base_url %||% Sys.getenv("CDS_BASE_URL", "")
  if (!nzchar(url)) {
    cds_abort_config("No server address: pass `base_url =` or set the CDS_BASE_URL environment variable.")
  }
  sub("/+$", "", url)
}

cds_api_key <- function(key = NULL) {
  key <- key %||% Sys.getenv("CDS_API_KEY", "")
  if (!nzchar(key)) {
    cds_abort_config("No API key: pass `key =` or set the CDS_API_KEY environment variable.")
  }
  key
}

cds_token <- function(token = NULL) {
  token <- token %||% Sys.getenv("CDS_TOKEN", "")
  if (!nzchar(token)) {
    cds_abort_config(paste(
      "Account endpoints take a sign-in token, not an API key: pass `token =` or set CDS_TOKEN",
      "(the dashboard's sign-in token, sent as Authorization: Bearer)."
    ))
  }
  token
}

# Drops NULL and NA members, collapses vectors with `sep` (variables with ",", geographies with
# ";" because names contain commas), and writes logicals as true/false.
cds_query <- function(...) {
  q <- list(...)
  q <- q[!vapply(q, function(v) is.null(v) || (length(v) == 1 && is.na(v)), logical(1))]
  lapply(q, function(v) {
    if (is.logical(v)) return(if (isTRUE(v)) "true" else "false")
    as.character(v)
  })
}

cds_path_segment <- function(x) utils::URLencode(as.character(x), reserved = TRUE)

cds_request <- function(path, query = list(), base_url = NULL, key = NULL, token = NULL,
                        method = "GET", body = NULL, auth = c("key", "token", "none")) {
  auth <- match.arg(auth)
  base <- cds_base_url(base_url)
  req <- httr2::request(paste0(base, path))
  if (length(query)) req <- do.call(httr2::req_url_query, c(list(req), query))
  credential <- switch(auth,
    key = cds_api_key(key),
    token = cds_token(token),
    none = NULL
  )
  if (auth == "key") req <- httr2::req_headers(req, `X-API-Key` = credential)
  if (auth == "token") req <- httr2::req_headers(req, Authorization = paste("Bearer", credential))
  if (method != "GET") req <- httr2::req_method(req, method)
  if (!is.null(body)) req <- httr2::req_body_json(req, body, auto_unbox = TRUE, null = "null")
  req <- httr2::req_user_agent(req, paste0("censusdataservice/", cds_version(), " (R)"))
  req <- httr2::req_error(req, is_error = function(resp) FALSE)
  # httr2 0.2.2 (Debian bookworm) sleeps after every transient answer, the last one included,
  # before it checks max_tries: so the count is kept here and the last answer is never called
  # transient (no wait that no retry follows; with cds.max_tries = 1, no wait at all).
  max_tries <- getOption("cds.max_tries", 4)
  answers <- 0
  req <- httr2::req_retry(req,
    max_tries = max_tries,
    is_transient = function(resp) {
      answers <<- answers + 1
      answers < max_tries && cds_is_transient(resp)
    },
    after = cds_retry_after
  )
  attr(req, "cds_limit_id") <- paste(base, credential %||% "")
  req
}

cds_version <- function() {
  tryCatch(as.character(utils::packageVersion("censusdataservice")), error = function(e) "dev")
}

# Sends the request and returns the httr2 response, or raises a cds_error condition.
cds_perform <- function(req) {
  limit_id <- attr(req, "cds_limit_id")
  cds_wait_for_window(limit_id)
  resp <- httr2::req_perform(req)
  cds_remember_limits(limit_id, resp)
  if (httr2::resp_status(resp) >= 400) cds_abort_response(resp)
  resp
}

cds_json <- function(resp) {
  jsonlite::fromJSON(httr2::resp_body_string(resp, encoding = "UTF-8"), simplifyVector = FALSE)
}

# One enveloped answer: list(data, meta, links).
cds_fetch <- function(path, query = list(), ...) {
  cds_json(cds_perform(cds_request(path, query, ...)))
}

# A list endpoint, following links.next while `all` asks for every page; a text progress bar
# shows the pages when there are more than one (interactive sessions only).
cds_fetch_pages <- function(path, query = list(), all = FALSE, ...) {
  first <- cds_fetch(path, query, ...)
  items <- first$data
  nxt <- first$links$`next`
  total <- first$meta$total_count
  bar <- NULL
  if (isTRUE(all) && !is.null(nxt) && interactive() && is.numeric(total) && total > 0) {
    bar <- utils::txtProgressBar(min = 0, max = total, style = 3)
    on.exit(close(bar), add = TRUE)
  }
  while (isTRUE(all) && !is.null(nxt)) {
    req <- cds_request("", list(), ...)
    req <- httr2::req_url(req, nxt)
    page <- cds_json(cds_perform(req))
    items <- c(items, page$data)
    nxt <- page$links$`next`
    if (!is.null(bar)) utils::setTxtProgressBar(bar, length(items))
  }
  list(data = items, meta = first$meta, links = first$links)
}
