// The result list: one row per record, expandable.
import { $ } from "./dom.js";
import { levelOf, line } from "./line.js";
import { toggle } from "./record.js";

export function row(h, fresh) {
  const li = document.createElement("li");
  li.className = "row lvl-row-" + levelOf(h) + (fresh ? " fresh" : "");
  li.tabIndex = -1;
  li.dataset.recordId = h.record_id || "";
  li._hit = h;
  const l = line(h);
  l.addEventListener("click", () => toggle(li));
  li.appendChild(l);
  return li;
}

export function rows() {
  return [...$("results").children];
}

export function clearResults() {
  $("results").innerHTML = "";
}
