# Geographies, geocoding and boundaries.

#' Search or list geographies, or a geography's children
#'
#' Calls `GET /v1/geographies` (search by name, filter by type and parent), or
#' `GET /v1/geographies/{geo_key}/children` when `children_of` is given.
#'
#' @param search Text to search names for (`"Travis"`).
#' @param type A geography type (`state`, `county`, `metro`, `cd`, `tract`, `block_group`).
#' @param parent A parent key to list within (`state:48`).
#' @param children_of A geography key whose children of `type` to list.
#' @param vintage The ACS vintage whose definitions to use.
#' @param limit,offset Page size and start.
#' @param all `TRUE` to follow every page.
#' @inheritParams cds_data
#' @return A tibble, one row per geography, with `GEOID` added beside `geo_key`.
#' @examples
#' \dontrun{
#' cds_geographies(search = "Travis")
#' cds_geographies(children_of = "state:06", type = "county", all = TRUE)
#' }
#' @export
cds_geographies <- function(search = NULL, type = NULL, parent = NULL, children_of = NULL,
                            vintage = NULL, limit = NULL, offset = NULL, all = FALSE,
                            base_url = NULL, key = NULL) {
  if (!is.null(children_of)) {
    if (is.null(type)) stop("`children_of` needs `type` (the children's geography type).", call. = FALSE)
    path <- paste0("/v1/geographies/", cds_path_segment(children_of), "/children")
    query <- cds_query(type = type, vintage = vintage, limit = limit, offset = offset)
  } else {
    path <- "/v1/geographies"
    query <- cds_query(search = search, type = type, parent = parent, vintage = vintage, limit = limit, offset = offset)
  }
  body <- cds_fetch_pages(path, query, all = all, base_url = base_url, key = key)
  out <- cds_records(body$data, body$meta)
  if (nrow(out) && "geo_key" %in% names(out)) out <- tibble::add_column(out, GEOID = cds_geoid(out$geo_key), .after = "geo_key")
  out
}

#' Geographies at a point or an address
#'
#' Calls `GET /v1/geocode`: the nation, state, county, metro, congressional district, tract and
#' block group holding a point (`lat`, `lng`) or an address.
#'
#' @param lat,lng Latitude and longitude (WGS84).
#' @param address A one-line address, instead of a point.
#' @inheritParams cds_data
#' @return A tibble, one row per level: `level`, `geo_key`, `GEOID`, `NAME`, `method`,
#'   `boundary_vintage`, `source`, `approximate`, `reason` (why a level has no geography); the
#'   answer's `status` and `input` are in `attr(x, "geocode")`.
#' @examples
#' \dontrun{
#' cds_geocode(lat = 30.2672, lng = -97.7431)
#' }
#' @export
cds_geocode <- function(lat = NULL, lng = NULL, address = NULL, base_url = NULL, key = NULL) {
  body <- cds_fetch("/v1/geocode", cds_query(lat = lat, lng = lng, address = address), base_url = base_url, key = key)
  levels <- body$data$geographies %||% list()
  rows <- lapply(names(levels), function(level) {
    g <- levels[[level]]
    list(
      level = level,
      geo_key = g$key %||% NA_character_,
      GEOID = if (is.null(g$key)) NA_character_ else cds_geoid(g$key),
      NAME = g$name %||% NA_character_,
      method = g$method %||% NA_character_,
      boundary_vintage = g$boundary_vintage %||% NA_character_,
      source = g$source %||% NA_character_,
      approximate = g$approximate %||% NA,
      reason = g$reason %||% NA_character_
    )
  })
  out <- if (length(rows)) cds_rows_to_tibble(rows) else tibble::tibble(level = character(0), geo_key = character(0))
  attr(out, "geocode") <- list(status = body$data$status, reason = body$data$reason, input = body$data$input)
  attr(out, "meta") <- body$meta
  out
}

#' Boundaries as sf
#'
#' Calls `GET /v1/boundaries/{target}`: one geography's shape (`target = "state:06"`) or every
#' geography of a type (`target = "county"`, optionally `within = "state:06"`), read into an sf
#' object (columns `geo_key`, `geoid`, `name`, `source`, `geometry`).
#'
#' @param target A geography type or a geography key.
#' @param resolution `"20m"` (default), `"5m"` or `"500k"` (by plan).
#' @param edition Boundary edition (county `"2017"`: legacy Connecticut counties).
#' @param vintage ACS vintage whose geography definitions the shapes must have.
#' @param bbox `c(min_lng, min_lat, max_lng, max_lat)`.
#' @param within A parent key whose children to keep (`state:06` for its counties).
#' @param as `"sf"` (needs the sf package) or `"geojson"` (the GeoJSON text).
#' @inheritParams cds_data
#' @return An sf object, or a character string of GeoJSON.
#' @examples
#' \dontrun{
#' ca <- cds_boundaries("county", within = "state:06")
#' plot(ca["name"])
#' }
#' @export
cds_boundaries <- function(target, resolution = NULL, edition = NULL, vintage = NULL, bbox = NULL,
                           within = NULL, as = c("sf", "geojson"), base_url = NULL, key = NULL) {
  as <- match.arg(as)
  query <- cds_query(
    resolution = resolution, edition = edition, vintage = vintage,
    bbox = if (is.null(bbox)) NULL else paste(bbox, collapse = ","), within = within
  )
  resp <- cds_perform(cds_request(paste0("/v1/boundaries/", cds_path_segment(target)), query, base_url = base_url, key = key))
  text <- httr2::resp_body_string(resp, encoding = "UTF-8")
  if (as == "geojson") return(text)
  cds_read_geojson(text)
}

cds_need_sf <- function() {
  if (!requireNamespace("sf", quietly = TRUE)) {
    stop("geometry needs the sf package: install.packages(\"sf\") (Debian: apt-get install r-cran-sf).", call. = FALSE)
  }
}

cds_read_geojson <- function(text) {
  cds_need_sf()
  tmp <- tempfile(fileext = ".geojson")
  on.exit(unlink(tmp), add = TRUE)
  writeLines(text, tmp, useBytes = TRUE)
  shapes <- sf::st_read(tmp, quiet = TRUE, stringsAsFactors = FALSE)
  sf::st_as_sf(tibble::as_tibble(shapes))
}

# The shapes of every geography in a data answer, one boundaries request per level: a single
# geography's feature, the children of one state when they all share it, else the level's whole
# collection. Regions have no shape (empty geometry).
cds_geometry_for <- function(out, base_url = NULL, key = NULL, vintage = NULL) {
  cds_need_sf()
  keys <- unique(out$geo_key)
  keys <- keys[!is.na(keys) & !grepl("^region", keys)]
  types <- unique(sub(":.*", "", keys))
  parts <- lapply(types, function(type) {
    mine <- keys[startsWith(keys, paste0(type, ":"))]
    v <- if (type %in% c("county", "tract", "cd")) vintage else NULL
    fips <- sub("^[^:]*:", "", mine)
    states <- unique(substr(fips, 1, 2))
    shapes <- if (length(mine) == 1) {
      cds_boundaries(mine, vintage = v, base_url = base_url, key = key)
    } else if (type %in% c("county", "tract", "block_group", "cd") && length(states) == 1) {
      cds_boundaries(type, within = paste0("state:", states), vintage = v, base_url = base_url, key = key)
    } else {
      cds_boundaries(type, vintage = v, base_url = base_url, key = key)
    }
    shapes[shapes$geo_key %in% mine, c("geo_key", attr(shapes, "sf_column"))]
  })
  if (!length(parts)) return(NULL)
  do.call(rbind, parts)
}

cds_join_geometry <- function(out, geom) {
  cds_need_sf()
  meta <- attr(out, "meta")
  key <- if ("geo_key" %in% names(out)) out$geo_key else NULL
  if (is.null(key)) {
    # wide output has no geo_key: GEOID plus the level of the shapes
    at <- match(out$GEOID, cds_geoid(geom$geo_key))
  } else {
    at <- match(key, geom$geo_key)
  }
  crs <- if (is.null(geom)) sf::st_crs(4326) else sf::st_crs(geom)
  shapes <- if (is.null(geom)) sf::st_sfc(lapply(seq_len(nrow(out)), function(i) sf::st_multipolygon()), crs = crs) else sf::st_geometry(geom)
  empty <- sf::st_sfc(sf::st_multipolygon(), crs = crs)
  g <- lapply(seq_along(at), function(i) if (is.na(at[i])) empty[[1]] else shapes[[at[i]]])
  out$geometry <- sf::st_sfc(g, crs = crs)
  res <- sf::st_as_sf(out) # keeps the tibble class, as tidycensus's geometry = TRUE does
  attr(res, "meta") <- meta
  res
}
