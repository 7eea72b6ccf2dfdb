-- Fills the search tables (migration 9) from what properties hold, replacing whatever they
-- held. Run once by the migration that created them, and by loads that set the triggers aside.
-- Each reads the listings in one scan of the table (NOT INDEXED): through a partial index of the
-- published ones, the planner's choice, each row was looked up apart, three times slower.
INSERT INTO property_words (property_words) VALUES ('delete-all');
DELETE FROM property_amenities;
DELETE FROM property_facet_counts;
DELETE FROM property_sort_keys;

INSERT INTO property_words (rowid, title, description, property_type, neighborhood, city, code, amenities, terms)
  SELECT rowid, title, description, property_type, neighborhood, city, code, amenities, search_terms
    FROM properties NOT INDEXED WHERE is_published = 1;
-- One segment instead of the many a bulk fill leaves: a search reads each token's list once.
INSERT INTO property_words (property_words) VALUES ('optimize');
INSERT INTO property_sort_keys (property, price, area)
  SELECT rowid, deal_price, search_area FROM properties NOT INDEXED WHERE is_published = 1;
-- Each amenity folded once (FOLD is a long expression, written out wherever it is named).
INSERT INTO property_amenities (key, property, value)
  SELECT key, property, min(value) FROM (
    SELECT FOLD(j.value) AS key, p.rowid AS property, j.value AS value FROM properties p NOT INDEXED, json_each(p.amenities) j
     WHERE p.is_published = 1 AND j.type = 'text')
   WHERE key <> '' GROUP BY property, key;
-- Counted from four groupings of the listings (by place, by rooms, by kind and flags, by tens of
-- m²), each far smaller than the listings: a few dozen thousand rows to sort for a million
-- listings' facets instead of a dozen rows for each listing. Each grouping is its own statement,
-- so its sort's memory is freed before the next one sorts (as one statement's CTEs, a 1M seed
-- held 80 MB more).
CREATE TEMP TABLE facet_places AS
  SELECT coalesce(uf_key, '') AS u, coalesce(city_key, '') AS c, operation_type AS o,
         city_key, city, neighborhood_key, neighborhood, uf_key, uf, count(*) AS n
    FROM properties NOT INDEXED WHERE is_published = 1
   GROUP BY uf_key, uf, city_key, city, neighborhood_key, neighborhood, operation_type;
CREATE TEMP TABLE facet_rooms AS
  SELECT coalesce(uf_key, '') AS u, coalesce(city_key, '') AS c, operation_type AS o,
         bedrooms, bathrooms, suites, parking_spaces, count(*) AS n
    FROM properties NOT INDEXED WHERE is_published = 1
   GROUP BY uf_key, city_key, operation_type, bedrooms, bathrooms, suites, parking_spaces;
CREATE TEMP TABLE facet_kinds AS
  SELECT coalesce(uf_key, '') AS u, coalesce(city_key, '') AS c, operation_type AS o,
         property_type, is_furnished, accepts_financing, exclusive, count(*) AS n
    FROM properties NOT INDEXED WHERE is_published = 1
   GROUP BY uf_key, city_key, operation_type, property_type, is_furnished, accepts_financing, exclusive;
CREATE TEMP TABLE facet_areas AS
  SELECT coalesce(uf_key, '') AS u, coalesce(city_key, '') AS c, operation_type AS o,
         CAST(search_area AS INTEGER) / 10 AS ten, count(*) AS n
    FROM properties NOT INDEXED WHERE is_published = 1 AND search_area >= 0
   GROUP BY uf_key, city_key, operation_type, ten;
INSERT INTO property_facet_counts (facet, key, value, uf, city, operation, n)
  SELECT facet, key, value, u, c, o, sum(n) FROM (
              SELECT 'city' AS facet, city_key AS key, city AS value, u, c, o, n FROM temp.facet_places WHERE city_key <> ''
    UNION ALL SELECT 'neighborhood', neighborhood_key, neighborhood, u, c, o, n FROM temp.facet_places WHERE neighborhood_key <> ''
    UNION ALL SELECT 'uf', uf_key, uf, u, c, o, n FROM temp.facet_places WHERE uf_key <> ''
    UNION ALL SELECT 'operationType', o, o, u, c, o, n FROM temp.facet_places
    UNION ALL SELECT 'propertyType', property_type, property_type, u, c, o, n FROM temp.facet_kinds WHERE property_type IS NOT NULL
    UNION ALL SELECT 'isFurnished', CAST(is_furnished AS TEXT), '', u, c, o, n FROM temp.facet_kinds
    UNION ALL SELECT 'acceptsFinancing', CAST(accepts_financing AS TEXT), '', u, c, o, n FROM temp.facet_kinds
    UNION ALL SELECT 'exclusive', CAST(exclusive AS TEXT), '', u, c, o, n FROM temp.facet_kinds
    UNION ALL SELECT 'bedrooms', CAST(bedrooms AS TEXT), '', u, c, o, n FROM temp.facet_rooms WHERE bedrooms IS NOT NULL
    UNION ALL SELECT 'bathrooms', CAST(bathrooms AS TEXT), '', u, c, o, n FROM temp.facet_rooms WHERE bathrooms IS NOT NULL
    UNION ALL SELECT 'suites', CAST(suites AS TEXT), '', u, c, o, n FROM temp.facet_rooms WHERE suites IS NOT NULL
    UNION ALL SELECT 'parkingSpaces', CAST(parking_spaces AS TEXT), '', u, c, o, n FROM temp.facet_rooms WHERE parking_spaces IS NOT NULL
    UNION ALL SELECT 'area', printf('%010d', ten), '', u, c, o, n FROM temp.facet_areas)
  GROUP BY 1, 2, 3, 4, 5, 6;
DROP TABLE temp.facet_places;
DROP TABLE temp.facet_rooms;
DROP TABLE temp.facet_kinds;
DROP TABLE temp.facet_areas;
-- Amenities, several rows a listing, added up in the counters as they come rather than sorted:
-- faster, and the sort of a million listings' amenities held a hundred MB more.
INSERT INTO property_facet_counts (facet, key, value, uf, city, operation, n)
  SELECT 'amenities', a.key, a.value, coalesce(p.uf_key, ''), coalesce(p.city_key, ''), p.operation_type, 1
    FROM property_amenities a JOIN properties p ON p.rowid = a.property WHERE true
  ON CONFLICT DO UPDATE SET n = n + 1;
