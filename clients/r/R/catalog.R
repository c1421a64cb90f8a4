# The catalog: variables, tables, datasets and topics.

#' Search the variables
#'
#' Calls `GET /v1/variables` (search the curated catalog and its topics), or
#' `GET /v1/variables/{api_name}` for one variable's definition.
#'
#' @param search Words to search labels and names for.
#' @param topic A topic key (see [cds_topics()]).
#' @param api_name One variable's catalog name, instead of a search.
#' @inheritParams cds_geographies
#' @return A tibble, one row per variable; tables matching the search are in
#'   `attr(x, "meta")$matching_tables`.
#' @examples
#' \dontrun{
#' cds_variables("median household income")
#' }
#' @export
cds_variables <- function(search = NULL, topic = NULL, api_name = NULL, limit = NULL, offset = NULL,
                          all = FALSE, base_url = NULL, key = NULL) {
  if (!is.null(api_name)) {
    body <- cds_fetch(paste0("/v1/variables/", cds_path_segment(api_name)), list(), base_url = base_url, key = key)
    return(cds_records(list(body$data), body$meta))
  }
  body <- cds_fetch_pages("/v1/variables", cds_query(search = search, topic = topic, limit = limit, offset = offset),
    all = all, base_url = base_url, key = key
  )
  cds_records(body$data, body$meta)
}

#' Search the Detailed Tables, or read one table's columns
#'
#' Calls `GET /v1/tables` (search by title), or `GET /v1/tables/{table_id}` for one table as
#' published in a dataset and vintage.
#'
#' @param search Words to search table titles for.
#' @param table_id A table (`"B19013"`), instead of a search.
#' @param dataset,vintage Which publication of `table_id` to describe.
#' @inheritParams cds_geographies
#' @return A tibble: one row per table for a search; for `table_id`, one row per column (`code`,
#'   `label`, `indent`) with the table's title and universe in `attr(x, "table")`.
#' @examples
#' \dontrun{
#' cds_tables("poverty")
#' cds_tables(table_id = "B19013", dataset = "acs1", vintage = 2018)
#' }
#' @export
cds_tables <- function(search = NULL, table_id = NULL, dataset = NULL, vintage = NULL, limit = NULL,
                       offset = NULL, all = FALSE, base_url = NULL, key = NULL) {
  if (!is.null(table_id)) {
    body <- cds_fetch(paste0("/v1/tables/", cds_path_segment(table_id)), cds_query(dataset = dataset, vintage = vintage),
      base_url = base_url, key = key
    )
    out <- cds_records(body$data$columns, body$meta)
    body$data$columns <- NULL
    attr(out, "table") <- body$data
    return(out)
  }
  body <- cds_fetch_pages("/v1/tables", cds_query(search = search, limit = limit, offset = offset),
    all = all, base_url = base_url, key = key
  )
  cds_records(body$data, body$meta)
}

#' Datasets served
#'
#' Calls `GET /v1/datasets`: each dataset with its vintages, default vintage and the vintages
#' this deployment holds values for, per level.
#'
#' @inheritParams cds_data
#' @return A tibble, one row per dataset.
#' @export
cds_datasets <- function(base_url = NULL, key = NULL) {
  body <- cds_fetch("/v1/datasets", list(), base_url = base_url, key = key)
  cds_records(body$data, body$meta)
}

#' Topics of the catalog
#'
#' Calls `GET /v1/topics`.
#'
#' @inheritParams cds_data
#' @return A tibble, one row per topic (`topic_key`, `label`, `depth`, `variable_count`).
#' @export
cds_topics <- function(base_url = NULL, key = NULL) {
  body <- cds_fetch("/v1/topics", list(), base_url = base_url, key = key)
  cds_records(body$data, body$meta)
}
