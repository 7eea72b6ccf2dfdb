// The release version: injected at build time (`--define PARTNER_API_VERSION=…`), else the
// package version marked as a development run.
import pkg from "../package.json" with { type: "json" };

declare const PARTNER_API_VERSION: string | undefined;

export const VERSION: string = typeof PARTNER_API_VERSION === "string" ? PARTNER_API_VERSION : `${pkg.version}-dev`;
