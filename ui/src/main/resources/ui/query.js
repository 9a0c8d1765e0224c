// The query text as the UI edits and reads it (never parsed here: the server parses; these only build and highlight).

/** The words of a query worth highlighting in messages: free text and message: terms, not operators or negations. */
export function queryTerms(q) {
  const out = [];
  const re = /(?:^|[\s(])(?:([A-Za-z_.]+):)?(?:"([^"]+)"|([^\s()"]+))/g;
  let m;
  while ((m = re.exec(q))) {
    const field = m[1], word = (m[2] || m[3] || "").replace(/[*?]$/, "");
    if (field && field !== "message") continue;
    if (!word || /^(AND|OR|NOT|TO)$/.test(word) || word.startsWith("-")) continue;
    out.push(word.replace(/[\\*?]/g, ""));
  }
  return out.filter((w) => w.length > 0);
}

/** A value as a query term: bare when it is a plain token, otherwise quoted with " and \ escaped. */
export function quote(v) {
  return /^[A-Za-z0-9_.@-]+$/.test(v) ? v : '"' + v.replace(/["\\]/g, "\\$&") + '"';
}

/** A field name with a character the query syntax reserves (fields.http/path, fields.a:b) escaped with a backslash. */
export function fieldName(n) {
  return n.replace(/[^A-Za-z0-9_.@#-]/g, "\\$&");
}

/** The query with field:value required (or excluded) in addition to what it asks already. */
export function withFilter(q, field, value, exclude) {
  const clause = (exclude ? "-" : "") + fieldName(field) + ":" + quote(value);
  const base = q.trim();
  if (!base) return exclude ? "*:* " + clause : clause;
  return base + (exclude ? " " : " AND ") + clause;
}
