-- Schema 5: what real CRM feeds carry beside SPEC's fields (docs/reference/behaviour-extensions.md §16).
--   display_address: the agency's VRSync `displayAddress` (ALL, STREET, NEIGHBORHOOD). Partners
--     without `fullAddress` never see what it hides; the stored values stay whole for the agency.
--   amenities: the feed's Details/Features/Feature values, a JSON array of strings in feed order.
--   import_hash: a digest of the listing as the last import wrote it, so a re-import recognises an
--     unchanged listing without reading it back (NULL: written otherwise, compared in full). Not
--     readable content: it is in no trigger. Whatever writes a property's content sets it anew.
-- Existing rows get 'ALL' and '[]': what a feed without them meant.

ALTER TABLE properties ADD COLUMN display_address TEXT NOT NULL DEFAULT 'ALL'
  CHECK (display_address IN ('ALL','STREET','NEIGHBORHOOD'));
ALTER TABLE properties ADD COLUMN amenities TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(amenities));
ALTER TABLE properties ADD COLUMN import_hash TEXT;

-- Both are readable content: changing either is an upsert in the change feed, like every other
-- column (the trigger of schema 1, recreated with the two new columns).
DROP TRIGGER properties_feed_update_visible;
CREATE TRIGGER properties_feed_update_visible AFTER UPDATE ON properties
WHEN new.is_published = 1 AND (
     old.is_published = 0 OR old.id IS NOT new.id OR old.code IS NOT new.code
  OR old.title IS NOT new.title OR old.description IS NOT new.description
  OR old.operation_type IS NOT new.operation_type OR old.status IS NOT new.status
  OR old.property_type IS NOT new.property_type OR old.highlight IS NOT new.highlight
  OR old.exclusive IS NOT new.exclusive OR old.created_at IS NOT new.created_at
  OR old.updated_at IS NOT new.updated_at
  OR old.street IS NOT new.street OR old.number IS NOT new.number OR old.complement IS NOT new.complement
  OR old.neighborhood IS NOT new.neighborhood OR old.city IS NOT new.city OR old.state IS NOT new.state
  OR old.uf IS NOT new.uf OR old.cep IS NOT new.cep
  OR old.latitude IS NOT new.latitude OR old.longitude IS NOT new.longitude
  OR old.total_area IS NOT new.total_area OR old.built_area IS NOT new.built_area
  OR old.bedrooms IS NOT new.bedrooms OR old.bathrooms IS NOT new.bathrooms OR old.suites IS NOT new.suites
  OR old.parking_spaces IS NOT new.parking_spaces OR old.floor IS NOT new.floor
  OR old.total_floors IS NOT new.total_floors OR old.is_furnished IS NOT new.is_furnished
  OR old.sale_price IS NOT new.sale_price OR old.rental_price IS NOT new.rental_price
  OR old.condominium_fee IS NOT new.condominium_fee OR old.iptu IS NOT new.iptu
  OR old.accepts_financing IS NOT new.accepts_financing
  OR old.display_address IS NOT new.display_address OR old.amenities IS NOT new.amenities)
BEGIN
  INSERT INTO changes (entity, record_id, change, at)
  VALUES ('properties', new.id, 'upsert', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
