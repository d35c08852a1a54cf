// The service worker of the nochmal pages (docs/web.md "Installing the app"), served as /sw.js
// by nochmal/web/shell.py, which fills in the version and the shell's list.
// - The static shell (CSS, scripts, icons, the start pages) is kept at install in a cache named
//   by the version (the package version and a hash of the static files): a new release is a new
//   worker, which deletes the older caches once it takes over.
// - Static files and the scripts' messages (/api/i18n/LANG) come from that cache first (they
//   cannot be stale: a changed file or catalog is a new cache), looked up by their exact URL.
// - Pages and the API's GET answers: the network first, the cache when the network fails. A
//   page's request starts while the worker itself starts (navigation preload), so a worker
//   that was asleep does not hold the page back. Where the browser can (the static routes of a
//   worker's install, Chromium 123 and later), a page's request goes to the network at once,
//   racing this worker's handler, whose own request for it is that same request (the browser
//   sends it once): online the network's answer is shown without waiting for the worker (a
//   page load measured about 10 ms faster, docs/figures.md), and the handler keeps its copy.
//   Never cached: anything but GET (a tap, a move, an upload goes to the server or fails; the
//   worker is not even woken for it), the event streams and a job's progress (live or
//   nothing), an answer that says no-store, errors.
//   Besides the shell the cache keeps the KEEP answers fetched last, the older ones dropped.
"use strict";
const VERSION = "__VERSION__";
const SHELL = [/*__SHELL__*/];
const CACHE = "nochmal-" + VERSION;
const KEEP = 200;

self.addEventListener("install", (event) => {
  // the shell's files straight from this cache, without waking the worker for each (the static
  // routing of a worker's install: Chromium 123 and later; elsewhere the fetch handler below)
  // anything but GET (a tap, a move, a new game) straight to the network, the worker not woken;
  // a page to the network and this worker's handler at once (the header above)
  if (event.addRoutes) {
    event.addRoutes(["/static/*", "/rooms-static/*", "/api/i18n/*"].map((pathname) => ({
      condition: { urlPattern: new URLPattern({ pathname }), requestMethod: "get" },
      source: { cacheName: CACHE },
    })).concat([
      { condition: { not: { requestMethod: "get" } }, source: "network" },
      { condition: { requestMode: "navigate" }, source: "race-network-and-fetch-handler" },
    ])).catch(() => {});
  }
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((n) => n.startsWith("nochmal-") && n !== CACHE).map((n) => caches.delete(n))))
    .then(() => self.registration.navigationPreload && self.registration.navigationPreload.enable())
    .then(() => self.clients.claim()));
});

function isLive(request, url) {
  return url.pathname.endsWith("/events") || url.pathname.startsWith("/api/jobs/") ||
    (request.headers.get("accept") || "").includes("text/event-stream");
}

function keepable(response) {
  return response.ok && response.type === "basic" && !/no-store/.test(response.headers.get("cache-control") || "");
}

async function networkFirst(request, preloaded) {
  try {
    const response = (preloaded && await preloaded) || await fetch(request);
    if (keepable(response)) {
      const copy = response.clone();
      caches.open(CACHE).then((cache) => cache.delete(request).then(() => cache.put(request, copy)).then(() => trim(cache)));
    }
    return response;
  } catch (offline) {
    const kept = await caches.match(request, { ignoreVary: true });
    if (kept) return kept;
    throw offline;
  }
}

// the oldest answers beyond KEEP go (a cache lists its entries in the order they were put)
async function trim(cache) {
  const extra = (await cache.keys()).filter((r) => !SHELL.includes(new URL(r.url).pathname));
  await Promise.all(extra.slice(0, Math.max(0, extra.length - KEEP)).map((r) => cache.delete(r)));
}

async function cacheFirst(request) {
  const kept = await caches.match(request);
  return kept || networkFirst(request);
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;  // the network's, never cached
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || isLive(request, url)) return;
  const shellFile = SHELL.includes(url.pathname) && /^\/(static\/|rooms-static\/|api\/i18n\/)/.test(url.pathname);
  const preloaded = request.mode === "navigate" ? event.preloadResponse : null;
  event.respondWith(shellFile ? cacheFirst(request) : networkFirst(request, preloaded));
});
