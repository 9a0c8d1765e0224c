// Dark or light: follows the OS until the toggle chooses (auto → dark → light → auto), kept in this browser.
const KEY = "logpipe.theme";
export const THEMES = ["auto", "dark", "light"];

/** The theme after a click on the toggle. */
export function nextTheme(t) {
  return THEMES[(THEMES.indexOf(t) + 1) % THEMES.length];
}

export function applyTheme(t, root = document.documentElement, label = document.getElementById("theme")) {
  if (t === "auto") delete root.dataset.theme;
  else root.dataset.theme = t;
  if (label) label.textContent = { auto: "◐ auto", dark: "● dark", light: "○ light" }[t];
}

export function listenToTheme() {
  let t = localStorage.getItem(KEY) || "auto";
  if (!THEMES.includes(t)) t = "auto";
  applyTheme(t);
  document.getElementById("theme").addEventListener("click", () => {
    t = nextTheme(t);
    if (t === "auto") localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, t);
    applyTheme(t);
  });
}
