// Entity references of a feed (docs/reference/behaviour-extensions.md §16). Entities declared in the document's internal DTD
// subset are expanded, within a budget for the whole document (10,000 expansions, 1 MiB of
// text: an expansion bomb refuses the feed); external entities are never fetched (a reference
// to one refuses the feed); HTML named entities the document never declares (`&nbsp;`,
// `&atilde;`, which PHP generators leave in) are read as their characters.
import { decodeHTMLStrict } from "entities";
import { FeedError } from "../listing.ts";

export const MAX_ENTITY_EXPANSIONS = 10_000;
export const MAX_ENTITY_TEXT = 1 << 20; // characters of expanded text in the whole document

const PREDEFINED: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

interface Declaration {
  /** The literal replacement text, references not yet expanded. */
  value?: string;
  /** SYSTEM / PUBLIC identifier of an external entity, which is never read. */
  external?: string;
}

interface Expansion {
  text: string;
  /** Entity references expanded to produce the text, itself included. */
  expansions: number;
}

const DECLARATION = /<!ENTITY\s+(%\s+)?([^\s%>]+)\s+(?:"([^"]*)"|'([^']*)'|((?:SYSTEM|PUBLIC)\b[^>]*))\s*>/g;
const REFERENCE = /&(#x[0-9a-fA-F]+|#[0-9]+|[^\s&;<]+);/g;

function characterReference(reference: string): string | null {
  const code = reference.startsWith("#x") ? parseInt(reference.slice(2), 16) : parseInt(reference.slice(1), 10);
  return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : null;
}

/** HTML's character for a named entity, or null when HTML has none by that name. */
export function htmlEntity(name: string): string | null {
  const reference = `&${name};`;
  const decoded = decodeHTMLStrict(reference);
  return decoded === reference ? null : decoded;
}

export class EntityTable {
  private readonly declared = new Map<string, Declaration>();
  private readonly expanded = new Map<string, Expansion>();
  private expansions = 0;
  private characters = 0;

  /** Reads the entity declarations of a DOCTYPE's internal subset (parameter entities are ignored). */
  declare(doctype: string): void {
    const subset = doctype.replace(/<!--[\s\S]*?-->/g, "");
    for (const match of subset.matchAll(DECLARATION)) {
      if (match[1] !== undefined || this.declared.has(match[2]!)) continue; // the first declaration binds (XML 1.0 §4.2)
      this.declared.set(
        match[2]!,
        match[5] !== undefined ? { external: match[5].trim() } : { value: match[3] ?? match[4]! },
      );
    }
  }

  /** Whether the document declares this name itself (then HTML's meaning does not apply). */
  isDeclared(name: string): boolean {
    return this.declared.has(name);
  }

  /**
   * The text of one reference in the document to a declared entity, charged to the document's
   * budget; null when the document does not declare it.
   */
  resolve(name: string): string | null {
    if (!this.declared.has(name)) return null;
    const { text, expansions } = this.expand(name, []);
    this.expansions += expansions;
    this.characters += text.length;
    this.checkBudget(this.expansions, this.characters);
    return text;
  }

  private checkBudget(expansions: number, characters: number): void {
    if (expansions > MAX_ENTITY_EXPANSIONS || characters > MAX_ENTITY_TEXT) {
      throw new FeedError(
        `the feed's DTD entities expand to more than ${MAX_ENTITY_EXPANSIONS.toLocaleString("en-US")} references or 1 MiB of text ` +
          "(an entity expansion bomb?): refused, nothing was imported",
      );
    }
  }

  private expand(name: string, stack: readonly string[]): Expansion {
    const known = this.expanded.get(name);
    if (known !== undefined) return known;
    if (stack.includes(name))
      throw new FeedError(`the DTD entity &${name}; refers to itself: refused, nothing was imported`);
    const declaration = this.declared.get(name)!;
    if (declaration.external !== undefined) {
      throw new FeedError(
        `the feed refers to the external entity &${name}; (${declaration.external}): external entities are never fetched; refused, nothing was imported`,
      );
    }
    let expansions = 1;
    const parts: string[] = [];
    let length = 0;
    let last = 0;
    const value = declaration.value!;
    for (const match of value.matchAll(REFERENCE)) {
      const reference = match[1]!;
      let text: string | null;
      if (reference.startsWith("#")) text = characterReference(reference);
      else if (PREDEFINED[reference] !== undefined) text = PREDEFINED[reference]!;
      else if (this.declared.has(reference)) {
        const inner = this.expand(reference, [...stack, name]);
        expansions += inner.expansions;
        text = inner.text;
      } else text = htmlEntity(reference);
      if (text === null)
        throw new FeedError(`the DTD entity &${name}; refers to &${reference};, which is not declared`);
      parts.push(value.slice(last, match.index), text);
      length += match.index! - last + text.length;
      last = match.index! + match[0].length;
      this.checkBudget(expansions, length);
    }
    parts.push(value.slice(last));
    const expansion = { text: parts.join(""), expansions };
    this.checkBudget(expansion.expansions, expansion.text.length);
    this.expanded.set(name, expansion);
    return expansion;
  }
}
