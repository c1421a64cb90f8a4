# California's counties with geometry = TRUE: an estimate and its MOE (as a coefficient of
# variation) side by side, in base graphics. Usage:
#   Rscript california-counties.R out.png [variable] [vintage]
# with CDS_BASE_URL and CDS_API_KEY set (a plan with county boundaries: Pioneer or above).
library(censusdataservice)

args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args) >= 1) args[1] else "california-counties.png"
variable <- if (length(args) >= 2) args[2] else "B19013_001E"
vintage <- if (length(args) >= 3) as.integer(args[3]) else 2022

ca <- cds_data(variable, "county:06*", vintage = vintage, geometry = TRUE)
ca <- sf::st_transform(ca, 3310) # California Albers
ca$cv <- ca$moe / 1.645 / ca$estimate * 100 # the MOE as a coefficient of variation, %

classes <- function(x, breaks, palette) {
  cols <- hcl.colors(length(breaks) - 1, palette, rev = TRUE)
  list(col = ifelse(is.na(x), "grey85", cols[cut(x, breaks, include.lowest = TRUE)]), cols = cols)
}
est_breaks <- unique(signif(quantile(ca$estimate, seq(0, 1, 0.2), na.rm = TRUE), 2))
est_breaks[1] <- min(est_breaks[1], min(ca$estimate, na.rm = TRUE))
est_breaks[length(est_breaks)] <- max(est_breaks[length(est_breaks)], max(ca$estimate, na.rm = TRUE))
cv_breaks <- c(0, 0.25, 0.5, 1, 2, max(5, ceiling(max(ca$cv, na.rm = TRUE))))
est <- classes(ca$estimate, est_breaks, "YlGnBu")
cv <- classes(ca$cv, cv_breaks, "Reds")
label <- function(b) paste(format(head(b, -1), big.mark = ",", trim = TRUE), "-", format(b[-1], big.mark = ",", trim = TRUE))
meta <- attr(ca, "meta")
what <- if ("table_title" %in% names(ca)) ca$table_title[1] else ca$label[1]
title <- sprintf("%s (%s), %s %s", what, variable, meta$source$dataset, meta$source$reference_period)

png(out, width = 1400, height = 900, res = 110)
par(mfrow = c(1, 2), mar = c(1, 1, 3, 1), oma = c(2, 0, 2, 0))
plot(sf::st_geometry(ca), col = est$col, border = "white", lwd = 0.4, main = "Estimate")
legend("topright", fill = est$cols, legend = label(est_breaks), bty = "n", cex = 0.8)
plot(sf::st_geometry(ca), col = cv$col, border = "white", lwd = 0.4, main = "MOE as a coefficient of variation (%)")
legend("topright", fill = cv$cols, legend = label(cv_breaks), bty = "n", cex = 0.8)
mtext(paste0("California's ", nrow(ca), " counties: ", title), outer = TRUE, cex = 1.1)
mtext("censusdataservice::cds_data(geometry = TRUE); shapes from /v1/boundaries", side = 1, outer = TRUE, cex = 0.8)
dev.off()
