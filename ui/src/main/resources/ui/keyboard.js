// Keyboard first: / search, j/k move, Enter/o expand, c context, t live tail, Esc leave or close.
import { $ } from "./dom.js";
import { context, toggle } from "./record.js";
import { rows } from "./results.js";
import { state, writeHash } from "./state.js";
import { startTail, stopTail } from "./tail.js";

let selected = -1;

export function resetSelection() {
  selected = -1;
}

function select(i) {
  const rs = rows();
  if (!rs.length) return;
  selected = Math.max(0, Math.min(rs.length - 1, i));
  rs.forEach((r, j) => r.classList.toggle("selected", j === selected));
  rs[selected].focus({ preventScroll: true });
  rs[selected].scrollIntoView({ block: "nearest" });
}

export function listenToKeys(syncControls) {
  document.addEventListener("keydown", (e) => {
    if ($("app").hidden) return;
    const typing = /^(INPUT|SELECT|TEXTAREA)$/.test(document.activeElement.tagName);
    if (e.key === "Escape") {
      if (typing) {
        document.activeElement.blur();
        return;
      }
      const r = rows()[selected];
      if (r && r.querySelector(".detail")) toggle(r);
      return;
    }
    if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "/") {
      e.preventDefault();
      $("q").focus();
      $("q").select();
    } else if (e.key === "j") select(selected + 1);
    else if (e.key === "k") select(selected - 1);
    else if (e.key === "Enter" || e.key === "o") {
      const r = rows()[selected];
      if (r) toggle(r);
    } else if (e.key === "c") {
      const r = rows()[selected];
      if (r) {
        if (!r.querySelector(".detail")) toggle(r);
        context(r);
      }
    } else if (e.key === "t") {
      state.tail = !state.tail;
      writeHash();
      syncControls();
      if (state.tail) startTail();
      else stopTail();
    }
  });
}
