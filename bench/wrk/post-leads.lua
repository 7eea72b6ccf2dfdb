-- POST /v1/leads with a unique body on every request (a lead per website form submission).
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
local lib = dofile(dir .. "lib.lua")

local threads = 0
-- setup() runs in the main Lua state, once per thread: it gives each thread its own id.
function setup(thread)
  threads = threads + 1
  thread:set("thread_id", threads)
end

function request()
  return lib.lead_request(thread_id)
end
