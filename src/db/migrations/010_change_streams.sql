-- Schema 10: the change log numbered per stream a reader can see (docs/partners/sync-and-webhooks.md,
-- "Sequences"). A number a partner receives counts only changes it may read: the properties
-- have a stream of their own (every property reader sees the same one), the leads a stream of
-- every lead (for `leads:read`) and a stream per owning client (for `leads:read:own`). A lead's
-- entry carries both its numbers. The log's own `sequence` stays the order the database wrote
-- it in, used inside the server only (the webhook dispatch cursor, compaction, what is on disk).
--
-- Entries already written keep their sequence as their numbers: what partners were shown before
-- stays what they were shown, and every stream goes on from the last number it showed, so a
-- cursor a partner stored before the upgrade is still good in its stream. A stream first written
-- after the upgrade starts at 1.

ALTER TABLE changes ADD COLUMN number INTEGER;        -- in its entity's stream
ALTER TABLE changes ADD COLUMN owner_number INTEGER;  -- a lead with an owner: in its owner's stream
UPDATE changes SET number = sequence, owner_number = CASE WHEN owner IS NULL THEN NULL ELSE sequence END;

-- The feed of an entity, and an owner's feed, each read from where a cursor points. The entity
-- index replaces the one by sequence: nothing reads the log by entity and sequence any more.
-- Both are partial: a new entry is numbered by the trigger below right after its insert, so
-- only the numbered entry goes into the index.
DROP INDEX changes_entity_sequence;
CREATE INDEX changes_entity_number ON changes(entity, number) WHERE number IS NOT NULL;
CREATE INDEX changes_owner_number ON changes(owner, owner_number) WHERE owner_number IS NOT NULL;

-- The last number of each stream ('' as owner: the entity's own stream), as AUTOINCREMENT keeps
-- the log's: a number is never given twice, whatever compaction deletes. One small row per
-- stream, updated in place by every write of the log.
CREATE TABLE change_streams (
  entity TEXT    NOT NULL,
  owner  TEXT    NOT NULL,
  last   INTEGER NOT NULL,
  PRIMARY KEY (entity, owner)
) WITHOUT ROWID;
-- Each from the indexes above: the entity streams by one probe each, the owners' in one pass over
-- their index (no sort, no row read).
INSERT INTO change_streams (entity, owner, last)
  SELECT 'properties', '', number FROM changes WHERE entity = 'properties' AND number IS NOT NULL
  ORDER BY number DESC LIMIT 1;
INSERT INTO change_streams (entity, owner, last)
  SELECT 'leads', '', number FROM changes WHERE entity = 'leads' AND number IS NOT NULL
  ORDER BY number DESC LIMIT 1;
INSERT INTO change_streams (entity, owner, last)
  SELECT 'leads', owner, max(owner_number) FROM changes WHERE owner_number IS NOT NULL GROUP BY owner;

-- Every entry is numbered where it is written, whichever trigger or loader writes it. The
-- conflict targets are spelt out: SQLite before 3.35 parses no upsert without one.
CREATE TRIGGER changes_number AFTER INSERT ON changes
BEGIN
  INSERT INTO change_streams (entity, owner, last) VALUES (new.entity, '', 1)
    ON CONFLICT (entity, owner) DO UPDATE SET last = last + 1;
  INSERT INTO change_streams (entity, owner, last) SELECT new.entity, new.owner, 1 WHERE new.owner IS NOT NULL
    ON CONFLICT (entity, owner) DO UPDATE SET last = last + 1;
  UPDATE changes SET
    number = (SELECT last FROM change_streams WHERE entity = new.entity AND owner = ''),
    owner_number = (SELECT last FROM change_streams WHERE entity = new.entity AND owner = new.owner)
  WHERE sequence = new.sequence;
END;

-- A replay names a number in its subscription's streams: the events after it in each stream
-- the subscription takes are sent again. The walk itself still goes by sequence
-- (replay_after, replay_until); this is where each stream's part starts.
ALTER TABLE webhook_subscriptions ADD COLUMN replay_from INTEGER;
