-- Token issue: POST /v1/auth/token with the sandbox credentials, which is what a client does
-- each time it refreshes its token (tokens live 3600 s and have no renewal endpoint). Static
-- request, so the load generator spends nothing per request on Lua.
wrk.method = "POST"
wrk.headers["X-API-Key"] = os.getenv("BENCH_API_KEY") or "pk_sandbox_demo"
wrk.headers["X-API-Secret"] = os.getenv("BENCH_API_SECRET") or "sk_sandbox_demo"
