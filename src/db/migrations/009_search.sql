-- Schema 9: what listing search needs (docs/reference/behaviour-partners.md §20). FOLD(x) is
-- written out by migrate.ts from src/db/fold.ts (accents off, ASCII lower case).
--
-- Everything here is kept by the database itself (generated columns, triggers), so the server,
-- imports, feed runs and any other writer keep it right; the seed, which sets triggers aside,
-- fills the tables in one pass after its load (src/seed/bulk.ts). The side tables hold only
-- published listings, keyed by the listing's rowid.

-- Place keys, the deal's own price and the area a search compares, as the filters read them.
ALTER TABLE properties ADD COLUMN city_key TEXT GENERATED ALWAYS AS (FOLD(city)) VIRTUAL;
ALTER TABLE properties ADD COLUMN neighborhood_key TEXT GENERATED ALWAYS AS (FOLD(neighborhood)) VIRTUAL;
ALTER TABLE properties ADD COLUMN uf_key TEXT GENERATED ALWAYS AS (FOLD(uf)) VIRTUAL;
ALTER TABLE properties ADD COLUMN deal_price NUMERIC GENERATED ALWAYS AS
  (CASE operation_type WHEN 'SALE' THEN sale_price ELSE rental_price END) VIRTUAL;
ALTER TABLE properties ADD COLUMN search_area NUMERIC GENERATED ALWAYS AS (coalesce(built_area, total_area)) VIRTUAL;

CREATE INDEX properties_published_city ON properties(city_key, neighborhood_key) WHERE is_published = 1;
CREATE INDEX properties_published_neighborhood ON properties(neighborhood_key) WHERE is_published = 1;
CREATE INDEX properties_published_uf ON properties(uf_key) WHERE is_published = 1;
-- Price and area orders, listings without the value last either way: the first index read
-- forwards gives the ascending order, the second read backwards the descending one.
CREATE INDEX properties_published_price ON properties(deal_price IS NULL, deal_price, id) WHERE is_published = 1;
CREATE INDEX properties_published_price_desc ON properties(deal_price IS NULL DESC, deal_price, id) WHERE is_published = 1;
CREATE INDEX properties_published_area ON properties(search_area IS NULL, search_area, id) WHERE is_published = 1;
CREATE INDEX properties_published_area_desc ON properties(search_area IS NULL DESC, search_area, id) WHERE is_published = 1;

-- The words of `q`: accent-folding tokens of the searchable text. The street, number and
-- complement are not in it, so a hidden street can never be matched.
CREATE VIRTUAL TABLE property_words USING fts5(
  title, description, property_type, neighborhood, city, code, amenities,
  content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2'
);

-- Map positions: the stored coordinates (clients with fullAddress) and the ones partners are
-- shown (3 decimals for STREET, none for NEIGHBORHOOD). An R*Tree keeps 32-bit floats rounded
-- outwards, so a search reads it for candidates and compares the exact values after.
CREATE VIRTUAL TABLE property_points USING rtree(id, min_lat, max_lat, min_lng, max_lng);
CREATE VIRTUAL TABLE property_shown_points USING rtree(id, min_lat, max_lat, min_lng, max_lng);

-- Amenities one row each, folded (`key`) and as written (`value`).
CREATE TABLE property_amenities (
  key      TEXT    NOT NULL,
  property INTEGER NOT NULL,
  value    TEXT    NOT NULL,
  PRIMARY KEY (key, property)
) WITHOUT ROWID;
CREATE INDEX property_amenities_property ON property_amenities(property);

CREATE TRIGGER properties_search_insert AFTER INSERT ON properties WHEN new.is_published = 1
BEGIN
  INSERT INTO property_words (rowid, title, description, property_type, neighborhood, city, code, amenities)
    VALUES (new.rowid, new.title, new.description, new.property_type, new.neighborhood, new.city, new.code, new.amenities);
  INSERT INTO property_points SELECT new.rowid, new.latitude, new.latitude, new.longitude, new.longitude
    WHERE new.latitude IS NOT NULL AND new.longitude IS NOT NULL;
  INSERT INTO property_shown_points
    SELECT new.rowid, lat, lat, lng, lng FROM (
      SELECT CASE new.display_address WHEN 'ALL' THEN new.latitude WHEN 'STREET' THEN round(new.latitude, 3) END AS lat,
             CASE new.display_address WHEN 'ALL' THEN new.longitude WHEN 'STREET' THEN round(new.longitude, 3) END AS lng)
    WHERE lat IS NOT NULL AND lng IS NOT NULL;
  INSERT OR IGNORE INTO property_amenities (key, property, value)
    SELECT FOLD(value), new.rowid, value FROM json_each(new.amenities) WHERE type = 'text' AND FOLD(value) <> '';
END;

CREATE TRIGGER properties_search_delete AFTER DELETE ON properties WHEN old.is_published = 1
BEGIN
  DELETE FROM property_words WHERE rowid = old.rowid;
  DELETE FROM property_points WHERE id = old.rowid;
  DELETE FROM property_shown_points WHERE id = old.rowid;
  DELETE FROM property_amenities WHERE property = old.rowid;
END;

-- Written again whole whenever something it holds changes: rare (an import of new content).
CREATE TRIGGER properties_search_update AFTER UPDATE OF
  is_published, title, description, property_type, neighborhood, city, code, amenities, latitude, longitude, display_address
  ON properties
  WHEN old.is_published = 1 OR new.is_published = 1
BEGIN
  DELETE FROM property_words WHERE rowid = old.rowid AND old.is_published = 1;
  DELETE FROM property_points WHERE id = old.rowid AND old.is_published = 1;
  DELETE FROM property_shown_points WHERE id = old.rowid AND old.is_published = 1;
  DELETE FROM property_amenities WHERE property = old.rowid AND old.is_published = 1;
  INSERT INTO property_words (rowid, title, description, property_type, neighborhood, city, code, amenities)
    SELECT new.rowid, new.title, new.description, new.property_type, new.neighborhood, new.city, new.code, new.amenities
    WHERE new.is_published = 1;
  INSERT INTO property_points SELECT new.rowid, new.latitude, new.latitude, new.longitude, new.longitude
    WHERE new.is_published = 1 AND new.latitude IS NOT NULL AND new.longitude IS NOT NULL;
  INSERT INTO property_shown_points
    SELECT new.rowid, lat, lat, lng, lng FROM (
      SELECT CASE new.display_address WHEN 'ALL' THEN new.latitude WHEN 'STREET' THEN round(new.latitude, 3) END AS lat,
             CASE new.display_address WHEN 'ALL' THEN new.longitude WHEN 'STREET' THEN round(new.longitude, 3) END AS lng)
    WHERE new.is_published = 1 AND lat IS NOT NULL AND lng IS NOT NULL;
  INSERT OR IGNORE INTO property_amenities (key, property, value)
    SELECT FOLD(value), new.rowid, value FROM json_each(new.amenities)
    WHERE new.is_published = 1 AND type = 'text' AND FOLD(value) <> '';
END;
