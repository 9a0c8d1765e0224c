// Filter for / filter out any field value of the expanded record (as the sidebar's top values do).
import { bidiSegments } from "./dom.js";
import { filter } from "./fields.js";

/** The longest value offered as a filter: a longer one is a message, not a value to match exactly. */
export const MAX_FILTER_VALUE = 200;

/** The value of a field as a filter term, or null when it cannot be one (objects, arrays, nulls, long text). */
export function filterValue(value) {
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_FILTER_VALUE) return null;
  return value;
}

/** The "+" (filter for) and "−" (filter out) buttons of one field's value, or none when it is not filterable. */
export function filterButtons(name, value) {
  const v = filterValue(value);
  if (v === null) return [];
  return [
    small("include", "+", "filter for " + shown(name) + ":" + shown(v), () => filter(name, v, false)),
    small("exclude", "−", "filter out " + shown(name) + ":" + shown(v), () => filter(name, v, true)),
  ];
}

/** A value for a tooltip: bidirectional controls as ⟨U+XXXX⟩, never applied. */
export function shown(s) {
  return bidiSegments(s).map((seg) => (seg.text !== undefined ? seg.text : "⟨U+" + seg.code + "⟩")).join("");
}

function small(cls, label, title, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "value-filter " + cls;
  b.textContent = label;
  b.title = title;
  b.setAttribute("aria-label", title);
  b.addEventListener("click", (e) => {
    e.stopPropagation();
    onClick();
  });
  return b;
}
