// The offline app shell: reloading the page while the table's Wi-Fi is down shows the app (saying it cannot reach
// the table) instead of the browser's error page. Network first, always: a phone online gets the daemon's current
// files and config; the cache is only the fallback, refreshed by every successful fetch.
const CACHE = "unolauncher-shell-v1";
const SHELL = [
  "./", "index.html", "app.css", "config.json", "manifest.webmanifest", "vendor/mqtt.min.js",
  "js/boot.js", "js/main.js", "js/link.js", "js/views.js", "js/cards.js", "js/picker.js", "js/setup.js",
  "js/seat.js", "js/history.js", "js/cardgrid.js", "js/deal.js", "js/moves.js", "js/fairness.js", "js/screen.js",
  "js/counter.js", "js/awake.js", "js/freshness.js", "js/catalogue.js", "vendor/noble-hashes/_md.js", "vendor/noble-hashes/_u64.js",
  "vendor/noble-hashes/hmac.js", "vendor/noble-hashes/sha2.js", "vendor/noble-hashes/utils.js", "icons/icon.svg",
  "icons/icon-192.png",
  // The page's words (js/i18n.js loads the phone's catalogue with a dynamic import: listed here by hand, checked by
  // tests/web/test_languages.py).
  "js/i18n.js", "js/i18n-page.js", "js/fit.js", "js/speech.js", "js/lang/en.js", "js/lang/de.js", "js/lang/be.js", "js/lang/hy.js", "js/lang/tl.js",
];

self.addEventListener("install", (event) => {
  // A file missing from the shell must not stop the rest from being kept.
  event.waitUntil(caches.open(CACHE).then((cache) => Promise.allSettled(SHELL.map((url) => cache.add(url)))));
  self.skipWaiting();
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || new URL(request.url).origin !== self.location.origin) return;
  event.respondWith(
    fetch(request)
      .then((response) => {
        if (response.ok) {
          const copy = response.clone();
          caches.open(CACHE).then((cache) => cache.put(request, copy));
        }
        return response;
      })
      .catch(() => caches.match(request, { ignoreSearch: true }).then((hit) => hit
        || (request.mode === "navigate" ? caches.match("index.html") : undefined)
        || Response.error())),
  );
});
