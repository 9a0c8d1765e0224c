// ESLint for the web UI (ES modules in the browser) and its unit tests (Node's test runner).
import js from "@eslint/js";

const browser = Object.fromEntries([
  "window", "document", "location", "history", "navigator", "sessionStorage", "localStorage", "fetch", "URL",
  "URLSearchParams", "AbortController", "TextDecoder", "IntersectionObserver", "ResizeObserver", "setTimeout",
  "clearTimeout", "setInterval", "clearInterval", "matchMedia", "getComputedStyle", "requestAnimationFrame", "Blob",
  "Intl", "console", "confirm", "prompt",
].map((g) => [g, "readonly"]));

export default [
  js.configs.recommended,
  {
    files: ["src/main/resources/ui/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: browser },
    rules: {
      "no-unused-vars": ["error", { args: "after-used", caughtErrors: "none" }],
      eqeqeq: ["error", "always"],
      "no-var": "error",
      "prefer-const": "error",
    },
  },
  {
    files: ["src/test/js/**/*.js", "eslint.config.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...browser, process: "readonly" } },
  },
];
