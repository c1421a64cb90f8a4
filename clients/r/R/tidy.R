# Cells of /v1/data, /v1/compare and /v1/timeseries as tibbles in tidycensus's long shape.
#
# One row per geography x variable (x vintage): GEOID, NAME, variable, estimate, moe first, then
# everything else the cell holds, nested objects flattened (the same names as the Python client):
# - estimate_annotation / moe_annotation: the annotation code saying why a value is null, its
#   text in ..._meaning and its symbol in ..._symbol;
# - dollars=: dollars_adjusted, dollars_factor, source_year, target_year, source_index,
#   target_index, dollars_index, dollars_reason;
# - compare_to= (the cell's `change`): base_vintage, base_estimate, base_moe, difference,
#   difference_moe, percent_change, percent_change_moe, significant, not_tested_reason,
#   not_tested_detail;
# - /v1/compare's comparison with the first geography: reference_geo_key, comparison_difference,
#   comparison_difference_moe, comparison_significant, comparison_not_tested_reason.

cds_leading <- c("GEOID", "NAME", "variable", "estimate", "moe")

cds_dollars_cols <- c(
  adjusted = "dollars_adjusted", factor = "dollars_factor", source_year = "source_year",
  target_year = "target_year", source_index = "source_index", target_index = "target_index",
  index = "dollars_index", reason = "dollars_reason"
)
cds_change_cols <- c(
  "base_vintage", "base_estimate", "base_moe", "difference", "difference_moe", "percent_change",
  "percent_change_moe", "significant", "not_tested_reason", "not_tested_detail"
)
cds_comparison_cols <- c(
  reference_geo_key = "reference_geo_key", difference = "comparison_difference",
  difference_moe = "comparison_difference_moe", significant = "comparison_significant",
  not_tested_reason = "comparison_not_tested_reason"
)
# Always numbers (NA for null), even when every value of the column is null.
cds_numeric_cols <- c(
  "estimate", "moe", "base_estimate", "base_moe", "difference", "difference_moe", "percent_change",
  "percent_change_moe", "comparison_difference", "comparison_difference_moe", "dollars_factor",
  "source_index", "target_index", "vintage", "source_year", "target_year", "base_vintage"
)
cds_logical_cols <- c("significant", "comparison_significant", "dollars_adjusted")

#' GEOID of a geography key
#'
#' `state:06` gives `06` and `county:06037` gives `06037` (the FIPS code tidycensus calls
#' GEOID); a region keeps its whole key (`region:bay-area`, `region(county:06001,...)`).
#'
#' @param geo_key Geography keys as the service writes them.
#' @return A character vector.
#' @examples
#' cds_geoid(c("state:06", "county:06037", "nation:1", "region:bay-area"))
#' @export
cds_geoid <- function(geo_key) {
  geo_key <- as.character(geo_key)
  ifelse(grepl("^region", geo_key) | !grepl(":", geo_key), geo_key, sub("^[^:]*:", "", geo_key))
}

cds_scalar <- function(v) {
  if (is.null(v)) return(NA)
  if (is.list(v)) {
    flat <- unlist(v, use.names = FALSE)
    return(list(if (is.null(flat)) character(0) else flat))
  }
  v
}

cds_flatten_cell <- function(cell) {
  row <- list(
    GEOID = cds_geoid(cell$geo_key %||% NA_character_),
    NAME = cell$geo_name %||% NA_character_,
    variable = cell$variable %||% NA_character_,
    estimate = cell$estimate %||% NA_real_,
    moe = cell$moe_numeric %||% NA_real_
  )
  for (k in names(cell)) {
    v <- cell[[k]]
    if (k %in% c("geo_name", "estimate", "moe_numeric", "variable", "geometry")) next
    if (k %in% c("estimate_annotation", "moe_annotation")) {
      row[[k]] <- v$code %||% NA_character_
      row[[paste0(k, "_symbol")]] <- v$symbol %||% NA_character_
      row[[paste0(k, "_meaning")]] <- v$meaning %||% NA_character_
    } else if (k == "dollars") {
      for (src in names(cds_dollars_cols)) row[[cds_dollars_cols[[src]]]] <- cds_scalar(v[[src]])
    } else if (k == "change") {
      for (name in cds_change_cols) row[[name]] <- cds_scalar(v[[name]])
    } else if (k == "comparison") {
      for (src in names(cds_comparison_cols)) row[[cds_comparison_cols[[src]]]] <- cds_scalar(v[[src]])
    } else if (is.list(v) && !is.null(names(v))) {
      for (k2 in names(v)) row[[paste0(k, "_", k2)]] <- cds_scalar(v[[k2]])
    } else {
      row[[k]] <- cds_scalar(v)
    }
  }
  row
}

# Rows (named lists) -> tibble: columns in first-seen order, NA where a row lacks one, atomic
# columns where every value is a scalar, list-columns for arrays.
cds_rows_to_tibble <- function(rows, leading = character(0)) {
  cols <- unique(c(leading, unlist(lapply(rows, names), use.names = FALSE)))
  out <- lapply(cols, function(col) {
    vals <- lapply(rows, function(r) if (is.null(r[[col]])) NA else r[[col]])
    if (any(vapply(vals, is.list, logical(1)))) {
      return(lapply(vals, function(v) if (is.list(v)) v[[1]] else v))
    }
    v <- unlist(vals, use.names = FALSE)
    if (col %in% cds_numeric_cols) v <- suppressWarnings(as.numeric(v))
    if (col %in% cds_logical_cols) v <- as.logical(v)
    if (is.null(v)) v <- logical(0)
    v
  })
  names(out) <- cols
  tibble::as_tibble(out)
}

cds_cells <- function(cells, meta = NULL) {
  rows <- lapply(cells, cds_flatten_cell)
  if (!length(rows)) {
    empty <- tibble::tibble(
      GEOID = character(0), NAME = character(0), variable = character(0),
      estimate = numeric(0), moe = numeric(0)
    )
    attr(empty, "meta") <- meta
    return(empty)
  }
  out <- cds_rows_to_tibble(rows, cds_leading)
  attr(out, "meta") <- meta
  out
}

# Catalog and geography lists: one row per item, nested objects flattened as outer_inner.
cds_records <- function(items, meta = NULL) {
  rows <- lapply(items, function(item) {
    row <- list()
    for (k in names(item)) {
      v <- item[[k]]
      if (is.list(v) && !is.null(names(v))) {
        for (k2 in names(v)) row[[paste0(k, "_", k2)]] <- cds_scalar(v[[k2]])
      } else {
        row[[k]] <- cds_scalar(v)
      }
    }
    row
  })
  out <- if (length(rows)) cds_rows_to_tibble(rows) else tibble::tibble()
  attr(out, "meta") <- meta
  out
}

# "B19013_001E" -> "B19013_001"; other names are kept (tidycensus's wide names: stem + E / M).
cds_stem <- function(variable) {
  ifelse(grepl("^[A-Z][0-9A-Z]*_[0-9]{3}[EM]$", variable), sub("[EM]$", "", variable), variable)
}

#' Long to wide, as tidycensus's output = "wide"
#'
#' One row per geography (and vintage when there are several), a `<name>E` and `<name>M`
#' column per variable, where `<name>` is a census code without its `E` (`B19013_001E` gives
#' `B19013_001E` and `B19013_001M`) or the name asked for.
#'
#' @param data A long tibble from [cds_data()], [cds_compare()] or [cds_timeseries()].
#' @return A tibble.
#' @export
cds_wide <- function(data) {
  by <- c("GEOID", "NAME")
  if ("vintage" %in% names(data) && length(unique(stats::na.omit(data$vintage))) > 1) by <- c(by, "vintage")
  id <- do.call(paste, c(unname(as.list(data[by])), sep = "\r"))
  keep <- !duplicated(id)
  out <- data[keep, by]
  stems <- cds_stem(data$variable)
  for (s in unique(stems)) {
    sel <- stems == s
    at <- match(id[keep], id[sel])
    out[[paste0(s, "E")]] <- data$estimate[sel][at]
    out[[paste0(s, "M")]] <- data$moe[sel][at]
  }
  attr(out, "meta") <- attr(data, "meta")
  out
}
