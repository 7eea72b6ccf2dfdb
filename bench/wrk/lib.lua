-- Shared by the bench's wrk scripts: the bearer token from the environment and unique lead
-- bodies. Loaded with dofile() by path, since wrk's package.path does not know this folder.

local M = {}

-- wrk's setup(thread) runs once per thread in the main Lua state: `setup = lib.number_threads`
-- gives each thread its own thread_id, so the lead bodies of two threads never coincide.
local threads = 0
function M.number_threads(thread)
  threads = threads + 1
  thread:set("thread_id", threads)
end

-- The runner passes the token in the environment (never on the command line, which it prints).
function M.bearer()
  local token = os.getenv("BENCH_TOKEN")
  if token == nil or token == "" then
    error("BENCH_TOKEN is not set: the bench runner issues a token and passes it here")
  end
  return "Bearer " .. token
end

-- Unique per run, thread and request, so no two leads look alike (no idempotency replay, no
-- accidental deduplication anywhere) and bodies stay the size of a real website form.
local run = os.getenv("BENCH_RUN") or tostring(os.time())
-- A listing's code to link each lead to (the inbound scenario's leads, like its portal posts);
-- unset: leads link nothing.
local property_code = os.getenv("BENCH_PROPERTY_CODE")
local counter = 0
local post_headers = nil

function M.lead_request(thread_id)
  if post_headers == nil then
    post_headers = { ["Authorization"] = M.bearer(), ["Content-Type"] = "application/json" }
  end
  counter = counter + 1
  local id = run .. "-" .. tostring(thread_id or 1) .. "-" .. counter
  local body = '{"name":"Bench Lead ' .. id ..
    '","email":"bench.' .. id .. '@example.com"' ..
    ',"phone":"+55 11 91234-5678"' ..
    ',"message":"Tenho interesse no imovel, por favor entre em contato. Ref ' .. id .. '"' ..
    ((property_code ~= nil and property_code ~= "") and (',"propertyCode":"' .. property_code .. '"') or "") .. "}"
  -- wrk.format fills Host and Content-Length into the table it is given: a private one.
  return wrk.format("POST", "/v1/leads", post_headers, body)
end

return M
