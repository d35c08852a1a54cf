// A room without the network (docs/rooms.md, offline): a tap made while the phone is offline is
// kept on the phone (localStorage, in order, so a reload keeps it too), drawn on the sheet as
// waiting, and sent when the connection is back. Each waiting tap is sent as it was made, an edit
// ("cross H4") with the sheet version the phone showed, so the server merges it cell by cell with
// what other phones did meanwhile and asks only on a real conflict (docs/rooms.md, two phones on
// one seat). The page says it is offline and how many taps wait.
// rooms.js sends every sheet tap through NM.roomTaps.send; the rest watches the page: the sheet
// (#mine) redrawn, the live stream's line (#live) connected again, the browser's "online".
"use strict";
(function () {
  const root = document.getElementById("room");
  if (!root) return;
  const KEY = "nochmal-room-waiting-" + root.dataset.code;
  const $ = (id) => document.getElementById(id);
  let flushing = null;
  let inFlight = null;  // the waiting tap being sent now
  let unreachable = false;  // the last try failed on the way: the server is out of reach
  let retryIn = 2000;  // ms; doubled after each failed try while the browser says it is online, up to 30 s
  let retry = null;

  function load() {
    try { return JSON.parse(localStorage.getItem(KEY)) || []; } catch (e) { return []; }
  }
  function save(list) {
    try {
      if (list.length) localStorage.setItem(KEY, JSON.stringify(list)); else localStorage.removeItem(KEY);
    } catch (e) { /* storage full or refused: the taps wait in this page only */ }
  }
  function cellOf(body) {
    const cells = (body.cross || []).concat(body.uncross || []);
    return cells.length === 1 ? cells[0] : null;
  }

  // the one call rooms.js makes for a tap: the server's answer, or null when the tap is kept
  async function send(url, init) {
    if (!load().length && navigator.onLine) {
      try {
        const res = await fetch(url, init);
        unreachable = false;
        return res;
      } catch (e) {
        unreachable = true;  // the network failed on the way: keep the tap
      }
    }
    keep(url, init);
    flush();
    return null;
  }

  // a second tap on a waiting cell takes the waiting one back (the sheet shows it as it was)
  function keep(url, init) {
    const body = JSON.parse(init.body);
    const cell = cellOf(body);
    const list = load();
    const at = cell === null ? -1 : list.findIndex((e) => e.url === url && cellOf(e.body) === cell);
    if (at >= 0 && list[at].id !== inFlight) list.splice(at, 1);
    else {
      if (at >= 0) {  // the waiting one is on its way: this tap takes it back once it has landed
        const way = list[at].body.cross ? "uncross" : "cross";
        delete body.cross; delete body.uncross;
        body[way] = [cell];
      }
      list.push({ id: Date.now() + "-" + Math.random().toString(36).slice(2), url, auth: init.headers.Authorization, body });
    }
    save(list);
    // (rooms.js dims a tapped cell until the server answers: it waits here instead)
    const tapped = cell && document.querySelector('#mine rect.cell[data-cell="' + cell + '"]');
    if (tapped) tapped.classList.remove("pending");
    render();
  }

  function flush() {
    if (flushing || !load().length) return flushing;
    flushing = (async () => {
      for (let entry = load()[0]; entry; entry = load()[0]) {
        inFlight = entry.id;
        let res;
        try {
          res = await fetch(entry.url, { method: "PATCH", body: JSON.stringify(entry.body),
            headers: { "Content-Type": "application/json", "Authorization": entry.auth } });
        } catch (e) {
          unreachable = true;
          // offline, the next "online" or reconnection tries again; online, the server is out of reach: a while later
          if (navigator.onLine && !retry) {
            retry = setTimeout(() => { retry = null; flush(); }, retryIn);
            retryIn = Math.min(2 * retryIn, 30000);
          }
          break;
        }
        unreachable = false;
        retryIn = 2000;
        const data = await res.json().catch(() => ({}));
        const lost = res.status === 401 || res.status === 403;  // the seat is no longer this phone's
        save(lost ? [] : load().filter((e) => e.id !== entry.id));
        // a refusal (a real conflict: "H4 was just uncrossed on another phone; tap it again ...") is said
        if (!res.ok && $("edit-error")) $("edit-error").textContent = data.error || t("edit refused (%(status)s)", { status: res.status });
        render();
      }
    })().finally(() => { flushing = null; inFlight = null; render(); });
    return flushing;
  }

  // --- what the page shows ---------------------------------------------------------------------
  const note = document.createElement("p");
  note.id = "offline-note";
  note.className = "offline-note";
  note.setAttribute("role", "status");
  note.setAttribute("aria-live", "polite");
  note.hidden = true;
  ($("live") || root.firstChild).before(note);

  function noteText(count) {
    if (!navigator.onLine || (unreachable && count)) {
      if (!count) return t("Offline — your taps wait on this phone until the connection is back");
      return count === 1 ? t("Offline — 1 tap waiting") : t("Offline — %(count)s taps waiting", { count });
    }
    return count ? t("Sending %(count)s waiting taps…", { count }) : "";
  }

  function render() {
    const list = load();
    const text = noteText(list.length);
    note.textContent = text;
    note.hidden = !text;
    if ($("live")) $("live").hidden = !navigator.onLine;  // (its "live" would outlast the network)
    markSheet(list);
  }

  // a waiting cell: a dashed frame, and a faint cross to come (or the cross faded, to go)
  function markSheet(list) {
    const svg = $("mine") && $("mine").querySelector("svg");
    if (!svg) return;
    svg.querySelectorAll(".waiting-mark").forEach((el) => el.remove());
    svg.querySelectorAll("rect.cell.waiting").forEach((r) => {
      r.classList.remove("waiting");
      delete r.dataset.waiting;
      if (r.dataset.words) r.setAttribute("aria-label", r.dataset.words);
    });
    for (const entry of list) {
      const cell = cellOf(entry.body);
      const rect = cell && entry.url.endsWith("/seats/" + svg.dataset.seatSheet + "/sheet") &&
        svg.querySelector('rect.cell[data-cell="' + cell + '"]');
      if (!rect) continue;
      const way = entry.body.cross ? "cross" : "uncross";
      rect.classList.add("waiting");
      rect.dataset.waiting = way;
      rect.setAttribute("aria-label", (rect.dataset.words || cell) + ", " + (way === "cross" ? t("to be crossed") : t("to be uncrossed")));
      const x = Number(rect.getAttribute("x")), y = Number(rect.getAttribute("y")), w = Number(rect.getAttribute("width"));
      const g = document.createElementNS("http://www.w3.org/2000/svg", "g");
      g.setAttribute("class", "waiting-mark");
      g.setAttribute("pointer-events", "none");
      const p = w * 0.2;
      g.innerHTML = (way === "cross"
        ? '<path d="M' + (x + p) + " " + (y + p) + "L" + (x + w - p) + " " + (y + w - p) + "M" + (x + w - p) + " " + (y + p) +
          "L" + (x + p) + " " + (y + w - p) + '" stroke="#111" stroke-opacity="0.45" stroke-width="3" stroke-linecap="round"/>'
        : '<rect x="' + x + '" y="' + y + '" width="' + w + '" height="' + w + '" fill="#fff" fill-opacity="0.6"/>') +
        '<rect x="' + (x + 1.5) + '" y="' + (y + 1.5) + '" width="' + (w - 3) + '" height="' + (w - 3) +
        '" fill="none" stroke="#111" stroke-width="2.5" stroke-dasharray="4 3"/>';
      svg.appendChild(g);
    }
  }

  // the sheet is redrawn on every change (rooms.js renderMine): mark the waiting cells again
  if ($("mine")) new MutationObserver(() => markSheet(load())).observe($("mine"), { childList: true });
  // the live stream connected again (rooms.js: #live "live on"): the server is reachable
  if ($("live")) {
    new MutationObserver(() => { if ($("live").classList.contains("on")) flush(); })
      .observe($("live"), { attributes: true, attributeFilter: ["class"] });
  }
  window.addEventListener("online", () => { render(); flush(); });
  window.addEventListener("offline", render);
  window.addEventListener("storage", (ev) => { if (ev.key === KEY) render(); });
  NM.i18nReady.then(render);  // (NM and t: static/common.js, loaded before)
  render();
  flush();

  NM.roomTaps = { send, flush, waiting: () => load().length };
})();
