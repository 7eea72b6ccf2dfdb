// The Scalar API Reference bundle, embedded in the binary by Bun's text import so the docs
// page needs no CDN. The package's `exports` hide this file from a bare specifier, hence the
// relative path into node_modules (resolved at build time, like any import).
// @ts-expect-error TS cannot type a text import of a .js file (it would look for declarations); Bun gives a string.
import bundle from "../../node_modules/@scalar/api-reference/dist/browser/standalone.js" with { type: "text" };

export const SCALAR_BUNDLE: string = bundle;
