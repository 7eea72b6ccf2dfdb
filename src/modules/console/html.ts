// HTML made safely: a template whose every value is escaped, except HTML the template itself
// made. Every console page is written with it.

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** A template whose every ${value} is escaped, except values made by `html` itself. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** Text already safe as HTML (JSON whose "<" are escaped, say), put in a template as it is. */
export function raw(text: string): Html {
  return new Html(text);
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  values.forEach((value, i) => {
    const part = Array.isArray(value)
      ? value.map((v) => (v instanceof Html ? v.text : escapeHtml(String(v)))).join("")
      : value instanceof Html
        ? value.text
        : escapeHtml(String(value ?? ""));
    out += part + strings[i + 1]!;
  });
  return new Html(out);
}
