-- POST /v1/leads with a unique body on every request (a lead per website form submission).
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
local lib = dofile(dir .. "lib.lua")

setup = lib.number_threads

function request()
  return lib.lead_request(thread_id)
end
