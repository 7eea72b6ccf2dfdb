// Body-shape predicates for check(): a fast wrong answer must not pass as a fast right one.

/** @param {import("k6/http").Response} res @returns {any} the parsed body, or null when it is not JSON */
export function jsonBody(res) {
  try {
    return res.json();
  } catch (_) {
    return null;
  }
}

/** @param {unknown} value */
function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * `{ data: [...], meta: { page, limit, total, totalPages } }` with four integers (SPEC: Common rules).
 * @param {any} body
 */
export function isPage(body) {
  if (!isObject(body) || !Array.isArray(body.data) || !isObject(body.meta)) return false;
  const { page, limit, total, totalPages } = body.meta;
  return [page, limit, total, totalPages].every(Number.isInteger);
}

/**
 * Every item carries exactly the requested fields: the server honoured the projection.
 * @param {any} body @param {string[]} fields
 */
export function hasOnlyFields(body, fields) {
  return (
    isPage(body) &&
    body.data.every(
      /** @param {unknown} item */
      (item) => isObject(item) && sameKeys(Object.keys(/** @type {object} */ (item)), fields),
    )
  );
}

/**
 * Every item has the status the list was filtered by.
 * @param {any} body @param {string} status
 */
export function hasOnlyStatus(body, status) {
  return isPage(body) && body.data.every(/** @param {any} item */ (item) => item.status === status);
}

/** @param {string[]} keys @param {string[]} wanted */
function sameKeys(keys, wanted) {
  return keys.length === wanted.length && wanted.every((name) => keys.includes(name));
}

/**
 * `{ data: [...], meta: { after, nextAfter, hasMore } }` (docs/reference/behaviour-extensions.md §11, change feed).
 * @param {any} body
 */
export function isChangePage(body) {
  return (
    isObject(body) &&
    Array.isArray(body.data) &&
    isObject(body.meta) &&
    Number.isInteger(body.meta.after) &&
    Number.isInteger(body.meta.nextAfter) &&
    typeof body.meta.hasMore === "boolean"
  );
}

/**
 * A created lead: `{ data: { id, status: "NEW_LEAD", ... } }` (SPEC: POST /v1/leads rule 5).
 * @param {any} body
 */
export function isCreatedLead(body) {
  return (
    isObject(body) &&
    isObject(body.data) &&
    typeof body.data.id === "string" &&
    body.data.id.length > 0 &&
    body.data.status === "NEW_LEAD"
  );
}
