// Streams a VRSync document through saxes and hands over one small element tree per Listing, so
// memory holds a single listing however large the feed.
import { SaxesParser, type SaxesAttributeNS, type SaxesTagNS } from "saxes";
import { FeedError } from "../listing.ts";
import { EXTENSION_NAMESPACE, EXTENSION_PREFIX, VRSYNC_NAMESPACE } from "./vocabulary.ts";

/**
 * An element of a listing. VRSync elements keep their local name; elements and attributes of the
 * partner-api extension namespace are named "pa:<local>" whatever prefix the feed used.
 */
export interface XmlElement {
  name: string;
  attributes: Map<string, string>;
  children: XmlElement[];
  text: string;
  /** Line of the opening tag, for rejection messages. */
  line: number;
}

export interface ListingTree {
  element: XmlElement;
  /** Set when the listing outgrew MAX_LISTING_CHARS: its text was dropped, only its ListingID kept. */
  tooLarge: boolean;
}

/** One listing's text is capped, so a feed cannot exhaust memory with a single huge element. */
export const MAX_LISTING_CHARS = 1_000_000;

/**
 * Unprefixed elements are VRSync whatever the default namespace says (portals' clones of the
 * format declare their own); prefixed ones only in the VRSync or the extension namespace.
 */
function nameOf(tag: SaxesTagNS): string | null {
  if (tag.uri === EXTENSION_NAMESPACE) return `${EXTENSION_PREFIX}:${tag.local}`;
  if (tag.prefix === "" || tag.uri === VRSYNC_NAMESPACE) return tag.local;
  return null; // another vocabulary: not ours to read
}

function attributesOf(tag: SaxesTagNS): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const attribute of Object.values(tag.attributes) as SaxesAttributeNS[]) {
    if (attribute.prefix === "xmlns" || attribute.name === "xmlns") continue;
    // Unprefixed attributes are in no namespace (XML Namespaces §6.2), whatever the default is.
    const name = attribute.prefix === "" ? attribute.local : attribute.uri === EXTENSION_NAMESPACE ? `${EXTENSION_PREFIX}:${attribute.local}` : null;
    if (name !== null) attributes.set(name, attribute.value);
  }
  return attributes;
}

/**
 * Feed it text chunks with write(); completed listings accumulate in `ready` (drain them after
 * each write). Malformed XML throws FeedError naming the line and column.
 */
export class ListingTreeReader {
  readonly ready: ListingTree[] = [];
  private readonly parser = new SaxesParser({ xmlns: true, position: true });
  /** Names of the open elements, outermost first; null for skipped vocabularies. */
  private readonly path: (string | null)[] = [];
  /** Open elements of the listing being captured, outermost (the Listing) first. */
  private readonly open: XmlElement[] = [];
  private skipDepth = 0;
  private chars = 0;
  private tooLarge = false;
  private sawRoot = false;

  constructor() {
    this.parser.on("error", (error) => {
      const message = error.message.replace(/^\d+:\d+: /, "");
      throw new FeedError(`malformed XML at line ${this.parser.line}, column ${this.parser.column}: ${message}`);
    });
    this.parser.on("opentag", (tag) => this.onOpen(tag as SaxesTagNS));
    this.parser.on("closetag", () => this.onClose());
    this.parser.on("text", (text) => this.onText(text));
    this.parser.on("cdata", (text) => this.onText(text));
  }

  write(chunk: string): void {
    this.parser.write(chunk);
  }

  close(): void {
    this.parser.close();
    if (!this.sawRoot) throw new FeedError("the feed has no root element");
  }

  private onOpen(tag: SaxesTagNS): void {
    const name = nameOf(tag);
    if (!this.sawRoot) {
      this.sawRoot = true;
      if (name !== "ListingDataFeed") throw new FeedError(`not a VRSync feed: the root element is <${tag.name}>, not <ListingDataFeed>`);
    }
    const parent = this.path[this.path.length - 1];
    this.path.push(name);
    if (this.open.length === 0) {
      if (name === "Listing" && parent === "Listings" && this.path.length === 3) this.startListing(tag);
      return;
    }
    if (name === null || this.skipDepth > 0) {
      this.skipDepth++;
      return;
    }
    const element: XmlElement = { name, attributes: attributesOf(tag), children: [], text: "", line: this.parser.line };
    if (!this.tooLarge) this.open[this.open.length - 1]!.children.push(element);
    this.open.push(element);
  }

  private startListing(tag: SaxesTagNS): void {
    this.open.push({ name: "Listing", attributes: attributesOf(tag), children: [], text: "", line: this.parser.line });
    this.chars = 0;
    this.tooLarge = false;
  }

  private onClose(): void {
    this.path.pop();
    if (this.open.length === 0) return;
    if (this.skipDepth > 0) {
      this.skipDepth--;
      return;
    }
    const element = this.open.pop()!;
    if (this.open.length === 0) this.ready.push({ element, tooLarge: this.tooLarge });
  }

  private onText(text: string): void {
    if (this.open.length === 0 || this.skipDepth > 0) return;
    const element = this.open[this.open.length - 1]!;
    this.chars += text.length;
    if (this.chars > MAX_LISTING_CHARS) {
      // Keep only what identifies the listing, so the rejection can name it.
      this.tooLarge = true;
      if (element.name !== "ListingID" || this.chars > 2 * MAX_LISTING_CHARS) return;
    }
    element.text += text;
  }
}
