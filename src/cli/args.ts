// Flag parsing shared by the sub-commands: strict (unknown flags are errors), exit code 2.
import { type ParseArgsConfig, parseArgs } from "node:util";
import { DEFAULT_PORT } from "../config/schema.ts";

export class UsageError extends Error {}

export function parseFlags<T extends NonNullable<ParseArgsConfig["options"]>>(
  args: string[],
  options: T,
  allowPositionals = false,
) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export function integerFlag(
  value: string | undefined,
  name: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageError(`--${name} must be an integer between ${min} and ${max}, got "${value}"`);
  }
  return Number(value);
}

/** Port per docs/reference/behaviour.md §1: --port, else env PORT, else the config's, else 8080. */
export function choosePort(flag: string | undefined, configPort: number | null): number {
  const fromFlag = integerFlag(flag, "port", 0, 65535);
  if (fromFlag !== undefined) return fromFlag;
  const env = process.env.PORT;
  if (env !== undefined && env !== "") {
    if (!/^\d+$/.test(env) || Number(env) > 65535)
      throw new UsageError(`PORT must be an integer between 0 and 65535, got "${env}"`);
    return Number(env);
  }
  return configPort ?? DEFAULT_PORT;
}

/** --host: an address to listen on (an IP address or a host name), as given. */
export function hostFlag(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^[A-Za-z0-9.:_-]{1,253}$/.test(value))
    throw new UsageError(`--host must be an address to listen on (e.g. 127.0.0.1 or 0.0.0.0), got "${value}"`);
  return value;
}

/** A host as it goes into a URL: IPv6 addresses in brackets. */
export function urlHost(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}
