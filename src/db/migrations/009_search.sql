-- Schema 9: what listing search needs (docs/reference/behaviour-partners.md §20). FOLD(x) is
-- written out by migrate.ts from src/db/fold.ts (accents off, ASCII lower case).
--
-- Everything here is kept by the database itself (checks, generated columns, triggers), so the
-- server, imports, feed runs and any other writer keep it right; bulk loads into a file no one
-- else sees (the seed, an import into a new file) set the triggers aside and fill the tables in
-- one pass after their load (src/db/bulk-load.ts, rebuild-search.sql). The side tables hold
-- only published listings, keyed by the listing's rowid.

-- Place keys as the filters read them. Stored, written with the place by every writer of
-- properties (src/db/fold.ts, placeKeys) and checked below: as generated columns they were
-- folded again by each index, trigger and scan that read them (a fifth of what this schema
-- added to an import).
ALTER TABLE properties ADD COLUMN city_key TEXT;
ALTER TABLE properties ADD COLUMN neighborhood_key TEXT;
ALTER TABLE properties ADD COLUMN uf_key TEXT;
UPDATE properties SET city_key = FOLD(city), neighborhood_key = FOLD(neighborhood), uf_key = FOLD(uf);

-- A writer that leaves a key out of step with its place is refused: no search could find the listing by it.
CREATE TRIGGER properties_place_keys_insert BEFORE INSERT ON properties
  WHEN new.city_key IS NOT FOLD(new.city) OR new.neighborhood_key IS NOT FOLD(new.neighborhood)
    OR new.uf_key IS NOT FOLD(new.uf)
BEGIN
  SELECT RAISE(ABORT, 'properties: city_key, neighborhood_key and uf_key must be written folded with the place');
END;
CREATE TRIGGER properties_place_keys_update BEFORE UPDATE OF city, neighborhood, uf, city_key, neighborhood_key, uf_key
  ON properties
  WHEN new.city_key IS NOT FOLD(new.city) OR new.neighborhood_key IS NOT FOLD(new.neighborhood)
    OR new.uf_key IS NOT FOLD(new.uf)
BEGIN
  SELECT RAISE(ABORT, 'properties: city_key, neighborhood_key and uf_key must be written folded with the place');
END;

-- The deal's own price and the area a search compares.
ALTER TABLE properties ADD COLUMN deal_price NUMERIC GENERATED ALWAYS AS
  (CASE operation_type WHEN 'SALE' THEN sale_price ELSE rental_price END) VIRTUAL;
ALTER TABLE properties ADD COLUMN search_area NUMERIC GENERATED ALWAYS AS (coalesce(built_area, total_area)) VIRTUAL;

-- ---- Read side: indexes, side tables and their triggers (the search engineer's block) ----

-- A city's listings with every column a search filters on, the deal and its price first:
-- a city's search by deal and price seeks its entries, and counting a city's matches under
-- any other filters reads this index alone, never the listings' rows.
CREATE INDEX properties_published_city ON properties(
  city_key, operation_type, deal_price, neighborhood_key, bedrooms, search_area, bathrooms, suites, parking_spaces,
  is_furnished, accepts_financing, exclusive, property_type, status, highlight, uf_key, created_at, id
) WHERE is_published = 1;
-- The same for a state (a state has far more listings than most cities).
CREATE INDEX properties_published_uf ON properties(
  uf_key, operation_type, deal_price, bedrooms, search_area, bathrooms, suites, parking_spaces,
  is_furnished, accepts_financing, exclusive, property_type, status, highlight, created_at, id
) WHERE is_published = 1;
-- A neighbourhood's listings in the default order after the key: its newest are read in order.
CREATE INDEX properties_published_neighborhood ON properties(neighborhood_key, created_at, id) WHERE is_published = 1;
-- Price and area orders, listings without the value last either way: the first index read
-- forwards gives the ascending order, the second read backwards the descending one.
CREATE INDEX properties_published_price ON properties(deal_price IS NULL, deal_price, id) WHERE is_published = 1;
CREATE INDEX properties_published_price_desc ON properties(deal_price IS NULL DESC, deal_price, id) WHERE is_published = 1;
-- The same price orders within one deal (a website sorts sales or rentals by price, rarely
-- both): a deep page is found by walking this index alone, never the listings' rows.
CREATE INDEX properties_published_deal_price ON properties(operation_type, deal_price IS NULL, deal_price, id) WHERE is_published = 1;
CREATE INDEX properties_published_deal_price_desc ON properties(operation_type, deal_price IS NULL DESC, deal_price, id) WHERE is_published = 1;
-- The price orders within one city: a deep page of a city by price walks its own entries. The
-- key is written `city_key || ''` so only that walk names it: on city_key itself the planner
-- took it for any search of a city, reading rows the covering index above already holds.
CREATE INDEX properties_published_city_price ON properties((city_key || ''), deal_price IS NULL, deal_price, id)
  WHERE is_published = 1;
CREATE INDEX properties_published_city_price_desc ON properties((city_key || ''), deal_price IS NULL DESC, deal_price, id)
  WHERE is_published = 1;
CREATE INDEX properties_published_area ON properties(search_area IS NULL, search_area, id) WHERE is_published = 1;
CREATE INDEX properties_published_area_desc ON properties(search_area IS NULL DESC, search_area, id) WHERE is_published = 1;

-- What a text search is narrowed by inside the word index (`terms` below): each token stands
-- for one filter value, written so no word of `q` can spell it (a letter pair, then the value
-- in hexadecimal or a digit): the place keys (`ci`, `nb`, `uf`), the deal (`op`), the type
-- (`ty`), "at least k" rooms up to 5 (`bd`, `bt`, `st`, `pk` followed by k; none for an unknown
-- count) and the three flags. Last come the deal's token and the rooms' from 2 up again, each
-- paired with the city (`c`, the city key in hexadecimal, `x`, then the token): a text search in
-- a city with a deal or 2+ rooms asks for those, whose lists hold only that city's share (the
-- word index reads every entry of a long list between the words' matches: for "cobertura" in
-- São Paulo or Rio with 2+ suites at 1M, 69,000 entries instead of 500,000). At least 0 or 1
-- room is most listings of a city anyway.
-- modules/search/terms.ts writes the same tokens for a search's filters.
ALTER TABLE properties ADD COLUMN search_terms TEXT GENERATED ALWAYS AS (
  'ci' || hex(city_key) || ' nb' || hex(neighborhood_key) || ' uf' || hex(uf_key) || ' ty' || hex(property_type)
  || ' op' || operation_type
  || coalesce(substr(' bd0 bd1 bd2 bd3 bd4 bd5', 1, 4 * (floor(min(bedrooms, 5)) + 1)), '')
  || coalesce(substr(' bt0 bt1 bt2 bt3 bt4 bt5', 1, 4 * (floor(min(bathrooms, 5)) + 1)), '')
  || coalesce(substr(' st0 st1 st2 st3 st4 st5', 1, 4 * (floor(min(suites, 5)) + 1)), '')
  || coalesce(substr(' pk0 pk1 pk2 pk3 pk4 pk5', 1, 4 * (floor(min(parking_spaces, 5)) + 1)), '')
  || iif(is_furnished = 1, ' fu', '') || iif(accepts_financing = 1, ' fi', '') || iif(exclusive = 1, ' ex', '')
  || iif(city_key <> '', replace(
    ' op' || operation_type
    || coalesce(substr(' bd2 bd3 bd4 bd5', 1, 4 * (floor(min(bedrooms, 5)) - 1)), '')
    || coalesce(substr(' bt2 bt3 bt4 bt5', 1, 4 * (floor(min(bathrooms, 5)) - 1)), '')
    || coalesce(substr(' st2 st3 st4 st5', 1, 4 * (floor(min(suites, 5)) - 1)), '')
    || coalesce(substr(' pk2 pk3 pk4 pk5', 1, 4 * (floor(min(parking_spaces, 5)) - 1)), ''),
    ' ', ' c' || hex(city_key) || 'x'), '')
) VIRTUAL;

-- The words of `q`: accent-folding tokens of the searchable text, each listing's filter tokens
-- in the column `terms` (which `q` never reads). The street, number and complement are not in
-- it, so a hidden street can never be matched. Only which columns hold a word is kept, not its
-- positions (`q` has no phrases): a smaller index, quicker to write and to read.
CREATE VIRTUAL TABLE property_words USING fts5(
  title, description, property_type, neighborhood, city, code, amenities, terms,
  content = '', contentless_delete = 1, detail = column, tokenize = 'unicode61 remove_diacritics 2'
);

-- Map positions: the stored coordinates in strips of a hundredth of a degree of latitude
-- (about 1.1 km), then by longitude, with what a map search filters and sorts on beside them.
-- A box or circle reads its few strips, each a range of longitudes. Partners are shown
-- coordinates rounded to 3 decimals (STREET) or none (NEIGHBORHOOD): their searches widen the
-- range by the rounding and compare the shown values, computed from `display_address` here.
CREATE INDEX properties_published_map ON properties(
  floor(latitude * 100), longitude, latitude, display_address, operation_type, property_type, deal_price, search_area,
  bedrooms, created_at, id
) WHERE is_published = 1 AND latitude IS NOT NULL;

-- The price and area orders' keys of each published listing, by its rowid: a text search's few
-- matches are put in those orders by reading their keys here (a few bytes each) instead of their
-- rows, and instead of walking an order's index past the many listings that are not matches.
CREATE TABLE property_sort_keys (
  property INTEGER PRIMARY KEY,
  price    NUMERIC,
  area     NUMERIC
);

-- Amenities one row each, folded (`key`) and as written (`value`; of two spellings of one
-- amenity in a listing, the first in code-point order).
CREATE TABLE property_amenities (
  key      TEXT    NOT NULL,
  property INTEGER NOT NULL,
  value    TEXT    NOT NULL,
  PRIMARY KEY (key, property)
) WITHOUT ROWID;
CREATE INDEX property_amenities_property ON property_amenities(property);

-- Published listings by the value of each facet (docs/reference/behaviour-partners.md §20):
-- places and amenities by folded key and spelling, the rest by value ('' for NULL is never
-- written: a listing without the value is in no row of that facet), each counted apart per
-- state, city and deal of the listings (folded; '' for none). The facets of an unfiltered
-- search, the place values, and the exact total of one such filter alone are read from here
-- (a few thousand rows) instead of counting a million; so are the facets and the total of a
-- search by state, city and deal alone, a website's first page. One facet no partner asks for,
-- `area`, counts by whole tens of m² (key: the ten, zero-padded so keys sort as numbers): an
-- area range alone is counted from its whole tens here and its two edges in the area index.
CREATE TABLE property_facet_counts (
  facet     TEXT    NOT NULL,
  key       TEXT    NOT NULL,
  value     TEXT    NOT NULL,
  uf        TEXT    NOT NULL,
  city      TEXT    NOT NULL,
  operation TEXT    NOT NULL,
  n         INTEGER NOT NULL,
  PRIMARY KEY (facet, key, value, uf, city, operation)
) WITHOUT ROWID;

CREATE TRIGGER properties_search_insert AFTER INSERT ON properties WHEN new.is_published = 1
BEGIN
  INSERT INTO property_words (rowid, title, description, property_type, neighborhood, city, code, amenities, terms)
    VALUES (new.rowid, new.title, new.description, new.property_type, new.neighborhood, new.city, new.code, new.amenities,
            new.search_terms);
  INSERT INTO property_sort_keys (property, price, area) VALUES (new.rowid, new.deal_price, new.search_area);
  INSERT INTO property_amenities (key, property, value)
    SELECT key, new.rowid, value FROM (
      SELECT FOLD(value) AS key, min(value) AS value FROM json_each(new.amenities) WHERE type = 'text' GROUP BY 1)
    WHERE key <> '';
  INSERT INTO property_facet_counts (facet, key, value, uf, city, operation, n)
    SELECT facet, key, value, coalesce(new.uf_key, ''), coalesce(new.city_key, ''), new.operation_type, 1
      FROM (SELECT 'city' AS facet, new.city_key AS key, new.city AS value WHERE new.city_key <> ''
    UNION ALL SELECT 'neighborhood', new.neighborhood_key, new.neighborhood WHERE new.neighborhood_key <> ''
    UNION ALL SELECT 'uf', new.uf_key, new.uf WHERE new.uf_key <> ''
    UNION ALL SELECT 'propertyType', new.property_type, new.property_type WHERE new.property_type IS NOT NULL
    UNION ALL SELECT 'operationType', new.operation_type, new.operation_type
    UNION ALL SELECT 'bedrooms', CAST(new.bedrooms AS TEXT), '' WHERE new.bedrooms IS NOT NULL
    UNION ALL SELECT 'bathrooms', CAST(new.bathrooms AS TEXT), '' WHERE new.bathrooms IS NOT NULL
    UNION ALL SELECT 'suites', CAST(new.suites AS TEXT), '' WHERE new.suites IS NOT NULL
    UNION ALL SELECT 'parkingSpaces', CAST(new.parking_spaces AS TEXT), '' WHERE new.parking_spaces IS NOT NULL
    UNION ALL SELECT 'isFurnished', CAST(new.is_furnished AS TEXT), ''
    UNION ALL SELECT 'acceptsFinancing', CAST(new.accepts_financing AS TEXT), ''
    UNION ALL SELECT 'exclusive', CAST(new.exclusive AS TEXT), ''
    UNION ALL SELECT 'area', printf('%010d', CAST(new.search_area AS INTEGER) / 10), '' WHERE new.search_area >= 0
    UNION ALL SELECT 'amenities', key, value FROM property_amenities WHERE property = new.rowid) WHERE true
    ON CONFLICT DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER properties_search_delete AFTER DELETE ON properties WHEN old.is_published = 1
BEGIN
  DELETE FROM property_words WHERE rowid = old.rowid;
  DELETE FROM property_amenities WHERE property = old.rowid;
  DELETE FROM property_sort_keys WHERE property = old.rowid;
END;

-- Written again whole whenever something they hold changes: rare (an import of new content, which
-- writes every column of a listing it updates).
CREATE TRIGGER properties_search_update AFTER UPDATE OF
  is_published, title, description, property_type, neighborhood, city, code, amenities,
  uf, operation_type, bedrooms, bathrooms, suites, parking_spaces, is_furnished, accepts_financing, exclusive,
  sale_price, rental_price, built_area, total_area
  ON properties
  WHEN old.is_published = 1 OR new.is_published = 1
BEGIN
  DELETE FROM property_words WHERE rowid = old.rowid AND old.is_published = 1;
  DELETE FROM property_amenities WHERE property = old.rowid AND old.is_published = 1;
  DELETE FROM property_sort_keys WHERE property = old.rowid AND old.is_published = 1;
  INSERT INTO property_words (rowid, title, description, property_type, neighborhood, city, code, amenities, terms)
    SELECT new.rowid, new.title, new.description, new.property_type, new.neighborhood, new.city, new.code, new.amenities,
           new.search_terms
    WHERE new.is_published = 1;
  INSERT INTO property_amenities (key, property, value)
    SELECT FOLD(value), new.rowid, min(value) FROM json_each(new.amenities)
     WHERE new.is_published = 1 AND type = 'text' AND FOLD(value) <> '' GROUP BY FOLD(value);
  INSERT INTO property_sort_keys (property, price, area)
    SELECT new.rowid, new.deal_price, new.search_area WHERE new.is_published = 1;
END;

-- The facet counters: one row less for what a listing was, one more for what it is.
CREATE TRIGGER properties_facets_delete AFTER DELETE ON properties WHEN old.is_published = 1
BEGIN
  UPDATE property_facet_counts SET n = n - 1
   WHERE (facet, key, value, uf, city, operation) IN (SELECT facet, key, value, coalesce(old.uf_key, ''), coalesce(old.city_key, ''), old.operation_type
     FROM (SELECT 'city' AS facet, old.city_key AS key, old.city AS value WHERE old.city_key <> ''
    UNION ALL SELECT 'neighborhood', old.neighborhood_key, old.neighborhood WHERE old.neighborhood_key <> ''
    UNION ALL SELECT 'uf', old.uf_key, old.uf WHERE old.uf_key <> ''
    UNION ALL SELECT 'propertyType', old.property_type, old.property_type WHERE old.property_type IS NOT NULL
    UNION ALL SELECT 'operationType', old.operation_type, old.operation_type
    UNION ALL SELECT 'bedrooms', CAST(old.bedrooms AS TEXT), '' WHERE old.bedrooms IS NOT NULL
    UNION ALL SELECT 'bathrooms', CAST(old.bathrooms AS TEXT), '' WHERE old.bathrooms IS NOT NULL
    UNION ALL SELECT 'suites', CAST(old.suites AS TEXT), '' WHERE old.suites IS NOT NULL
    UNION ALL SELECT 'parkingSpaces', CAST(old.parking_spaces AS TEXT), '' WHERE old.parking_spaces IS NOT NULL
    UNION ALL SELECT 'isFurnished', CAST(old.is_furnished AS TEXT), ''
    UNION ALL SELECT 'acceptsFinancing', CAST(old.accepts_financing AS TEXT), ''
    UNION ALL SELECT 'exclusive', CAST(old.exclusive AS TEXT), ''
    UNION ALL SELECT 'area', printf('%010d', CAST(old.search_area AS INTEGER) / 10), '' WHERE old.search_area >= 0
    UNION ALL SELECT 'amenities', FOLD(value), min(value) FROM json_each(old.amenities)
      WHERE type = 'text' AND FOLD(value) <> '' GROUP BY FOLD(value)));
END;

CREATE TRIGGER properties_facets_update AFTER UPDATE OF
  is_published, city, neighborhood, uf, property_type, operation_type, bedrooms, bathrooms, suites, parking_spaces,
  is_furnished, accepts_financing, exclusive, amenities, built_area, total_area
  ON properties
  WHEN old.is_published = 1 OR new.is_published = 1
BEGIN
  UPDATE property_facet_counts SET n = n - 1
   WHERE old.is_published = 1
     AND (facet, key, value, uf, city, operation) IN (SELECT facet, key, value, coalesce(old.uf_key, ''), coalesce(old.city_key, ''), old.operation_type
     FROM (SELECT 'city' AS facet, old.city_key AS key, old.city AS value WHERE old.city_key <> ''
    UNION ALL SELECT 'neighborhood', old.neighborhood_key, old.neighborhood WHERE old.neighborhood_key <> ''
    UNION ALL SELECT 'uf', old.uf_key, old.uf WHERE old.uf_key <> ''
    UNION ALL SELECT 'propertyType', old.property_type, old.property_type WHERE old.property_type IS NOT NULL
    UNION ALL SELECT 'operationType', old.operation_type, old.operation_type
    UNION ALL SELECT 'bedrooms', CAST(old.bedrooms AS TEXT), '' WHERE old.bedrooms IS NOT NULL
    UNION ALL SELECT 'bathrooms', CAST(old.bathrooms AS TEXT), '' WHERE old.bathrooms IS NOT NULL
    UNION ALL SELECT 'suites', CAST(old.suites AS TEXT), '' WHERE old.suites IS NOT NULL
    UNION ALL SELECT 'parkingSpaces', CAST(old.parking_spaces AS TEXT), '' WHERE old.parking_spaces IS NOT NULL
    UNION ALL SELECT 'isFurnished', CAST(old.is_furnished AS TEXT), ''
    UNION ALL SELECT 'acceptsFinancing', CAST(old.accepts_financing AS TEXT), ''
    UNION ALL SELECT 'exclusive', CAST(old.exclusive AS TEXT), ''
    UNION ALL SELECT 'area', printf('%010d', CAST(old.search_area AS INTEGER) / 10), '' WHERE old.search_area >= 0
    UNION ALL SELECT 'amenities', FOLD(value), min(value) FROM json_each(old.amenities)
      WHERE type = 'text' AND FOLD(value) <> '' GROUP BY FOLD(value)));
  INSERT INTO property_facet_counts (facet, key, value, uf, city, operation, n)
    SELECT facet, key, value, coalesce(new.uf_key, ''), coalesce(new.city_key, ''), new.operation_type, 1
      FROM (SELECT 'city' AS facet, new.city_key AS key, new.city AS value WHERE new.city_key <> ''
    UNION ALL SELECT 'neighborhood', new.neighborhood_key, new.neighborhood WHERE new.neighborhood_key <> ''
    UNION ALL SELECT 'uf', new.uf_key, new.uf WHERE new.uf_key <> ''
    UNION ALL SELECT 'propertyType', new.property_type, new.property_type WHERE new.property_type IS NOT NULL
    UNION ALL SELECT 'operationType', new.operation_type, new.operation_type
    UNION ALL SELECT 'bedrooms', CAST(new.bedrooms AS TEXT), '' WHERE new.bedrooms IS NOT NULL
    UNION ALL SELECT 'bathrooms', CAST(new.bathrooms AS TEXT), '' WHERE new.bathrooms IS NOT NULL
    UNION ALL SELECT 'suites', CAST(new.suites AS TEXT), '' WHERE new.suites IS NOT NULL
    UNION ALL SELECT 'parkingSpaces', CAST(new.parking_spaces AS TEXT), '' WHERE new.parking_spaces IS NOT NULL
    UNION ALL SELECT 'isFurnished', CAST(new.is_furnished AS TEXT), ''
    UNION ALL SELECT 'acceptsFinancing', CAST(new.accepts_financing AS TEXT), ''
    UNION ALL SELECT 'exclusive', CAST(new.exclusive AS TEXT), ''
    UNION ALL SELECT 'area', printf('%010d', CAST(new.search_area AS INTEGER) / 10), '' WHERE new.search_area >= 0
    UNION ALL SELECT 'amenities', FOLD(value), min(value) FROM json_each(new.amenities)
      WHERE type = 'text' AND FOLD(value) <> '' GROUP BY FOLD(value)) WHERE new.is_published = 1
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
