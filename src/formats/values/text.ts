// Free text as feeds carry it (docs/reference/behaviour-extensions.md §16): kept as written, except an escaped CDATA wrapper
// (a generator that escaped its own `<![CDATA[`) and control characters, which nothing means.
import { type Read, readFailed, readOk } from "../warnings.ts";

/** C0 controls other than tab, newline and carriage return, DEL and the C1 controls. */
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFFFE\uFFFF]/;
const CONTROLS = new RegExp(CONTROL.source, "g");
const ESCAPED_CDATA = /^<!\[CDATA\[([\s\S]*)\]\]>$/;

/** Trimmed text, null when empty; the problem says what was cleaned. */
export function readText(raw: string, maxLength: number): Read<string | null> {
  let text = raw.trim();
  const cleaned: string[] = [];
  const wrapped = text.startsWith("<![") ? ESCAPED_CDATA.exec(text) : null;
  if (wrapped !== null) {
    text = wrapped[1]!.trim();
    cleaned.push("an escaped CDATA wrapper unwrapped");
  }
  if (CONTROL.test(text)) {
    text = text.replace(CONTROLS, "");
    cleaned.push("control characters removed");
  }
  if (text.length > maxLength) {
    return readFailed(
      text.slice(0, maxLength).trimEnd(),
      "TEXT_TRUNCATED",
      `longer than ${maxLength.toLocaleString("en-US")} characters: cut`,
    );
  }
  const value = text === "" ? null : text;
  return cleaned.length === 0 ? readOk(value) : readFailed(value, "TEXT_CLEANED", cleaned.join("; "));
}
