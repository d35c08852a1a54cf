// Shared helpers of the nochmal pages: the JSON API, dice buttons, sheet drawing.
"use strict";
const NM = {};

// The page's language (<html lang>, chosen by the server: docs/web.md "Languages") and its
// messages, fetched once from /api/i18n/LANG (the same .po catalogs as the server's). t("...")
// gives a message in that language, the English text until the catalog is in or where it has
// none; "%(name)s" takes values[name]. A page that draws text at load awaits NM.i18nReady first.
NM.lang = document.documentElement.lang || "en";
NM.catalog = {};
NM.plurals = {};  // singular -> the language's plural forms (the catalog's order)
// A page whose language has no messages of its own for the scripts (English: base.html says
// data-messages="none") asks for none: one request less before its first drawing.
NM.i18nReady = document.documentElement.dataset.messages === "none" ? Promise.resolve()
  : fetch("/api/i18n/" + encodeURIComponent(NM.lang))
    .then(r => (r.ok ? r.json() : { messages: {} }))
    .then(data => { NM.catalog = data.messages || {}; NM.plurals = data.plurals || {}; })
    .catch(() => {});
function fill(text, values) {
  return values ? text.replace(/%\((\w+)\)s/g, (all, name) => (name in values ? String(values[name]) : all)) : text;
}
function t(message, values) {
  return fill(NM.catalog[message] || message, values);
}
NM.t = t;
// ngettext("%(n)s roll", "%(n)s rolls", n): the form for n (values.n is n; pybabel extracts it by
// its default keywords). The catalogs' forms follow CLDR's categories in this order (one, few,
// many, other) for our five languages, so Intl.PluralRules picks the form.
const PLURAL_ORDER = ["zero", "one", "two", "few", "many", "other"];
function ngettext(singular, plural, n, values) {
  const forms = NM.plurals[singular];
  let text = n === 1 ? singular : plural;
  if (forms && forms.length) {
    const rules = new Intl.PluralRules(NM.lang);
    const kinds = PLURAL_ORDER.filter(k => rules.resolvedOptions().pluralCategories.includes(k));
    text = forms[Math.min(kinds.indexOf(rules.select(n)), forms.length - 1)] || text;
  }
  return fill(text, Object.assign({ n }, values || {}));
}
NM.ngettext = ngettext;
// A sentence the server sends as data (nochmal.i18n Message on the wire: {msgid, values,
// plural, n}, its values plain or Messages themselves) said in the page's language; a plain
// text (a player's name) as it is; a list joined with ", ".
NM.said = function said(m) {
  if (m === null || m === undefined) return "";
  if (Array.isArray(m)) return m.map(said).join(", ");
  if (typeof m !== "object") return String(m);
  const values = {};
  for (const [k, v] of Object.entries(m.values || {})) values[k] = said(v);
  return m.plural ? ngettext(m.msgid, m.plural, m.n, values) : t(m.msgid, values);
};

// Names joined by the page's "and" (the winners of a game): a t() of its own, since pybabel
// does not extract a t() inside another t()'s values (tests/engine/test_i18n.py).
NM.andList = (names) => names.join(" " + t("and") + " ");

// Numbers and dates in the page's language (docs/web.md "Languages").
NM.number = (value, digits) => new Intl.NumberFormat(NM.lang, { maximumFractionDigits: digits || 0 }).format(value);
NM.percent = (fraction) => new Intl.NumberFormat(NM.lang, { style: "percent", maximumFractionDigits: 0 }).format(fraction);
NM.date = (value) => new Date(value).toLocaleDateString(NM.lang, { year: "numeric", month: "long", day: "numeric" });

// A planner job's state (nochmal/web/jobs.py) in words.
NM.jobState = (state) => ({ queued: t("queued"), running: t("running"), done: t("done"), failed: t("failed"),
  cancelled: t("cancelled"), "timed out": t("timed out"), abandoned: t("abandoned") }[state] || state);

// base.html's language switch: ?lang= makes the server set the cookie, so the reload and every
// page after it speak the chosen language.
// (common.js runs in the head, before the page's body is read: NM.ready waits for it)
NM.ready = (fn) => {
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", fn); else fn();
};
NM.ready(function () {
  const pick = document.getElementById("lang-switch");
  if (!pick) return;
  pick.addEventListener("change", () => {
    const url = new URL(window.location.href);
    url.searchParams.set("lang", pick.value);
    window.location.replace(url.toString());
  });
});

NM.api = async function (method, path, body, headers) {
  const opts = { method, headers: Object.assign({}, headers) };
  if (body instanceof FormData) opts.body = body;
  else if (body !== undefined) { opts.body = JSON.stringify(body); opts.headers["Content-Type"] = "application/json"; }
  let resp;
  try {
    resp = await fetch(path, opts);
  } catch (e) {  // no answer at all (offline, server away): said so, not the browser's "Failed to fetch"
    const err = new Error(t("No connection to the server: try again when the phone is back online."));
    err.offline = true;
    throw err;
  }
  const type = resp.headers.get("content-type") || "";
  const data = type.includes("json") ? await resp.json() : await resp.text();
  if (!resp.ok) {
    const err = new Error((data && data.error) || ("HTTP " + resp.status));
    err.field = data && data.field; err.status = resp.status;
    throw err;
  }
  return data;
};

// A game page's own sheet (#my-sheet, game.js and online.js): the cells the tap may take next
// outlined, the cells picked so far marked, the sheets dimmed while a pair of dice is chosen.
NM.markMine = function (legalCells, picked, choosing) {
  const legal = new Set(legalCells || []);
  document.querySelectorAll("#my-sheet rect.cell").forEach(r => {
    r.classList.toggle("legal", legal.has(r.dataset.cell));
    r.classList.toggle("picked", picked.includes(r.dataset.cell));
    r.classList.remove("refused");
  });
  const mine = document.getElementById("my-sheet");
  if (mine) NM.keyCells(mine, legal);
  document.getElementById("sheets").classList.toggle("choosing", choosing);
};

// A tap's question to the server, the same on the game page (game.js) and in an online game
// (online.js), each through its own API (ask(body) answers {ok, reason, move, extend}): the
// cells picked so far plus the one tapped. A refusal is said and marks the tapped cell; an
// answer is kept (kept(cells, move)), outlines the cells that may follow and sets the Cross button.
NM.askTap = async function (pick, selected, extra, ask, kept, mark) {
  const cross = document.getElementById("cross");
  if (!(pick.colour && pick.number)) {
    mark([]);
    cross.disabled = true;
    if (pick.colour || pick.number) NM.say(t("pick a colour die and a number die"));
    return;
  }
  const cells = extra ? selected.concat([extra]) : selected;
  let res;
  try {
    res = await ask({ colour: pick.colour, number: pick.number, cells });
  } catch (e) { NM.say(e.message, "bad"); return; }
  if (!res.ok) {
    NM.say(res.reason, "bad");
    const r = extra && document.querySelector('#my-sheet rect.cell[data-cell="' + extra + '"]');
    if (r) r.classList.add("refused");
    return;
  }
  kept(cells, res.move);
  mark(res.extend);
  cross.disabled = !res.move;
  cross.textContent = res.move ? t("Cross %(move)s", { move: res.move }) : t("Cross");
  NM.say(res.move ? t("tap Cross to confirm, or add cells") :
    (cells.length ? t("selected %(cells)s", { cells: cells.join(" ") }) : t("tap the cells to cross (outlined: legal)")), "good");
};

NM.say = function (text, kind) {
  const el = document.getElementById("message");
  if (!el) return;
  el.textContent = text || "";
  el.className = "message" + (kind ? " " + kind : "");
};

NM.dieButton = function (kind, face, usable) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "die " + kind;
  b.dataset.kind = kind;
  b.dataset.face = face;
  if (kind === "colour") b.classList.add(face === "x" ? "joker" : "c-" + face);
  else if (face === "?") b.classList.add("joker");
  b.textContent = kind === "colour" ? (face === "x" ? "✱" : "") : face;
  b.title = kind === "colour" ? (face === "x" ? t("colour joker") : t("colour %(face)s", { face: NM.colourName(face) }))
    : (face === "?" ? t("number joker") : t("number %(face)s", { face }));
  b.setAttribute("aria-label", b.title);
  if (!usable) { b.classList.add("unusable"); b.disabled = true; }
  return b;
};

// Which dice of the roll the deciding player may use: a multiset match of available faces.
NM.usable = function (faces, available) {
  const left = {};
  (available || faces).forEach(f => { left[f] = (left[f] || 0) + 1; });
  return faces.map(f => { if (left[f] > 0) { left[f] -= 1; return true; } return false; });
};

// A colour die's face (y g b r o) as the edition names it.
NM.colourName = function (face) {
  return { y: t("yellow"), g: t("green"), b: t("blue"), r: t("red"), o: t("orange") }[face] || face;
};

NM.rollText = function (r) { return r.colours.join("") + "/" + r.numbers.join(""); };

NM.sheetBox = function (svg, cls) {
  const box = document.createElement("div");
  box.className = "sheet-box" + (cls ? " " + cls : "");
  box.innerHTML = svg;
  return box;
};

// --- a sheet by keyboard and screen reader (docs/web.md, phones) -----------------------------
// The drawing names every cell ("H4 blue, star, crossed", nochmal/svg.py); here the cells become
// buttons with one tab stop per sheet: Tab reaches the sheet, the arrows move between cells,
// Space or Enter taps the cell as a finger would (a click, so the page's tap handler serves both).
NM.focusedCell = {};  // sheet box id -> the cell last focused, so a redrawn sheet keeps the focus

NM.keyCells = function (box, legal) {
  const cells = Array.from(box.querySelectorAll("rect.cell"));
  if (!cells.length) return;
  box.querySelector("svg").setAttribute("role", "group");
  cells.forEach(r => {
    if (!r.dataset.words) r.dataset.words = r.getAttribute("aria-label") || r.dataset.cell;
    r.setAttribute("role", "button");
    r.setAttribute("tabindex", "-1");
    r.setAttribute("aria-label", r.dataset.words + (legal && legal.has(r.dataset.cell) ? t(", can be crossed") : ""));
  });
  const name = NM.focusedCell[box.id];
  const current = cells.find(r => r.dataset.cell === name) || cells[0];
  current.setAttribute("tabindex", "0");
  if (name && (!document.activeElement || document.activeElement === document.body)) current.focus();
};

NM.sheetKeys = function (box) {
  if (box.dataset.keys) return;
  box.dataset.keys = "1";
  const cellOf = (el) => el && el.closest && el.closest("rect.cell");
  box.addEventListener("focusin", (ev) => { const r = cellOf(ev.target); if (r) NM.focusedCell[box.id] = r.dataset.cell; });
  box.addEventListener("focusout", (ev) => {
    if (ev.relatedTarget && !box.contains(ev.relatedTarget)) delete NM.focusedCell[box.id];
  });
  box.addEventListener("keydown", (ev) => {
    const r = cellOf(ev.target);
    if (!r) return;
    if (ev.key === " " || ev.key === "Enter") {
      ev.preventDefault();
      r.dispatchEvent(new MouseEvent("click", { bubbles: true }));
      return;
    }
    const step = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[ev.key];
    if (!step) return;
    ev.preventDefault();
    const name = String.fromCharCode(r.dataset.cell.charCodeAt(0) + step[0]) + (parseInt(r.dataset.cell.slice(1), 10) + step[1]);
    const next = box.querySelector('rect.cell[data-cell="' + name + '"]');
    if (!next) return;
    r.setAttribute("tabindex", "-1");
    next.setAttribute("tabindex", "0");
    next.focus();
  });
};
