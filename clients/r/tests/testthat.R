# Offline tests run everywhere (R CMD check); the tests against a server run when CDS_BASE_URL
# and CDS_API_KEY are set (test/clients/r.test.ts starts the real service and sets them).
library(testthat)
library(censusdataservice)

test_check("censusdataservice")
