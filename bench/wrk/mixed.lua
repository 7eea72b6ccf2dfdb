-- Mixed traffic: 9 reads out of 10 (rotating over the GET paths given after `--`, default the
-- URL's own path) and 1 lead creation. Each creation invalidates the product's page cache, so
-- the reads that follow pay for real queries, as they would on a live site.
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
local lib = dofile(dir .. "lib.lua")

setup = lib.number_threads

local reads = {}
function init(args)
  local headers = { ["Authorization"] = lib.bearer() }
  local paths = {}
  for _, p in ipairs(args) do paths[#paths + 1] = p end
  if #paths == 0 then paths[1] = wrk.path end
  -- Built once here: a read costs wrk a table lookup, not a string build.
  for i, p in ipairs(paths) do reads[i] = wrk.format("GET", p, headers) end
end

local n = 0
function request()
  n = n + 1
  if n % 10 == 0 then return lib.lead_request(thread_id) end
  return reads[(n % #reads) + 1]
end
