// An excerpt of a production scrape, shown as the example of GET /metrics in the OpenAPI
// document. Written out because a real render is asynchronous and the document is built
// synchronously; test/metrics/example.test.ts keeps every family, type and label name in it
// true to what the registry renders.
/** The excerpt, with the running version in its build info. */
export function metricsExample(version: string): string {
  return `# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total 12.41
# HELP process_resident_memory_bytes Resident memory size in bytes.
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes 104857600
# HELP process_open_fds Number of open file descriptors.
# TYPE process_open_fds gauge
process_open_fds 23
# HELP nodejs_eventloop_lag_p99_seconds The 99th percentile of the recorded event loop delays.
# TYPE nodejs_eventloop_lag_p99_seconds gauge
nodejs_eventloop_lag_p99_seconds 0.011
# HELP partner_api_gc_collections_total Garbage collections seen (a lower bound: collections closer together than a turn of the event loop count once).
# TYPE partner_api_gc_collections_total counter
partner_api_gc_collections_total 1187
# HELP partner_api_group_commit_batch_size Writes committed together in one transaction, so under one fsync.
# TYPE partner_api_group_commit_batch_size histogram
partner_api_group_commit_batch_size_bucket{le="1"} 40
partner_api_group_commit_batch_size_bucket{le="2"} 52
partner_api_group_commit_batch_size_bucket{le="4"} 61
partner_api_group_commit_batch_size_bucket{le="+Inf"} 63
partner_api_group_commit_batch_size_sum 151
partner_api_group_commit_batch_size_count 63
# HELP partner_api_page_cache_lookups_total Lookups of finished list and change-feed pages: hit (served from memory) or miss (computed from the database).
# TYPE partner_api_page_cache_lookups_total counter
partner_api_page_cache_lookups_total{result="hit"} 9120
partner_api_page_cache_lookups_total{result="miss"} 311
# HELP partner_api_http_requests_total Requests answered, by route template, method and status (499: the client hung up before its request was read).
# TYPE partner_api_http_requests_total counter
partner_api_http_requests_total{route="/v1/properties",method="GET",status="200"} 1
partner_api_http_requests_total{route="/v1/leads",method="POST",status="201"} 1
partner_api_http_requests_total{route="unmatched",method="GET",status="404"} 1
partner_api_http_requests_total{route="/v1/properties",method="GET",status="429"} 1
# HELP partner_api_http_request_duration_seconds Time from receiving a request to finishing its response, by route template and method.
# TYPE partner_api_http_request_duration_seconds histogram
partner_api_http_request_duration_seconds_bucket{le="0.0005",route="/v1/properties",method="GET"} 1
partner_api_http_request_duration_seconds_bucket{le="0.001",route="/v1/properties",method="GET"} 1
partner_api_http_request_duration_seconds_bucket{le="0.0025",route="/v1/properties",method="GET"} 2
partner_api_http_request_duration_seconds_bucket{le="+Inf",route="/v1/properties",method="GET"} 2
partner_api_http_request_duration_seconds_sum{route="/v1/properties",method="GET"} 0.0019
partner_api_http_request_duration_seconds_count{route="/v1/properties",method="GET"} 2
# HELP partner_api_rate_limited_total 429 answers by configured client id; (unauthenticated) when refused before authentication.
# TYPE partner_api_rate_limited_total counter
partner_api_rate_limited_total{client="portal-x"} 1
# HELP partner_api_auth_failures_total Refused credentials or tokens, by error code.
# TYPE partner_api_auth_failures_total counter
partner_api_auth_failures_total{code="INVALID_API_SECRET"} 0
partner_api_auth_failures_total{code="INVALID_TOKEN"} 0
# HELP partner_api_leads_created_total Leads created by POST /v1/leads (idempotent replays excluded).
# TYPE partner_api_leads_created_total counter
partner_api_leads_created_total 1
# HELP partner_api_database_size_bytes Size on disk of each configured database file and its write-ahead log (file=wal), read at scrape time.
# TYPE partner_api_database_size_bytes gauge
partner_api_database_size_bytes{database="agency",file="main"} 52428800
partner_api_database_size_bytes{database="agency",file="wal"} 4120032
# HELP partner_api_build_info Always 1; labels name the running version and environment.
# TYPE partner_api_build_info gauge
partner_api_build_info{version="${version}",environment="production"} 1
`;
}
