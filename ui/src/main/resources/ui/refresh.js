// Auto-refresh: the search runs again every 5 s, 30 s or minute while the page is visible (off by default).
export const INTERVALS = { off: 0, "5s": 5000, "30s": 30000, "1m": 60000 };

let timer = null;

/** Runs `again` every interval of `every` (a key of INTERVALS) while the page is visible; off stops it. */
export function schedule(every, again) {
  if (timer) clearInterval(timer);
  timer = null;
  const ms = INTERVALS[every] || 0;
  if (!ms) return;
  timer = setInterval(() => {
    if (document.visibilityState === "visible") again();
  }, ms);
}
