-- Fills the per-day counters (migration 2) from what the tables hold, replacing whatever they
-- held. Run once by the migration that created them, and by loads that set the triggers aside.
DELETE FROM property_days;
DELETE FROM lead_days;
INSERT INTO property_days (kind, dim, value, day, n)
  SELECT d.kind, d.dim,
         CASE d.dim WHEN '' THEN '' WHEN 'status' THEN p.status WHEN 'operation_type' THEN p.operation_type
                    WHEN 'property_type' THEN coalesce(p.property_type, '') ELSE p.highlight END AS value,
         substr(CASE d.kind WHEN 'created' THEN p.created_at ELSE p.updated_at END, 1, 10) AS day, count(*)
    FROM day_dimensions d, properties p
   WHERE d.entity = 'properties' AND p.is_published = 1
   GROUP BY d.kind, d.dim, value, day;

INSERT INTO lead_days (kind, dim, value, day, n)
  SELECT d.kind, d.dim, CASE d.dim WHEN '' THEN '' ELSE l.status END AS value,
         substr(CASE d.kind WHEN 'created' THEN l.created_at ELSE l.updated_at END, 1, 10) AS day, count(*)
    FROM day_dimensions d, leads l
   WHERE d.entity = 'leads'
   GROUP BY d.kind, d.dim, value, day;
