-- Fills the search tables (migration 9) from what properties hold, replacing whatever they
-- held. Run once by the migration that created them, and by loads that set the triggers aside.
INSERT INTO property_words (property_words) VALUES ('delete-all');
DELETE FROM property_amenities;
DELETE FROM property_facet_counts;
DELETE FROM property_sort_keys;

INSERT INTO property_words (rowid, title, description, property_type, neighborhood, city, code, amenities, terms)
  SELECT rowid, title, description, property_type, neighborhood, city, code, amenities, search_terms
    FROM properties WHERE is_published = 1;
-- One segment instead of the many a bulk fill leaves: a search reads each token's list once.
INSERT INTO property_words (property_words) VALUES ('optimize');
INSERT INTO property_sort_keys (property, price, area)
  SELECT rowid, deal_price, search_area FROM properties WHERE is_published = 1;
INSERT INTO property_amenities (key, property, value)
  SELECT FOLD(j.value), p.rowid, min(j.value) FROM properties p, json_each(p.amenities) j
   WHERE p.is_published = 1 AND j.type = 'text' AND FOLD(j.value) <> '' GROUP BY p.rowid, FOLD(j.value);
INSERT INTO property_facet_counts (facet, key, value, uf, city, operation, n)
  SELECT facet, key, value, coalesce(uf, ''), coalesce(city, ''), operation, count(*) FROM (
    SELECT 'city' AS facet, city_key AS key, city AS value, uf_key AS uf, city_key AS city, operation_type AS operation
      FROM properties WHERE is_published = 1 AND city_key <> ''
    UNION ALL SELECT 'neighborhood', neighborhood_key, neighborhood, uf_key, city_key, operation_type FROM properties WHERE is_published = 1 AND neighborhood_key <> ''
    UNION ALL SELECT 'uf', uf_key, uf, uf_key, city_key, operation_type FROM properties WHERE is_published = 1 AND uf_key <> ''
    UNION ALL SELECT 'propertyType', property_type, property_type, uf_key, city_key, operation_type FROM properties WHERE is_published = 1 AND property_type IS NOT NULL
    UNION ALL SELECT 'operationType', operation_type, operation_type, uf_key, city_key, operation_type FROM properties WHERE is_published = 1
    UNION ALL SELECT 'bedrooms', CAST(bedrooms AS TEXT), '', uf_key, city_key, operation_type FROM properties WHERE is_published = 1 AND bedrooms IS NOT NULL
    UNION ALL SELECT 'bathrooms', CAST(bathrooms AS TEXT), '', uf_key, city_key, operation_type FROM properties WHERE is_published = 1 AND bathrooms IS NOT NULL
    UNION ALL SELECT 'suites', CAST(suites AS TEXT), '', uf_key, city_key, operation_type FROM properties WHERE is_published = 1 AND suites IS NOT NULL
    UNION ALL SELECT 'parkingSpaces', CAST(parking_spaces AS TEXT), '', uf_key, city_key, operation_type FROM properties WHERE is_published = 1 AND parking_spaces IS NOT NULL
    UNION ALL SELECT 'isFurnished', CAST(is_furnished AS TEXT), '', uf_key, city_key, operation_type FROM properties WHERE is_published = 1
    UNION ALL SELECT 'acceptsFinancing', CAST(accepts_financing AS TEXT), '', uf_key, city_key, operation_type FROM properties WHERE is_published = 1
    UNION ALL SELECT 'exclusive', CAST(exclusive AS TEXT), '', uf_key, city_key, operation_type FROM properties WHERE is_published = 1
    UNION ALL SELECT 'area', printf('%010d', CAST(search_area AS INTEGER) / 10), '', uf_key, city_key, operation_type FROM properties WHERE is_published = 1 AND search_area >= 0
    UNION ALL SELECT 'amenities', a.key, a.value, p.uf_key, p.city_key, p.operation_type
      FROM property_amenities a JOIN properties p ON p.rowid = a.property)
  GROUP BY 1, 2, 3, 4, 5, 6;
