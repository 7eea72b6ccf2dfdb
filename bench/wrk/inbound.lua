-- POST /v1/inbound/<client> as Grupo ZAP posts a lead: HTTP Basic auth, its JSON, a new
-- originLeadId on every request (a lead per contact on the portal, no resend), naming a real
-- listing so the lead is linked. The path comes from the URL; the Authorization from the
-- environment (BENCH_INBOUND_AUTHORIZATION), the listing code from BENCH_LISTING.
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
local lib = dofile(dir .. "lib.lua")

setup = lib.number_threads

local run = os.getenv("BENCH_RUN") or tostring(os.time())
local listing = os.getenv("BENCH_LISTING") or "a40171"
local counter = 0
local headers = nil

function request()
  if headers == nil then
    local authorization = os.getenv("BENCH_INBOUND_AUTHORIZATION")
    if authorization == nil or authorization == "" then
      error("BENCH_INBOUND_AUTHORIZATION is not set: the bench runner passes it here")
    end
    headers = { ["Authorization"] = authorization, ["Content-Type"] = "application/json", ["User-Agent"] = "olx-group-api" }
  end
  counter = counter + 1
  local id = run .. "-" .. tostring(thread_id or 1) .. "-" .. counter
  local body = '{"leadOrigin":"Grupo OLX","timestamp":"2026-01-05T14:30:00.000Z"' ..
    ',"originLeadId":"' .. id .. '","originListingId":"87027856","clientListingId":"' .. listing .. '"' ..
    ',"name":"Bench Lead ' .. id .. '","email":"bench.' .. id .. '@example.com"' ..
    ',"ddd":"11","phone":"912345678","phoneNumber":"11912345678"' ..
    ',"message":"Tenho interesse no imovel, por favor entre em contato. Ref ' .. id .. '"' ..
    ',"temperature":"Alta","transaction_type":"SELL"}'
  return wrk.format("POST", wrk.path, headers, body)
end
