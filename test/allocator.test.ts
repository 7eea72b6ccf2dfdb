// Which commands replace themselves to keep their freed memory, and with what (src/allocator.ts).
// The real replacement, same process id included, is tested on the binary (test/e2e/binary.test.ts).
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { PURGE_DELAY_VARIABLE, reexecForServer } from "../src/allocator.ts";

const operatorValue = process.env[PURGE_DELAY_VARIABLE];
afterEach(() => {
  if (operatorValue === undefined) delete process.env[PURGE_DELAY_VARIABLE];
  else process.env[PURGE_DELAY_VARIABLE] = operatorValue;
});

/** Records each execve asked for instead of making it. */
function recorder() {
  const calls: { file: string; args: string[]; env: Record<string, string | undefined> }[] = [];
  return {
    calls,
    execve: (file: string, args: string[], env: Record<string, string | undefined>) =>
      void calls.push({ file, args, env }),
  };
}

describe("reexecForServer", () => {
  test("serve and sandbox run again as this same command, with the setting added to the environment", () => {
    delete process.env[PURGE_DELAY_VARIABLE];
    for (const command of ["serve", "sandbox"]) {
      const { calls, execve } = recorder();
      reexecForServer(command, execve);
      expect(calls).toHaveLength(1);
      const [call] = calls;
      expect(call!.file).toBe(process.execPath);
      // The command line exactly as this process was started, argv[0] included (ps shows the same after).
      expect(call!.args.join("\0") + "\0").toBe(readFileSync("/proc/self/cmdline", "utf8"));
      expect(call!.env[PURGE_DELAY_VARIABLE]).toBe("-1");
      expect(call!.env.PATH).toBe(process.env.PATH);
    }
  });

  test("one-shot commands, no command and an unknown one are left alone", () => {
    delete process.env[PURGE_DELAY_VARIABLE];
    const { calls, execve } = recorder();
    for (const command of [
      "import",
      "export",
      "backup",
      "feeds",
      "seed",
      "healthcheck",
      "--version",
      "servers",
      undefined,
    ])
      reexecForServer(command, execve);
    expect(calls).toEqual([]);
  });

  test("an operator's own value, whatever it is, is kept", () => {
    const { calls, execve } = recorder();
    for (const value of ["250", "0", ""]) {
      process.env[PURGE_DELAY_VARIABLE] = value;
      reexecForServer("serve", execve);
    }
    expect(calls).toEqual([]);
  });

  test("Bun started with flags of its own (a profiler, the debugger) is left alone", () => {
    delete process.env[PURGE_DELAY_VARIABLE];
    const { calls, execve } = recorder();
    process.execArgv.push("--cpu-prof");
    try {
      reexecForServer("serve", execve);
    } finally {
      process.execArgv.pop();
    }
    expect(calls).toEqual([]);
  });

  test("a process with an IPC channel (a worker of serve --workers) is left alone", () => {
    delete process.env[PURGE_DELAY_VARIABLE];
    const { calls, execve } = recorder();
    const send = process.send;
    process.send = () => true;
    try {
      reexecForServer("serve", execve);
    } finally {
      process.send = send;
    }
    expect(calls).toEqual([]);
  });

  test("a system that refuses the call leaves the server running as it is", () => {
    delete process.env[PURGE_DELAY_VARIABLE];
    expect(() =>
      reexecForServer("serve", () => {
        throw Object.assign(new Error("operation not permitted"), { code: "EPERM" });
      }),
    ).not.toThrow();
  });
});
