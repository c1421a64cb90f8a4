# Problems (RFC 9457 problem+json) as R conditions.
#
# Every error answer of /v1 is a problem body: type, title, status, detail, instance,
# request_id, errors (field-level validation errors) and extensions such as
# unknown_variables, suggestions, limit_type or upgrade_url. It is raised as a condition of
# classes c("cds_error_<type>", "cds_error_<status>", "cds_error", "error", "condition"), so
# callers catch exactly what they can handle:
#
#   tryCatch(cds_data(...), cds_error_404 = function(e) ..., cds_error = function(e) ...)

cds_type_slug <- function(type) {
  slug <- sub(".*/", "", type %||% "")
  gsub("[^A-Za-z0-9]+", "_", slug)
}

cds_problem_of <- function(resp) {
  text <- tryCatch(httr2::resp_body_string(resp, encoding = "UTF-8"), error = function(e) "")
  body <- tryCatch(jsonlite::fromJSON(text, simplifyVector = FALSE), error = function(e) NULL)
  if (!is.list(body) || is.null(names(body))) {
    body <- list(
      type = "about:blank", title = httr2::resp_status_desc(resp),
      status = httr2::resp_status(resp), detail = substr(text, 1, 500)
    )
  }
  body
}

cds_error_condition <- function(problem, status, retry_after = NA_real_, call = NULL) {
  slug <- cds_type_slug(problem$type)
  title <- problem$title %||% "Request failed"
  detail <- problem$detail %||% ""
  msg <- sprintf("%s (HTTP %s): %s", title, status, detail)
  errs <- problem$errors
  if (length(errs)) {
    lines <- vapply(errs, function(e) {
      paste0("* ", e$field %||% "", ": ", e$message %||% "", if (!is.null(e$type)) paste0(" [", e$type, "]") else "")
    }, character(1))
    msg <- paste(c(msg, lines), collapse = "\n")
  }
  classes <- unique(c(
    if (nzchar(slug) && slug != "blank") paste0("cds_error_", slug),
    paste0("cds_error_", status), "cds_error", "error", "condition"
  ))
  structure(
    class = classes,
    list(
      message = msg, call = call, status = status,
      type = problem$type, title = problem$title, detail = problem$detail,
      errors = errs, instance = problem$instance, request_id = problem$request_id,
      retry_after = retry_after, problem = problem
    )
  )
}

cds_abort_response <- function(resp) {
  problem <- cds_problem_of(resp)
  wait <- httr2::resp_retry_after(resp)
  stop(cds_error_condition(problem, httr2::resp_status(resp), retry_after = wait))
}

cds_abort_config <- function(message) {
  stop(structure(
    class = c("cds_config_error", "cds_error", "error", "condition"),
    list(message = message, call = NULL)
  ))
}

#' @export
conditionMessage.cds_error <- function(c) c$message
