-- A paced partner for the feed-run scenario: each connection sends a request, waits for the
-- answer, then pauses (wrk's delay()), so the load is a steady rate a real agency's partners
-- make rather than a closed loop that saturates the server's core. Arguments after `--`:
-- `leads <pause ms>` (POST /v1/leads, a unique body each time) or `reads <pause ms>` (GET the URL).
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
local lib = dofile(dir .. "lib.lua")

setup = lib.number_threads

local mode = "reads"
local pause = 10
local read_request = nil

function init(args)
  mode = args[1] or "reads"
  pause = tonumber(args[2] or "10")
  if mode == "reads" then
    wrk.headers["Authorization"] = lib.bearer()
    read_request = wrk.format("GET")
  end
end

function delay()
  return pause
end

function request()
  if mode == "leads" then
    return lib.lead_request(thread_id)
  end
  return read_request
end

-- The whole latency distribution, so the runner can pool windows into one (bench/lib/stats.ts,
-- pooledPercentile): QUANTILES points, point i the latency below which i/QUANTILES of the
-- requests fell (the last one the slowest), in microseconds.
local QUANTILES = 1000

function done(summary, latency, requests)
  local points = {}
  for i = 1, QUANTILES - 1 do
    points[i] = tostring(latency:percentile(i * 100 / QUANTILES))
  end
  -- wrk's percentile(100) answers 0: the slowest request is latency.max.
  points[QUANTILES] = tostring(latency.max)
  io.write("latency quantiles (us): " .. table.concat(points, " ") .. "\n")
end
