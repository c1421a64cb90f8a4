# The RateLimit and RateLimit-Policy headers (draft-ietf-httpapi-ratelimit-headers) and the
# retry policy built on them.
#
# The service sends, on every keyed response:
#   RateLimit-Policy: "monthly";q=1000;w=2592000, "burst";q=60;w=60, "concurrency";q=2;qu="concurrent-requests"
#   RateLimit: "monthly";r=993;t=1209600, "burst";r=59;t=42, "concurrency";r=1
# and Retry-After (seconds) on 429.

#' Parse RateLimit headers
#'
#' Reads the `RateLimit` and `RateLimit-Policy` header values of a response into one row per
#' policy.
#'
#' @param ratelimit The `RateLimit` header value (remaining `r`, seconds to reset `t`).
#' @param policy The `RateLimit-Policy` header value (quota `q`, window `w`, unit `qu`).
#' @return A tibble with columns `policy`, `quota`, `window`, `remaining`, `reset`, `unit`.
#' @examples
#' cds_parse_rate_limit(
#'   '"monthly";r=993;t=1209600, "burst";r=0;t=42, "concurrency";r=1',
#'   '"monthly";q=1000;w=2592000, "burst";q=60;w=60, "concurrency";q=2;qu="concurrent-requests"'
#' )
#' @export
cds_parse_rate_limit <- function(ratelimit = NULL, policy = NULL) {
  state <- cds_parse_sf_list(ratelimit)
  pol <- cds_parse_sf_list(policy)
  names_all <- unique(c(names(pol), names(state)))
  num <- function(x) if (is.null(x)) NA_real_ else suppressWarnings(as.numeric(x))
  tibble::tibble(
    policy = names_all,
    quota = vapply(names_all, function(n) num(pol[[n]]$q), numeric(1), USE.NAMES = FALSE),
    window = vapply(names_all, function(n) num(pol[[n]]$w), numeric(1), USE.NAMES = FALSE),
    remaining = vapply(names_all, function(n) num(state[[n]]$r), numeric(1), USE.NAMES = FALSE),
    reset = vapply(names_all, function(n) num(state[[n]]$t), numeric(1), USE.NAMES = FALSE),
    unit = vapply(names_all, function(n) pol[[n]]$qu %||% NA_character_, character(1), USE.NAMES = FALSE)
  )
}

# A Structured Field list of items with parameters -> named list of parameter lists. Members that
# do not parse are skipped.
cds_parse_sf_list <- function(header) {
  out <- list()
  if (is.null(header) || !nzchar(header)) return(out)
  members <- regmatches(header, gregexpr('("[^"]*"|[^,"])+', header))[[1]]
  for (m in members) {
    parts <- regmatches(m, gregexpr('("[^"]*"|[^;"])+', m))[[1]]
    parts <- trimws(parts)
    if (!length(parts) || !nzchar(parts[1])) next
    name <- gsub('^"|"$', "", parts[1])
    params <- list()
    for (p in parts[-1]) {
      kv <- regmatches(p, regexpr("=", p), invert = TRUE)[[1]]
      key <- trimws(kv[1])
      params[[key]] <- if (length(kv) > 1) gsub('^"|"$', "", trimws(kv[2])) else "true"
    }
    out[[name]] <- params
  }
  out
}

# Seconds until the longest exhausted windowed policy resets (r=0 with a t), else NA.
# Concurrency has no window: its slots free when requests finish.
cds_exhausted_wait <- function(resp) {
  lim <- cds_parse_rate_limit(httr2::resp_header(resp, "RateLimit"), NULL)
  spent <- lim[!is.na(lim$remaining) & lim$remaining <= 0 & !is.na(lim$reset), ]
  if (nrow(spent)) max(spent$reset) else NA_real_
}

# How long the server told us to wait: Retry-After, else the RateLimit reset of a spent window.
cds_wait_of <- function(resp) {
  wait <- httr2::resp_retry_after(resp)
  if (is.na(wait)) wait <- cds_exhausted_wait(resp)
  wait
}

# 429 burst/concurrency and 503 are worth retrying; a monthly quota (Retry-After of days) or a
# wait longer than getOption("cds.max_wait", 120) seconds is raised at once instead.
cds_is_transient <- function(resp) {
  status <- httr2::resp_status(resp)
  if (status == 503) return(TRUE)
  if (status != 429) return(FALSE)
  problem <- cds_problem_of(resp)
  if (identical(problem$limit_type, "monthly")) return(FALSE)
  wait <- cds_wait_of(resp)
  is.na(wait) || wait <= getOption("cds.max_wait", 120)
}

# The wait before the next try, announced as a "cds_retry" message (suppressMessages() hides it).
cds_retry_after <- function(resp) {
  wait <- cds_wait_of(resp)
  status <- httr2::resp_status(resp)
  problem <- cds_problem_of(resp)
  what <- if (status == 429) paste0("rate limit (", problem$limit_type %||% "unknown", ")") else paste0("HTTP ", status)
  shown <- if (is.na(wait)) "with backoff" else sprintf("%s s as the server told", format(wait))
  message(structure(
    class = c("cds_retry", "message", "condition"),
    list(
      message = sprintf("censusdataservice: %s; retrying after %s.\n", what, shown),
      call = NULL, status = status, wait = wait, limit_type = problem$limit_type
    )
  ))
  wait
}

cds_remember_limits <- function(id, resp) {
  if (is.null(id)) return(invisible())
  header <- httr2::resp_header(resp, "RateLimit")
  if (is.null(header)) return(invisible())
  lim <- cds_parse_rate_limit(header, httr2::resp_header(resp, "RateLimit-Policy"))
  lim$reset_at <- Sys.time() + ifelse(is.na(lim$reset), 0, lim$reset)
  assign(id, lim, envir = .cds_state)
  invisible()
}

# Before sending: when the last answer said the burst window is spent, wait for its reset
# instead of spending a request on a 429. A spent monthly quota is left to the server to refuse.
cds_wait_for_window <- function(id) {
  if (is.null(id) || !exists(id, envir = .cds_state, inherits = FALSE)) return(invisible())
  lim <- get(id, envir = .cds_state, inherits = FALSE)
  spent <- lim[lim$policy == "burst" & !is.na(lim$remaining) & lim$remaining <= 0, ]
  if (!nrow(spent)) return(invisible())
  wait <- as.numeric(difftime(max(spent$reset_at), Sys.time(), units = "secs"))
  if (wait > 0 && wait <= getOption("cds.max_wait", 120)) {
    message(structure(
      class = c("cds_retry", "message", "condition"),
      list(
        message = sprintf("censusdataservice: burst window spent; waiting %.1f s for it to reset (RateLimit).\n", wait),
        call = NULL, status = NA_integer_, wait = wait, limit_type = "burst"
      )
    ))
    Sys.sleep(wait)
  }
  invisible()
}

#' Rate-limit state of the last answer
#'
#' The `RateLimit` and `RateLimit-Policy` headers of the last answer received from a server with
#' a key, parsed (see [cds_parse_rate_limit()]).
#'
#' @inheritParams cds_data
#' @return A tibble, one row per policy (`monthly`, `burst`, `concurrency`), or `NULL` when no
#'   answer has been received yet.
#' @export
cds_rate_limit <- function(base_url = NULL, key = NULL) {
  id <- paste(cds_base_url(base_url), cds_api_key(key))
  if (!exists(id, envir = .cds_state, inherits = FALSE)) return(NULL)
  get(id, envir = .cds_state, inherits = FALSE)
}

# Forgets the RateLimit state seen so far (tests use it to start from a client that has not yet
# seen the spent window, so that its first answer is the 429).
cds_forget_limits <- function() {
  rm(list = ls(envir = .cds_state, all.names = TRUE), envir = .cds_state)
  invisible()
}
