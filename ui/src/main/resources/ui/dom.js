// Building the page from data: every value goes in as text, never as markup.
export const $ = (id) => document.getElementById(id);

// Bidirectional controls (LRE RLE PDF LRO RLO, LRI RLI FSI PDI, LRM RLM, ALM) in data would reorder what the
// reader sees ("evil" shown as "live"): each is replaced by a visible, styled marker naming its code point.
const BIDI = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g;
const BIDI_NAMES = {
  "202A": "LEFT-TO-RIGHT EMBEDDING", "202B": "RIGHT-TO-LEFT EMBEDDING", "202C": "POP DIRECTIONAL FORMATTING",
  "202D": "LEFT-TO-RIGHT OVERRIDE", "202E": "RIGHT-TO-LEFT OVERRIDE", "2066": "LEFT-TO-RIGHT ISOLATE",
  "2067": "RIGHT-TO-LEFT ISOLATE", "2068": "FIRST STRONG ISOLATE", "2069": "POP DIRECTIONAL ISOLATE",
  "200E": "LEFT-TO-RIGHT MARK", "200F": "RIGHT-TO-LEFT MARK", "061C": "ARABIC LETTER MARK",
};

/** A string cut into plain text and bidirectional controls: [{text}|{code, name}]. */
export function bidiSegments(s) {
  s = String(s);
  const out = [];
  let last = 0, m;
  BIDI.lastIndex = 0;
  while ((m = BIDI.exec(s))) {
    if (m.index > last) out.push({ text: s.slice(last, m.index) });
    const code = m[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
    out.push({ code, name: BIDI_NAMES[code] });
    last = m.index + m[0].length;
  }
  if (last < s.length || !out.length) out.push({ text: s.slice(last) });
  return out;
}

/** Text of data as DOM nodes, bidirectional controls shown as ⟨U+XXXX⟩ markers. */
export function text(s) {
  const frag = document.createDocumentFragment();
  for (const seg of bidiSegments(s)) {
    if (seg.code === undefined) {
      frag.appendChild(document.createTextNode(seg.text));
      continue;
    }
    const b = document.createElement("span");
    b.className = "bidi";
    b.textContent = "⟨U+" + seg.code + "⟩";
    b.title = "U+" + seg.code + " " + seg.name + " (a bidirectional control in the data, shown instead of applied)";
    frag.appendChild(b);
  }
  return frag;
}

export function span(cls, value) {
  const s = document.createElement("span");
  s.className = cls;
  s.appendChild(text(value));
  return s;
}

export function button(cls, label, title, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = cls;
  b.textContent = label;
  if (title) b.title = title;
  b.addEventListener("click", (e) => {
    e.stopPropagation();
    onClick(e);
  });
  return b;
}
