-- Fills the search tables (migration 9) from what properties hold, replacing whatever they
-- held. Run once by the migration that created them, and by loads that set the triggers aside.
INSERT INTO property_words (property_words) VALUES ('delete-all');
DELETE FROM property_points;
DELETE FROM property_shown_points;
DELETE FROM property_amenities;
DELETE FROM property_facet_counts;

INSERT INTO property_words (rowid, title, description, property_type, neighborhood, city, code, amenities)
  SELECT rowid, title, description, property_type, neighborhood, city, code, amenities
    FROM properties WHERE is_published = 1;
INSERT INTO property_points
  SELECT rowid, latitude, latitude, longitude, longitude, latitude, longitude,
         created_at, id, operation_type, property_type, deal_price, search_area, bedrooms
    FROM properties WHERE is_published = 1 AND latitude IS NOT NULL AND longitude IS NOT NULL;
INSERT INTO property_shown_points
  SELECT rowid, lat, lat, lng, lng, lat, lng, created_at, id, operation_type, property_type, deal_price, search_area, bedrooms
    FROM (
    SELECT rowid, created_at, id, operation_type, property_type, deal_price, search_area, bedrooms,
           CASE display_address WHEN 'ALL' THEN latitude WHEN 'STREET' THEN round(latitude, 3) END AS lat,
           CASE display_address WHEN 'ALL' THEN longitude WHEN 'STREET' THEN round(longitude, 3) END AS lng
      FROM properties WHERE is_published = 1)
   WHERE lat IS NOT NULL AND lng IS NOT NULL;
-- Each amenity folded once (FOLD is a long expression, written out wherever it is named).
INSERT INTO property_amenities (key, property, value)
  SELECT key, property, min(value) FROM (
    SELECT FOLD(j.value) AS key, p.rowid AS property, j.value AS value FROM properties p, json_each(p.amenities) j
     WHERE p.is_published = 1 AND j.type = 'text')
   WHERE key <> '' GROUP BY property, key;
-- One pass over the listings, their place keys computed once (they are generated columns): the
-- facets are then counted from that copy, not from thirteen scans of the table.
INSERT INTO property_facet_counts (facet, key, value, uf, city, operation, n)
  WITH p AS MATERIALIZED (
    SELECT rowid AS property, coalesce(uf_key, '') AS u, coalesce(city_key, '') AS c, operation_type AS o,
           city, neighborhood, uf, city_key, neighborhood_key, uf_key, property_type,
           bedrooms, bathrooms, suites, parking_spaces, is_furnished, accepts_financing, exclusive
      FROM properties WHERE is_published = 1)
  SELECT facet, key, value, u, c, o, count(*) FROM (
              SELECT 'city' AS facet, city_key AS key, city AS value, u, c, o FROM p WHERE city_key <> ''
    UNION ALL SELECT 'neighborhood', neighborhood_key, neighborhood, u, c, o FROM p WHERE neighborhood_key <> ''
    UNION ALL SELECT 'uf', uf_key, uf, u, c, o FROM p WHERE uf_key <> ''
    UNION ALL SELECT 'propertyType', property_type, property_type, u, c, o FROM p WHERE property_type IS NOT NULL
    UNION ALL SELECT 'operationType', o, o, u, c, o FROM p
    UNION ALL SELECT 'bedrooms', CAST(bedrooms AS TEXT), '', u, c, o FROM p WHERE bedrooms IS NOT NULL
    UNION ALL SELECT 'bathrooms', CAST(bathrooms AS TEXT), '', u, c, o FROM p WHERE bathrooms IS NOT NULL
    UNION ALL SELECT 'suites', CAST(suites AS TEXT), '', u, c, o FROM p WHERE suites IS NOT NULL
    UNION ALL SELECT 'parkingSpaces', CAST(parking_spaces AS TEXT), '', u, c, o FROM p WHERE parking_spaces IS NOT NULL
    UNION ALL SELECT 'isFurnished', CAST(is_furnished AS TEXT), '', u, c, o FROM p
    UNION ALL SELECT 'acceptsFinancing', CAST(accepts_financing AS TEXT), '', u, c, o FROM p
    UNION ALL SELECT 'exclusive', CAST(exclusive AS TEXT), '', u, c, o FROM p
    UNION ALL SELECT 'amenities', a.key, a.value, p.u, p.c, p.o FROM property_amenities a JOIN p ON p.property = a.property)
  GROUP BY 1, 2, 3, 4, 5, 6;
