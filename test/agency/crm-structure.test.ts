// docs/reference/behaviour-extensions.md §16, Encodings and structure: documents as PHP and hand-made generators leave them are
// read with a warning; hostile documents (entity bombs, external entities, huge nodes, deep
// nesting) and other malformed XML are refused whole: nothing changes and the message says why.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { importFeed } from "../../src/agency/import.ts";
import { FeedError } from "../../src/formats/listing.ts";
import { MAX_DEPTH, MAX_NODE_CHARS } from "../../src/formats/vrsync/tree.ts";
import { CRM_FIXTURES, importAndRead } from "./crm-helpers.ts";
import { lastSequence, publishedProperties, tempDir } from "./helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());

const structure = (name: string) => `structure/${name}`;
const noticesOf = (summary: Awaited<ReturnType<typeof importAndRead>>["summary"]) =>
  summary.warningList.filter((w) => w.code === null).map((w) => [w.kind, w.line]);

describe("byte order marks and declared encodings", () => {
  const titles: [string, string, string][] = [
    ["latin1-declared.xml", "S-LATIN1", "Apartamento na Lapa, São Paulo"],
    ["windows-1252-declared.xml", "S-CP1252", "“Cobertura” – vista do mar €"],
    ["utf16le-bom.xml", "S-UTF16", "Sobrado em Itajaí, ação e €"],
    ["utf16be-bom.xml", "S-UTF16", "Sobrado em Itajaí, ação e €"],
    ["utf8-bom-declared-latin1.xml", "S-BOM", "Casa em Maringá"],
  ];
  for (const [file, code, title] of titles) {
    test(`${file}: read without a warning`, async () => {
      const { summary, records } = await importAndRead(dir, structure(file));
      expect(records.get(code)!.title).toBe(title);
      expect(summary.warningList).toEqual([]);
    });
  }

  test("bytes that are not UTF-8 in an undeclared feed are read as windows-1252, with one warning", async () => {
    const { summary, records } = await importAndRead(dir, structure("invalid-utf8.xml"));
    expect(records.get("S-MIXED")).toMatchObject({
      title: "Casa em São José",
      description: "Três quartos, cozinha americana e área de serviço",
    });
    expect(summary.warningList).toEqual([
      expect.objectContaining({
        kind: "ENCODING",
        code: null,
        line: 4,
        message: expect.stringContaining("windows-1252"),
      }),
    ]);
  });

  test("the same in a feed declared UTF-8: valid UTF-8 kept, the rest read as windows-1252, one warning at the first bad byte", async () => {
    const { summary, records } = await importAndRead(dir, structure("invalid-utf8-declared.xml"));
    expect(records.get("S-MIXED-DECLARED")).toMatchObject({
      title: "Apartamento em Florianópolis",
      description: "Sacada com vista, “pé direito” alto – R$ 3.500 €",
      photos: [{ alt: "Sala de estar e área" }],
    });
    expect(summary.warningList).toEqual([
      expect.objectContaining({
        kind: "ENCODING",
        code: null,
        line: 6,
        message: expect.stringContaining("windows-1252"),
      }),
    ]);
  });
});

describe("what generators leave behind is read with a warning", () => {
  test("element and attribute names in any case", async () => {
    const { summary, records } = await importAndRead(dir, structure("lowercase-names.xml"));
    expect(records.get("S-CASE")).toMatchObject({
      title: "Nomes em minúsculas",
      operationType: "RENT",
      pricing: { rentalPrice: 2500 },
      features: { bedrooms: 2 },
      address: { visibility: "STREET", state: "Santa Catarina", uf: "SC", city: "Florianópolis" },
    });
    expect(summary.warningList).toEqual([]);
  });

  test("blank space before the XML declaration and a PHP warning after the root element", async () => {
    const { summary, records } = await importAndRead(dir, structure("junk-around.xml"));
    expect(records.get("S-JUNK")!.title).toBe("Lixo em volta do documento");
    expect(noticesOf(summary)).toEqual([
      ["XML_REPAIRED", 1],
      ["XML_REPAIRED", 7],
    ]);
  });

  test("control characters XML forbids are dropped", async () => {
    const { summary, records } = await importAndRead(dir, structure("control-chars.xml"));
    expect(records.get("S-CONTROL")).toMatchObject({ title: "Título com controles", description: "Descrição" });
    expect(noticesOf(summary)).toEqual([["XML_REPAIRED", 4]]);
  });

  test("HTML named entities the document never declares are read as their characters", async () => {
    const { summary, records } = await importAndRead(dir, structure("html-entities.xml"));
    expect(records.get("S-HTML")).toMatchObject({
      title: "Apartamento\u00a0no Jardim Botânico",
      description: "Três quartos, çozinha… & vista",
    });
    expect(summary.warnings).toEqual({ HTML_ENTITY: 5 });
    expect(summary.warningList[0]).toMatchObject({ kind: "HTML_ENTITY", value: "&nbsp;", line: 4 });
  });

  test("entities declared in the internal DTD subset are expanded (nested, with character references)", async () => {
    const { summary, records } = await importAndRead(dir, structure("dtd-entities.xml"));
    expect(records.get("S-DTD")).toMatchObject({
      title: "Imobiliária Exemplo – desde 1990",
      description: "Anunciado por Imobiliária Exemplo.",
    });
    expect(summary.warningList).toEqual([]);
  });

  test("Listing elements directly under the root are read as under Listings", async () => {
    const { records } = await importAndRead(dir, structure("listing-under-root.xml"));
    expect([...records.keys()].sort()).toEqual(["S-ROOT-1", "S-ROOT-2"]);
  });

  test("an empty feed is a feed of no listings", async () => {
    const { summary } = await importAndRead(dir, structure("empty-feed.xml"));
    expect(summary).toMatchObject({ created: 0, rejected: 0 });
  });
});

/** Imports `feed` over a database holding one listing; the import must fail and change nothing. */
async function refusedWhole(feed: string): Promise<string> {
  const db = dir.path(`refused-${Math.random().toString(36).slice(2)}.sqlite`);
  await importFeed(db, join(CRM_FIXTURES, "structure/listing-under-root.xml"));
  const before = publishedProperties(db);
  const sequence = lastSequence(db);
  const error = await importFeed(db, feed).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(FeedError);
  expect(publishedProperties(db)).toEqual(before);
  expect(lastSequence(db)).toBe(sequence);
  return (error as Error).message;
}

describe("a document in which no listing is found is an error naming what was found", () => {
  test("other elements under the root", async () => {
    expect(await refusedWhole(join(CRM_FIXTURES, "structure/no-listing.xml"))).toBe(
      "no <Listing> element was found in the feed; it holds <Header>, <Imoveis>, <Imoveis/Imovel> ×3",
    );
  });

  test("other elements under Listings", async () => {
    expect(await refusedWhole(join(CRM_FIXTURES, "structure/no-listing-in-listings.xml"))).toBe(
      "no <Listing> element was found in the feed; it holds <Listings>, <Listings/Property> ×2",
    );
  });

  test("another document altogether", async () => {
    const path = dir.path("rss.xml");
    writeFileSync(path, "<rss><channel><item/><item/></channel></rss>");
    expect(await refusedWhole(path)).toBe(
      "not a VRSync feed: the root element is <rss>, not <ListingDataFeed>, and no <Listing> was found (it holds <channel>, <channel/item> ×2)",
    );
  });
});

describe("hostile documents are refused cleanly: nothing changes and the message says why", () => {
  test("an entity expansion bomb (billion laughs)", async () => {
    expect(await refusedWhole(join(CRM_FIXTURES, "structure/entity-bomb.xml"))).toContain(
      "expand to more than 10,000 references or 1 MiB of text",
    );
  });

  test("a quadratic blow-up: few expansions of one large entity", async () => {
    expect(await refusedWhole(join(CRM_FIXTURES, "structure/quadratic-blowup.xml"))).toContain("1 MiB of text");
  });

  describe("the budget is 10,000 expansions and 1 MiB of text in the whole document: exactly that is read, one more refuses", () => {
    let feeds = 0;
    /** A feed whose internal DTD subset declares `entities`, with one listing per description. */
    function withEntities(entities: Record<string, string>, descriptions: string[]): string {
      const path = dir.path(`entities-${++feeds}.xml`);
      const dtd = Object.entries(entities)
        .map(([name, value]) => ` <!ENTITY ${name} "${value}">`)
        .join("\n");
      const listings = descriptions.map(
        (description, i) =>
          `<Listing><ListingID>E-${i + 1}</ListingID><Title>t</Title><TransactionType>For Sale</TransactionType><Details><Description>${description}</Description></Details></Listing>`,
      );
      writeFileSync(
        path,
        `<?xml version="1.0"?>\n<!DOCTYPE ListingDataFeed [\n${dtd}\n]>\n<ListingDataFeed><Listings>\n${listings.join("\n")}\n</Listings></ListingDataFeed>\n`,
      );
      return path;
    }

    async function descriptionsOf(feed: string): Promise<string[]> {
      const db = dir.path(`entities-${++feeds}.sqlite`);
      expect(await importFeed(db, feed)).toMatchObject({ rejected: 0, warnings: {} });
      return publishedProperties(db).map((p) => p.description as string);
    }

    test("10,000 expansions, nested ones counted: an entity of four references costs five", async () => {
      const entities = { x: "x", four: "&x;&x;&x;&x;" };
      expect(await descriptionsOf(withEntities(entities, ["&x;".repeat(10_000)]))).toEqual(["x".repeat(10_000)]);
      expect(await descriptionsOf(withEntities(entities, ["&four;".repeat(2_000)]))).toEqual(["x".repeat(8_000)]);
      for (const description of ["&x;".repeat(10_001), `${"&four;".repeat(2_000)}&x;`]) {
        expect(await refusedWhole(withEntities(entities, [description]))).toContain(
          "more than 10,000 references or 1 MiB of text",
        );
      }
    });

    test("1 MiB (1,048,576 characters) of expanded text over the document's listings", async () => {
      const entities = { kib: "y".repeat(1024), x: "x" };
      const sixteenListings = Array.from({ length: 16 }, () => "&kib;".repeat(64)); // 16 × 64 KiB
      expect(await descriptionsOf(withEntities(entities, sixteenListings))).toEqual(
        Array.from({ length: 16 }, () => "y".repeat(64 * 1024)),
      );
      expect(
        await refusedWhole(withEntities(entities, [...sixteenListings.slice(1), `${sixteenListings[0]}&x;`])),
      ).toContain("1 MiB of text");
    });
  });

  test("an external entity is never fetched: its reference refuses the feed", async () => {
    let fetched = 0;
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => (fetched++, new Response("stolen")) });
    try {
      const path = dir.path("xxe-http.xml");
      const xml = await Bun.file(join(CRM_FIXTURES, "structure/external-entity.xml")).text();
      writeFileSync(path, xml.replace("file:///etc/passwd", `http://127.0.0.1:${server.port}/secret`));
      expect(await refusedWhole(path)).toContain(
        `the feed refers to the external entity &secret; (SYSTEM "http://127.0.0.1:${server.port}/secret"): external entities are never fetched`,
      );
      expect(await refusedWhole(join(CRM_FIXTURES, "structure/external-entity.xml"))).toContain("file:///etc/passwd");
      expect(fetched).toBe(0);
    } finally {
      server.stop(true);
    }
  });

  test("a 100 MB single text node is refused without being held whole", async () => {
    const path = dir.path("huge-node.xml");
    const writer = Bun.file(path).writer();
    writer.write(
      "<ListingDataFeed><Listings><Listing><ListingID>HUGE</ListingID><Title>t</Title><TransactionType>For Sale</TransactionType><Details><Description>",
    );
    const block = "x".repeat(1 << 20);
    for (let i = 0; i < 100; i++) writer.write(block);
    writer.write("</Description></Details></Listing></Listings></ListingDataFeed>");
    await writer.end();
    expect(await refusedWhole(path)).toBe(
      `a single XML node (text, CDATA, comment or tag) longer than ${MAX_NODE_CHARS.toLocaleString("en-US")} characters at line 1: refused, nothing was imported`,
    );
  });

  test("deeply nested elements", async () => {
    const path = dir.path("deep.xml");
    const depth = 100_000;
    writeFileSync(
      path,
      `<ListingDataFeed><Listings>${"<a>".repeat(depth)}${"</a>".repeat(depth)}</Listings></ListingDataFeed>`,
    );
    expect(await refusedWhole(path)).toBe(
      `elements nested deeper than ${MAX_DEPTH} levels at line 1: refused, nothing was imported`,
    );
  });

  test("other malformed XML names the line, the column and the text around it", async () => {
    const path = dir.path("malformed.xml");
    writeFileSync(
      path,
      "<ListingDataFeed>\n<Listings>\n<Listing><ListingID>M</ListingID><Title>Casa</Titel></Listing>\n</Listings></ListingDataFeed>",
    );
    expect(await refusedWhole(path)).toMatch(
      /^malformed XML at line 3, column \d+: unexpected close tag\. Near ".*<Title>Casa<\/Titel>.*"$/,
    );
  });

  test("a database that did not exist is not created", async () => {
    const db = dir.path("never.sqlite");
    await expect(importFeed(db, join(CRM_FIXTURES, "structure/entity-bomb.xml"))).rejects.toBeInstanceOf(FeedError);
    expect(existsSync(db)).toBe(false);
  });
});

describe("--strict refuses what the document needed repaired", () => {
  test("a warning about the feed as a whole refuses the feed", async () => {
    const error = await importFeed(dir.path("strict.sqlite"), join(CRM_FIXTURES, "structure/junk-around.xml"), {
      strict: true,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FeedError);
    expect((error as Error).message).toBe("--strict: blank space before the XML declaration: skipped (line 1)");
  });
});
