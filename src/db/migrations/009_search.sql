-- Schema 9: what listing search needs (docs/reference/behaviour-partners.md §20). Filters, sorts,
-- totals and facets are answered from an in-memory index of the published listings
-- (src/modules/search/listing-index.ts), built from these rows and kept current from the change
-- log, which folds the places itself. The database keeps only the word index of `q` and two
-- generated columns the index reads.
--
-- Nothing here nests deeper than the SQLite of the distributions agencies run (3.31 and later)
-- parses: their sqlite3 shell and Python must open the file (docs/operators/running.md).

-- The deal's own price and the area a search compares.
ALTER TABLE properties ADD COLUMN deal_price NUMERIC GENERATED ALWAYS AS
  (CASE operation_type WHEN 'SALE' THEN sale_price ELSE rental_price END) VIRTUAL;
ALTER TABLE properties ADD COLUMN search_area NUMERIC GENERATED ALWAYS AS (coalesce(built_area, total_area)) VIRTUAL;

-- The words of `q`: accent-folding tokens of the searchable text of each published listing. The
-- street, number and complement are not in it, so a hidden street can never be matched. Only
-- which listings hold a word is kept (`detail = none`: no columns, no positions; `q` has neither),
-- and no column sizes (no ranking): a third of the size and three times quicker to fill than
-- with columns kept. Every word's first letter is indexed too (`prefix = '1'`): a one-letter `q`
-- (the last word is a prefix) reads one list instead of merging the lists of every word that
-- letter begins (12 ms instead of 219 ms for 300,000 listings, for a fill 1.8 times as long).
-- Its text is read from `properties` (external content: nothing copied), so any SQLite reader
-- can scan the table, as a contentless one without columns cannot; the index holds the
-- published listings only, kept by the triggers below, which delete an entry by giving the
-- values it was written with. Never run its 'rebuild' command: it would index every listing.
CREATE VIRTUAL TABLE property_words USING fts5(
  title, description, property_type, neighborhood, city, code, amenities,
  content = 'properties', content_rowid = 'rowid',
  detail = none, columnsize = 0, prefix = '1', tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER properties_search_insert AFTER INSERT ON properties WHEN new.is_published = 1
BEGIN
  INSERT INTO property_words (rowid, title, description, property_type, neighborhood, city, code, amenities)
    VALUES (new.rowid, new.title, new.description, new.property_type, new.neighborhood, new.city, new.code,
            new.amenities);
END;

CREATE TRIGGER properties_search_delete AFTER DELETE ON properties WHEN old.is_published = 1
BEGIN
  INSERT INTO property_words (property_words, rowid, title, description, property_type, neighborhood, city, code,
                              amenities)
    VALUES ('delete', old.rowid, old.title, old.description, old.property_type, old.neighborhood, old.city, old.code,
            old.amenities);
END;

-- Written again whenever a searchable column changes or the listing is published or withdrawn.
CREATE TRIGGER properties_search_update AFTER UPDATE OF
  is_published, title, description, property_type, neighborhood, city, code, amenities
  ON properties
  WHEN old.is_published = 1 OR new.is_published = 1
BEGIN
  INSERT INTO property_words (property_words, rowid, title, description, property_type, neighborhood, city, code,
                              amenities)
    SELECT 'delete', old.rowid, old.title, old.description, old.property_type, old.neighborhood, old.city, old.code,
           old.amenities
     WHERE old.is_published = 1;
  INSERT INTO property_words (rowid, title, description, property_type, neighborhood, city, code, amenities)
    SELECT new.rowid, new.title, new.description, new.property_type, new.neighborhood, new.city, new.code,
           new.amenities
     WHERE new.is_published = 1;
END;
