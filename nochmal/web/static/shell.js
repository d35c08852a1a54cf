// Loaded deferred by every page (docs/web.md "Installing the app", "Dark mode"): the header's
// colour switch (auto / light / dark), kept in a cookie so that the server writes the choice into
// the next page's <html data-theme-choice> (nochmal/web/theme.py; base.html sets <html
// data-theme> before the first paint), and the service worker (/sw.js), registered so that the
// app installs and opens without the network.
"use strict";
(function () {
  const COOKIE = "nochmal_theme", COOKIE_DAYS = 365;  // as nochmal/web/theme.py reads it
  const REGISTER_AFTER_MS = 1000;  // the service worker's registration after the page's load
  const root = document.documentElement;
  const dark = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  function choice() { return root.dataset.themeChoice || "auto"; }
  function apply() {
    const chosen = choice();
    const theme = chosen === "auto" ? (dark && dark.matches ? "dark" : "light") : chosen;
    if (root.dataset.theme !== theme) root.dataset.theme = theme;  // (the same value again would restyle the page)
  }
  apply();
  if (dark && dark.addEventListener) dark.addEventListener("change", apply);

  function wire() {
    const select = document.getElementById("theme-switch");
    if (!select) return;
    select.value = choice();
    select.addEventListener("change", () => {
      root.dataset.themeChoice = select.value;
      document.cookie = COOKIE + "=" + select.value + "; Path=/; Max-Age=" + COOKIE_DAYS * 86400 + "; SameSite=Lax";
      apply();
    });
  }
  document.addEventListener("DOMContentLoaded", wire);

  // without the network a page kept by the service worker still opens: say so, since what needs
  // the server (a new game, a move, an upload) waits for the connection (a room says more itself)
  function offlineLine() {
    const main = document.querySelector("main");
    if (!main || document.getElementById("room")) return;
    let line = document.getElementById("offline-line");
    if (!line && navigator.onLine) return;  // made the first time it is needed: a new line costs the page a style pass
    if (!line) {
      line = document.createElement("p");
      line.id = "offline-line";
      line.className = "offline-line";
      line.setAttribute("role", "status");
      main.prepend(line);
    }
    line.hidden = navigator.onLine;
    // the page's language once its messages are in (static/common.js; the worker keeps them offline)
    const ready = typeof NM === "object" && NM.i18nReady ? NM.i18nReady : Promise.resolve();
    ready.then(() => {
      const say = typeof t === "function" ? t : (text) => text;
      line.textContent = navigator.onLine ? "" : say("Offline — this page was kept on the phone; what needs the server waits for the connection.");
    });
  }
  document.addEventListener("DOMContentLoaded", offlineLine);
  window.addEventListener("online", offlineLine);
  window.addEventListener("offline", offlineLine);

  // http://localhost and 127.0.0.1 count as secure; another plain-http address has no service worker.
  // Registered once the page is in and drawn (a while after its load, when the browser is idle):
  // a worker's first install fetches the whole shell, which would compete with the page's own
  // requests (the puzzle's first load measured 100-200 ms slower at p95, docs/figures.md)
  if ("serviceWorker" in navigator && window.isSecureContext) {
    const register = () => { navigator.serviceWorker.register("/sw.js").catch(() => {}); };
    window.addEventListener("load", () => setTimeout(() => {
      if (window.requestIdleCallback) window.requestIdleCallback(register, { timeout: 2000 }); else register();
    }, REGISTER_AFTER_MS));
  }
})();
