// How the servers' native memory is handed back to the system. Bun's allocator (mimalloc)
// returns memory that native code freed to the operating system about 100 ms later, and the
// next allocation faults it back in. A server answering thousands of requests a second, or
// sending thousands of webhooks, frees and takes the same few megabytes over and over: on the
// bench's virtual machine that churn (madvise calls, page faults, the allocator's scavenger
// thread) cost a fifth of the webhook worker's throughput and about a tenth of the hot read
// path (bench/RESULTS.md). With MIMALLOC_PURGE_DELAY=-1 freed memory stays with the process and
// is reused; resident memory then stays near its peak instead of shrinking back.
//
// mimalloc reads its options from the environment once, when the process starts. So `serve`
// and `sandbox` execute themselves again at once, in place (the same process id, the same open
// files and terminal), with the setting in their environment. That costs one more start of the
// executable, about 0.1 s (sandbox ready in a median 0.72-0.74 s against 0.62-0.65 s without it,
// 15 starts each). An operator who set MIMALLOC_PURGE_DELAY (to any value) keeps it. So does Bun
// started with flags of its own (a profiler, the debugger: development only): the replacement
// would drop the debugger's connection, and a profiler's sampling signal that arrives in the
// instant of the replacement kills the new program before it can handle the signal (seen: 6
// starts in 30 under --cpu-prof).
// A process started with an IPC channel (a worker of `serve --workers N`) is left alone too: its
// supervisor's environment, which it inherits, has decided already, and the channel must stay.
import { readFileSync } from "node:fs";
import { selfCommand } from "./executable.ts";

export const PURGE_DELAY_VARIABLE = "MIMALLOC_PURGE_DELAY";
/** Never hand freed memory back to the system while the process lives. */
const SERVER_PURGE_DELAY = "-1";

/** The commands that run until stopped, and so gain from keeping their memory. */
const LONG_RUNNING = new Set(["serve", "sandbox"]);

/**
 * The argv this process was started with, its argv[0] included as it was given (process.argv
 * puts Bun's own name there): read from /proc on Linux, so that `ps` and a container's PID 1
 * show the same command after the replacement as before it.
 */
function startedArgv(): string[] {
  try {
    const argv = readFileSync("/proc/self/cmdline", "utf8").split("\0");
    if (argv.at(-1) === "") argv.pop();
    if (argv.length > 0) return argv;
  } catch {
    // No /proc: the same program with the same arguments, argv[0] as Bun names it.
  }
  return selfCommand(process.argv.slice(2));
}

type Execve = (file: string, args: string[], env: Record<string, string | undefined>) => void;

/**
 * Replaces this process with itself under the servers' allocator setting, when `command` is
 * a server and the setting is not in the environment yet. Returns only when it does not (or
 * cannot) replace it; the server then runs with the allocator's defaults. (`execve` is
 * Node's process.execve; tests pass their own.)
 */
export function reexecForServer(command: string | undefined, execve: Execve | undefined = process.execve): void {
  if (command === undefined || !LONG_RUNNING.has(command)) return;
  if (process.env[PURGE_DELAY_VARIABLE] !== undefined || execve === undefined) return;
  if (process.execArgv.length > 0 || process.send !== undefined) return;
  try {
    execve(process.execPath, startedArgv(), { ...process.env, [PURGE_DELAY_VARIABLE]: SERVER_PURGE_DELAY });
  } catch {
    // Not allowed here (a sandboxed system call, say): the server is just as correct without it.
  }
}
