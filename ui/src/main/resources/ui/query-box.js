// The query box: its errors are shown under it, with a caret at the position the API reports.
import { errorPosition } from "./api.js";
import { $ } from "./dom.js";
import { state } from "./state.js";

/** The text under the box for an error at a position of the query: the query, a caret line, the message. */
export function caretText(q, pos, message) {
  if (pos === null || pos < 0) return message;
  return q + "\n" + " ".repeat(Math.min(pos, q.length)) + "^ " + message;
}

export function showQueryError(err) {
  const box = $("q-error");
  const pos = errorPosition(err.body);
  $("q").classList.add("invalid");
  if (pos !== null && pos >= 0) {
    try {
      $("q").setSelectionRange(pos, Math.min(pos + 1, state.q.length));
    } catch {
      /* not focused */
    }
  }
  box.textContent = caretText(state.q, pos, err.message);
  box.hidden = false;
}

export function clearQueryError() {
  $("q").classList.remove("invalid");
  $("q-error").hidden = true;
}
