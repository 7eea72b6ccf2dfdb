-- Fills the word index (migration 9) from what properties hold, replacing whatever it held. Run
-- once by the migration that created it, and by loads that set its triggers aside. One scan of the
-- table (NOT INDEXED): through a partial index of the published ones, each row was looked up apart.
INSERT INTO property_words (property_words) VALUES ('delete-all');
INSERT INTO property_words (rowid, title, description, property_type, neighborhood, city, code, amenities)
  SELECT rowid, title, description, property_type, neighborhood, city, code, amenities
    FROM properties NOT INDEXED WHERE is_published = 1;
-- One segment instead of the many a bulk fill leaves: a search reads each token's list once.
INSERT INTO property_words (property_words) VALUES ('optimize');
