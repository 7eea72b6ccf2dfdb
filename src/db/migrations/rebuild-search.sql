-- Fills the search tables (migration 9) from what properties hold, replacing whatever they
-- held. Run once by the migration that created them, and by loads that set the triggers aside.
INSERT INTO property_words (property_words) VALUES ('delete-all');
DELETE FROM property_points;
DELETE FROM property_shown_points;
DELETE FROM property_amenities;

INSERT INTO property_words (rowid, title, description, property_type, neighborhood, city, code, amenities)
  SELECT rowid, title, description, property_type, neighborhood, city, code, amenities
    FROM properties WHERE is_published = 1;
INSERT INTO property_points
  SELECT rowid, latitude, latitude, longitude, longitude
    FROM properties WHERE is_published = 1 AND latitude IS NOT NULL AND longitude IS NOT NULL;
INSERT INTO property_shown_points
  SELECT id, lat, lat, lng, lng FROM (
    SELECT rowid AS id,
           CASE display_address WHEN 'ALL' THEN latitude WHEN 'STREET' THEN round(latitude, 3) END AS lat,
           CASE display_address WHEN 'ALL' THEN longitude WHEN 'STREET' THEN round(longitude, 3) END AS lng
      FROM properties WHERE is_published = 1)
   WHERE lat IS NOT NULL AND lng IS NOT NULL;
INSERT OR IGNORE INTO property_amenities (key, property, value)
  SELECT FOLD(j.value), p.rowid, j.value FROM properties p, json_each(p.amenities) j
   WHERE p.is_published = 1 AND j.type = 'text' AND FOLD(j.value) <> '';
