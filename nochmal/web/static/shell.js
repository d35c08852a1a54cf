// Loaded in every page's <head>, before anything is drawn (docs/web.md "Installing the app"):
// the colour scheme the player chose (auto / light / dark, remembered in localStorage) is set
// on <html data-theme> before the first paint, the header's switch changes it, and the service
// worker (/sw.js) is registered so that the app installs and opens without the network.
"use strict";
(function () {
  const KEY = "nochmal-theme";
  const REGISTER_AFTER_MS = 1000;  // the service worker's registration after the page's load
  const dark = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  let picked = null;  // this page's pick, where localStorage refuses it (a private window)
  function choice() {
    try { return localStorage.getItem(KEY) || picked || "auto"; } catch (e) { return picked || "auto"; }
  }
  function apply() {
    const chosen = choice();
    const root = document.documentElement;
    root.dataset.themeChoice = chosen;
    root.dataset.theme = chosen === "auto" ? (dark && dark.matches ? "dark" : "light") : chosen;
  }
  apply();
  if (dark && dark.addEventListener) dark.addEventListener("change", apply);
  window.addEventListener("storage", (ev) => { if (ev.key === KEY) { apply(); wire(); } });

  function wire() {
    const select = document.getElementById("theme-switch");
    if (!select) return;
    select.value = choice();
    if (select.dataset.wired) return;
    select.dataset.wired = "1";
    select.addEventListener("change", () => {
      picked = select.value;
      try { localStorage.setItem(KEY, picked); } catch (e) { /* kept for this page only */ }
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
