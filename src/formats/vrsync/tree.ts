// Streams a VRSync document through saxes and hands over one small element tree per Listing, so
// memory holds a single listing however large the feed. The document is read as generators
// really write it (docs/reference/behaviour-extensions.md §16): element and attribute names in any case, `Listing` under
// `Listings` or directly under the root, what PHP leaves around the document read past with a
// warning; and hostile documents (entity bombs, external entities, huge nodes, deep nesting)
// refused as a whole with the reason.
import { SaxesParser, type SaxesTag } from "saxes";
import { FeedError } from "../listing.ts";
import type { FeedWarning, WarningKind } from "../warnings.ts";
import { EntityTable, htmlEntity } from "./entities.ts";
import { EXTENSION_NAMESPACE, EXTENSION_PREFIX, VRSYNC_NAMESPACE } from "./vocabulary.ts";

/**
 * An element of a listing. `key` is its name in lower case, which every lookup uses (a feed may
 * write `ListingId`); elements and attributes of the partner-api extension namespace are named
 * "pa:<local>" whatever prefix the feed used.
 */
export interface XmlElement {
  /** The local name as written, for messages. */
  name: string;
  key: string;
  /** The element holding it; null for the Listing. */
  parent: XmlElement | null;
  /** Children by key (the first of each), built on the first lookup (mapping.ts). */
  byKey?: Map<string, XmlElement>;
  /** Attribute names in lower case. */
  attributes: Map<string, string>;
  children: XmlElement[];
  text: string;
  /** Line of the opening tag, for warnings and rejection messages. */
  line: number;
}

export interface ListingTree {
  element: XmlElement;
  /** Set when the listing outgrew MAX_LISTING_CHARS: its text was dropped, only its ListingID kept. */
  tooLarge: boolean;
}

/** One listing's text is capped, so a feed cannot exhaust memory with a single huge listing. */
export const MAX_LISTING_CHARS = 1_000_000;
/** A single node (text, CDATA, comment, tag) larger than this refuses the feed: the parser would hold it whole. */
export const MAX_NODE_CHARS = 4_000_000;
/** VRSync nests six levels deep; a document nested this deep is hostile, not a feed. */
export const MAX_DEPTH = 64;

/** Control characters XML 1.0 forbids (tab, newline and carriage return are allowed), and U+FFFE/U+FFFF. */
const XML_CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
const XML_CONTROLS = new RegExp(XML_CONTROL.source, "g");
const NO_PREFIXES: Scope = new Map();

/** Where an element sits inside its Listing (`Details/ListPrice`), for warnings; "" for the Listing. */
export function pathOf(element: XmlElement): string {
  return element.parent === null
    ? ""
    : element.parent.parent === null
      ? element.name
      : `${pathOf(element.parent)}/${element.name}`;
}

/** Element names reported when no listing is found, at most. */
const MAX_FOUND_NAMES = 12;

/** The namespaces prefixes are bound to, per element that declares any (most documents: the root only). */
type Scope = ReadonlyMap<string, string>;

/** The prefix bindings an element declares, added to those in force; the same scope when it declares none. */
function scopeOf(tag: SaxesTag, outer: Scope): Scope {
  let scope: Map<string, string> | null = null;
  for (const name in tag.attributes) {
    if (!name.startsWith("xmlns:")) continue;
    scope ??= new Map(outer);
    scope.set(name.slice(6), tag.attributes[name] as string);
  }
  return scope ?? outer;
}

/**
 * Unprefixed elements are VRSync whatever the default namespace says (portals' clones of the
 * format declare their own); prefixed ones only in the VRSync or the extension namespace.
 * (Prefixes are resolved here rather than by saxes's namespace mode, which cost a fifth of the parse.)
 */
function nameOf(qualified: string, scope: Scope): string | null {
  const colon = qualified.indexOf(":");
  if (colon === -1) return qualified;
  const uri = scope.get(qualified.slice(0, colon));
  if (uri === EXTENSION_NAMESPACE) return `${EXTENSION_PREFIX}:${qualified.slice(colon + 1)}`;
  return uri === VRSYNC_NAMESPACE ? qualified.slice(colon + 1) : null; // another vocabulary: not ours to read
}

/** Attribute names in lower case; unprefixed ones are in no namespace (XML Namespaces §6.2), prefixed ones ours only in the extension. */
function attributesOf(tag: SaxesTag, scope: Scope): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const name in tag.attributes) {
    const value = tag.attributes[name] as string;
    const colon = name.indexOf(":");
    if (colon === -1) {
      if (name !== "xmlns") attributes.set(name.toLowerCase(), value);
    } else if (scope.get(name.slice(0, colon)) === EXTENSION_NAMESPACE) {
      attributes.set(`${EXTENSION_PREFIX}:${name.slice(colon + 1).toLowerCase()}`, value);
    }
  }
  return attributes;
}

/** An open element of the document: its lower-case name (null: another vocabulary) and what it holds. */
interface OpenElement {
  key: string | null;
  name: string;
  scope: Scope;
}

/**
 * Feed it text chunks with write(); completed listings accumulate in `ready` (drain them after
 * each write). Warnings about the document as a whole go to `notices`. A document that cannot
 * be read throws FeedError naming the line, the column and the text around it.
 */
export class ListingTreeReader {
  readonly ready: ListingTree[] = [];
  private readonly parser = new SaxesParser({ xmlns: false, position: true });
  private readonly entities = new EntityTable();
  private readonly path: OpenElement[] = [];
  /** Open elements of the listing being captured, outermost (the Listing) first. */
  private readonly open: XmlElement[] = [];
  private skipDepth = 0;
  private chars = 0;
  private tooLarge = false;
  private root: string | null = null;
  private rootClosed = false;
  private listings = 0;
  /** Element names under the root and under its children, for the error when no listing is found. */
  private readonly found = new Map<string, number>();
  private started = false;
  private lastEvent = 0;
  /** The text being parsed and where it starts in the stream, for the context of an error. */
  private chunk = "";
  private chunkStart = 0;
  /** Characters given to the parser so far. */
  private written = 0;
  private previousTail = "";
  private readonly warned = new Set<string>();

  constructor(private readonly notices: FeedWarning[]) {
    this.parser.on("error", (error) => this.onError(error.message.replace(/^\d+:\d+: /, "")));
    this.parser.on("doctype", (doctype) => {
      this.touch();
      this.entities.declare(doctype);
    });
    this.parser.on("opentag", (tag) => this.onOpen(tag));
    this.parser.on("closetag", () => this.onClose());
    this.parser.on("text", (text) => this.onText(text));
    this.parser.on("cdata", (text) => this.onText(text));
    for (const event of ["comment", "processinginstruction", "xmldecl", "opentagstart"] as const) {
      this.parser.on(event, () => this.touch());
    }
    // saxes resolves character references and its five predefined entities; every other
    // reference comes here: the document's own DTD entities, then HTML's names.
    const parser = this.parser as unknown as { parseEntity(entity: string): string };
    const parseEntity = parser.parseEntity.bind(this.parser);
    parser.parseEntity = (entity) => this.resolveEntity(entity) ?? parseEntity(entity);
  }

  write(text: string): void {
    let chunk = text;
    if (!this.started) {
      chunk = this.skipLeadingWhitespace(chunk);
      if (chunk === "") return;
    }
    if (XML_CONTROL.test(chunk)) chunk = this.dropControls(chunk);
    this.previousTail = this.chunk.slice(-80);
    this.chunkStart = this.written;
    this.chunk = chunk;
    this.parser.write(chunk);
    this.written += chunk.length;
    // saxes's own position is exact only inside its events (it counts a finished chunk twice).
    if (this.written - this.lastEvent > MAX_NODE_CHARS) {
      throw new FeedError(
        `a single XML node (text, CDATA, comment or tag) longer than ${MAX_NODE_CHARS.toLocaleString("en-US")} characters at line ` +
          `${this.parser.line}: refused, nothing was imported`,
      );
    }
  }

  close(): void {
    this.parser.close();
    if (this.root === null) throw new FeedError("the feed has no root element");
    if (this.listings > 0) {
      if (this.root.toLowerCase() !== "listingdatafeed") {
        this.notice(
          "XML_REPAIRED",
          1,
          `the root element is <${this.root}>, not <ListingDataFeed>: its listings were read`,
        );
      }
      return;
    }
    const found = [...this.found].map(([name, count]) => `<${name}>${count > 1 ? ` ×${count}` : ""}`);
    if (this.root.toLowerCase() !== "listingdatafeed") {
      throw new FeedError(
        `not a VRSync feed: the root element is <${this.root}>, not <ListingDataFeed>, and no <Listing> was found${found.length > 0 ? ` (it holds ${found.join(", ")})` : ""}`,
      );
    }
    // An empty feed (a Header, an empty Listings) is a feed of no listings; anything else is not what it seems.
    const unexpected = [...this.found.keys()].filter(
      (name) => !["header", "listings"].includes(name.toLowerCase().replace(/^.*\//, "")),
    );
    if (unexpected.length > 0)
      throw new FeedError(`no <Listing> element was found in the feed; it holds ${found.join(", ")}`);
  }

  private skipLeadingWhitespace(chunk: string): string {
    const text = chunk.replace(/^[\s\uFEFF]+/, "");
    if (text === "") return "";
    this.started = true;
    if (text !== chunk && text.startsWith("<?xml")) {
      this.notice("XML_REPAIRED", 1, "blank space before the XML declaration: skipped");
      return text;
    }
    return chunk;
  }

  private dropControls(chunk: string): string {
    const at = chunk.search(XML_CONTROL);
    const line = this.parser.line + (chunk.slice(0, at).match(/\n/g)?.length ?? 0);
    this.notice("XML_REPAIRED", line, "control characters, which XML does not allow: dropped", "control");
    return chunk.replace(XML_CONTROLS, "");
  }

  private resolveEntity(name: string): string | null {
    if (name.startsWith("#") || ["amp", "lt", "gt", "quot", "apos"].includes(name)) return null;
    const declared = this.entities.resolve(name);
    if (declared !== null) return declared;
    const html = htmlEntity(name);
    if (html !== null)
      this.notice(
        "HTML_ENTITY",
        this.parser.line,
        `&${name}; is an HTML entity the document does not declare: read as "${html}"`,
        name,
        `&${name};`,
      );
    return html;
  }

  private notice(
    kind: WarningKind,
    line: number,
    message: string,
    once: string = message,
    value: string | null = null,
  ): void {
    if (this.warned.has(`${kind}|${once}`)) return;
    this.warned.add(`${kind}|${once}`);
    this.notices.push({ kind, code: null, line, element: null, value, message });
  }

  private onError(message: string): void {
    if (this.rootClosed) {
      // What a PHP script printed after the document (a warning, an error page): not ours to read.
      this.notice(
        "XML_REPAIRED",
        this.parser.line,
        "text after the root element closes (a generator's warning message?): ignored",
        "after-root",
      );
      return;
    }
    const at = this.parser.position - this.chunkStart;
    const before = (this.previousTail + this.chunk.slice(0, Math.max(0, at))).slice(-40);
    const around = JSON.stringify(before + this.chunk.slice(Math.max(0, at), at + 40));
    throw new FeedError(
      `malformed XML at line ${this.parser.line}, column ${this.parser.column}: ${message} Near ${around}`,
    );
  }

  private touch(): void {
    this.lastEvent = this.parser.position;
  }

  private onOpen(tag: SaxesTag): void {
    this.touch();
    if (this.rootClosed) return;
    const parent = this.path[this.path.length - 1];
    const scope = scopeOf(tag, parent?.scope ?? NO_PREFIXES);
    const name = nameOf(tag.name, scope);
    const key = name?.toLowerCase() ?? null;
    this.path.push({ key, name: name ?? tag.name, scope });
    if (this.path.length > MAX_DEPTH) {
      throw new FeedError(
        `elements nested deeper than ${MAX_DEPTH} levels at line ${this.parser.line}: refused, nothing was imported`,
      );
    }
    if (this.root === null) this.root = name ?? tag.name;
    if (this.open.length === 0) {
      const depth = this.path.length;
      if (key === "listing" && (depth === 2 || (depth === 3 && parent?.key === "listings")))
        this.startListing(tag, scope);
      else if (depth === 2 || (depth === 3 && parent?.key !== "header"))
        this.remember(depth === 2 ? tag.name : `${parent!.name}/${tag.name}`);
      return;
    }
    if (key === null || this.skipDepth > 0) {
      this.skipDepth++;
      return;
    }
    const holder = this.open[this.open.length - 1]!;
    const element: XmlElement = {
      name: name!,
      key,
      parent: holder,
      attributes: attributesOf(tag, scope),
      children: [],
      text: "",
      line: this.parser.line,
    };
    if (!this.tooLarge) holder.children.push(element);
    this.open.push(element);
  }

  private remember(name: string): void {
    if (this.found.has(name) || this.found.size < MAX_FOUND_NAMES)
      this.found.set(name, (this.found.get(name) ?? 0) + 1);
  }

  private startListing(tag: SaxesTag, scope: Scope): void {
    this.listings++;
    this.open.push({
      name: "Listing",
      key: "listing",
      parent: null,
      attributes: attributesOf(tag, scope),
      children: [],
      text: "",
      line: this.parser.line,
    });
    this.chars = 0;
    this.tooLarge = false;
  }

  private onClose(): void {
    this.touch();
    if (this.rootClosed) return;
    this.path.pop();
    if (this.path.length === 0) this.rootClosed = true;
    if (this.open.length === 0) return;
    if (this.skipDepth > 0) {
      this.skipDepth--;
      return;
    }
    const element = this.open.pop()!;
    if (this.open.length === 0) this.ready.push({ element, tooLarge: this.tooLarge });
  }

  private onText(text: string): void {
    this.touch();
    if (this.open.length === 0 || this.skipDepth > 0) return;
    const element = this.open[this.open.length - 1]!;
    this.chars += text.length;
    if (this.chars > MAX_LISTING_CHARS) {
      // Keep only what identifies the listing, so the rejection can name it.
      this.tooLarge = true;
      if (element.key !== "listingid" || this.chars > 2 * MAX_LISTING_CHARS) return;
    }
    element.text += text;
  }
}
