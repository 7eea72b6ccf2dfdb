-- GET with the bearer token and, on every request, a parameter the server ignores but has never
-- seen (`computed=<run>-<thread>-<n>`), so no cached page answers: each response is computed
-- from the database (the rows and the total), as the first request after a write is. The SQL is
-- exactly that of the URL without it.
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
local lib = dofile(dir .. "lib.lua")

setup = lib.number_threads

local run = os.getenv("BENCH_RUN") or tostring(os.time())
local counter = 0
local headers = nil
local base = nil

function request()
  if headers == nil then
    headers = { ["Authorization"] = lib.bearer() }
    -- wrk.path carries the URL's query string, if any.
    base = wrk.path .. (wrk.path:find("?", 1, true) and "&" or "?") .. "computed=" .. run .. "-" .. tostring(thread_id or 1) .. "-"
  end
  counter = counter + 1
  return wrk.format("GET", base .. counter, headers)
end
