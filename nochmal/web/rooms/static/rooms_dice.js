// /r/CODE: this roll's advice (docs/rooms.md): any seat taps in the dice just rolled, every phone
// shows each player's move with them and outlines its cells on that player's sheet. rooms.js draws
// the room and tells this script through events on #room: room-drawn (the sheets are drawn),
// room-sync (a fresh snapshot), room-dice (the stream's "dice" event).
(function () {
  "use strict";
  const root = document.getElementById("room");
  const box = document.getElementById("dice-box");
  if (!root || !box) return;
  const api = "/api/rooms/" + root.dataset.code;
  const storeKey = "nochmal-room-" + root.dataset.code;  // the seat rooms.js keeps for this room
  const COLOURS = ["y", "g", "b", "r", "o", "x"];  // the colour dice's faces; x: the joker
  const NUMBERS = ["1", "2", "3", "4", "5", "?"];
  const SVG_NS = "http://www.w3.org/2000/svg";

  let room = null;       // the room as rooms.js last drew it
  let advice = null;     // the advice shown: GET/PUT .../dice or the "dice" event
  let perKind = 3;       // dice of each kind the room rolls (GET .../dice: the engine's figure)
  let picked = { roll: null, colours: [], numbers: [] };
  let editing = false;   // the entry is open again over an advice already shown
  let shown = "";        // the box's HTML as last drawn

  function esc(text) {
    return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
  }
  // a sentence sent as data (nochmal/web/rooms/words.py) in this page's language; an advice kept
  // from before the rooms spoke languages has only its English
  function said(data, english) { return data ? NM.said(data) : english; }
  function mySeat() {
    try { return JSON.parse(localStorage.getItem(storeKey)) || null; } catch (e) { return null; }
  }
  function seated() {
    const me = mySeat();
    return me && room && room.seats[me.seat] && room.seats[me.seat].taken ? me : null;
  }
  // the roll in play; none once the last roll is counted or the mission is won (docs/rooms.md, the win)
  function playing() { return room && room.in_play && !room.won_on ? room.in_play.roll : null; }

  async function load() {
    let res;
    try { res = await fetch(api + "/dice"); } catch (e) { return; }  // offline: the advice comes with the stream
    if (!res.ok) return;
    const data = await res.json();
    perKind = data.dice_per_kind;
    show(data.advice);
  }

  function show(next) {
    if (next && advice && next.version < advice.version) return;  // an older entry than the one shown
    advice = next;
    editing = false;
    render();
  }

  // --- drawing -----------------------------------------------------------------------------------
  // a die's classes as the play page draws it (static/app.css): .c-y .. .c-o, a joker black
  function dieClass(kind, face) {
    if (kind === "colour") return "die " + (face === "x" ? "joker" : "c-" + face);
    return "die number" + (face === "?" ? " joker" : "");
  }
  function dieLabel(kind, face) {
    // the words the play page's dice have (common.js NM.dieButton, NM.colourName)
    if (kind === "colour") return face === "x" ? t("colour joker") : NM.colourName(face);
    return face === "?" ? t("number joker") : face;
  }
  function dieText(kind, face) { return kind === "colour" ? (face === "x" ? "?" : "") : face; }

  // one die as a small chip; ``remove`` ("colour:0"): a picked die, tapped to take it out again
  function dieHtml(kind, face, remove) {
    const label = esc(dieLabel(kind, face));
    const how = remove ? ' role="button" tabindex="0" data-remove="' + remove + '" aria-label="' + esc(t("take out %(die)s", { die: dieLabel(kind, face) })) + '"'
      : ' role="img" aria-label="' + label + '"';
    return '<span class="' + dieClass(kind, face) + ' chip"' + how + ">" + esc(dieText(kind, face)) + "</span>";
  }
  function diceHtml(dice) {
    return '<span class="dice-row">' + dice.colours.map((f) => dieHtml("colour", f)).join("") +
      '<span class="dice-gap"></span>' + dice.numbers.map((f) => dieHtml("number", f)).join("") + "</span>";
  }

  function render() {
    const roll = playing();
    if (advice && advice.roll !== roll) advice = null;  // the roll was counted (or taken back): cleared
    if (picked.roll !== roll) picked = { roll, colours: [], numbers: [] };
    const me = seated();
    box.hidden = !roll || (!advice && !me);
    if (box.hidden) { box.innerHTML = ""; shown = ""; mark(); return; }
    let html = "";
    if (advice) {
      html += '<h2 id="dice-title">' + esc(said(advice.title_said, advice.title)) + "</h2>" +
        '<p class="dice-entered">' + diceHtml(advice.dice) + ' <span class="fine">' + esc(t("entered by %(name)s", { name: advice.entered_by })) +
        "</span></p><ul class=\"advice-moves\" id=\"advice-moves\">" + advice.moves.map((m) =>
          '<li data-seat="' + m.seat + '"><span class="advice-text">' + esc(said(m.said, m.text)) + "</span>" +
          (m.active ? "" : ' <span class="fine dice-from">(' + esc(said(m.dice_from_said, m.dice_from)) + ")</span>") + "</li>").join("") + "</ul>";
      if (me && !editing) html += '<button type="button" id="dice-change">' + esc(t("Other dice")) + "</button>";
    } else {
      html += '<h2 id="dice-title">' + esc(t("Roll %(roll)s: the dice", { roll })) + "</h2>";
    }
    if (me && (!advice || editing)) html += entryHtml();
    if (html !== shown) { box.innerHTML = html; shown = html; }  // unchanged: kept (focus, what a reader said)
    mark();
  }

  function entryHtml() {
    const full = (list) => list.length >= perKind;
    let html = '<p class="fine">' + esc(t("Tap the colours and the numbers rolled; every phone then shows each player's move.")) + "</p>" +
      pickRow("colour", COLOURS, full(picked.colours)) + pickRow("number", NUMBERS, full(picked.numbers));
    const slots = (list, kind) => list.map((f, i) => dieHtml(kind, f, kind + ":" + i)).join("") +
      '<span class="die chip empty"></span>'.repeat(perKind - list.length);
    const ready = full(picked.colours) && full(picked.numbers);
    html += '<div class="dice-chosen"><span class="dice-row" id="dice-chosen">' + slots(picked.colours, "colour") +
      '<span class="dice-gap"></span>' + slots(picked.numbers, "number") + "</span>" +
      '<button type="button" class="primary" id="dice-send"' + (ready ? "" : " disabled") + ">" + esc(t("Advise")) + "</button>" +
      (picked.colours.length || picked.numbers.length ? '<button type="button" id="dice-clear">' + esc(t("Clear")) + "</button>" : "") +
      (editing ? '<button type="button" id="dice-cancel">' + esc(t("Cancel")) + "</button>" : "") + "</div>" +
      '<p class="error" id="dice-error" role="alert"></p>';
    return html;
  }

  // the six faces of one kind of die, as buttons (disabled once that kind's dice are all picked)
  function pickRow(kind, faces, full) {
    return '<div class="dice-pick" role="group" aria-label="' + esc(kind === "colour" ? t("colour dice") : t("number dice")) + '">' + faces.map((f) =>
      '<button type="button" class="pick ' + dieClass(kind, f) + '" data-' + kind + '="' + f + '" aria-label="' +
      esc(dieLabel(kind, f)) + '"' + (full ? " disabled" : "") + ">" + esc(dieText(kind, f)) + "</button>").join("") + "</div>";
  }

  // this roll's cells outlined on each player's sheet (a dashed ring, not the mis-tap's red one)
  function mark() {
    document.querySelectorAll(".advice-mark").forEach((el) => el.remove());
    if (!advice || !room) return;
    const me = mySeat();
    for (const m of advice.moves) {
      const host = me && me.seat === m.seat && room.seats[m.seat].taken ? document.getElementById("mine")
        : document.querySelector('.other[data-seat="' + m.seat + '"] .sheet');
      const svg = host && host.querySelector("svg");
      if (!svg) continue;
      for (const cell of m.cells) {
        const rect = svg.querySelector('rect[data-cell="' + cell + '"]');
        if (!rect) continue;
        const ring = document.createElementNS(SVG_NS, "rect");
        for (const a of ["x", "y", "width", "height"]) ring.setAttribute(a, rect.getAttribute(a));
        ring.setAttribute("class", "advice-mark");
        ring.setAttribute("pointer-events", "none");
        ring.setAttribute("data-advice", cell);
        svg.appendChild(ring);
      }
    }
  }

  // --- entering the dice ------------------------------------------------------------------------
  async function send() {
    const me = seated();
    if (!me) return;
    const body = { roll: picked.roll, dice: { colours: picked.colours, numbers: picked.numbers } };
    const btn = document.getElementById("dice-send");
    btn.disabled = true;
    btn.textContent = t("Working it out…");
    const res = await fetch(api + "/dice", { method: "PUT", body: JSON.stringify(body),
      headers: { "Content-Type": "application/json", "Authorization": "Bearer " + me.token } });
    const data = await res.json().catch(() => ({}));
    if (res.ok) { picked = { roll: picked.roll, colours: [], numbers: [] }; show(data); return; }
    shown = "";
    render();
    document.getElementById("dice-error").textContent = data.error || t("refused (%(status)s)", { status: res.status });
  }

  box.addEventListener("click", (ev) => {
    const t = ev.target.closest("button, [data-remove]");
    if (!t) return;
    if (t.dataset.colour && picked.colours.length < perKind) picked.colours.push(t.dataset.colour);
    else if (t.dataset.number && picked.numbers.length < perKind) picked.numbers.push(t.dataset.number);
    else if (t.dataset.remove) {
      const [kind, i] = t.dataset.remove.split(":");
      picked[kind === "colour" ? "colours" : "numbers"].splice(Number(i), 1);
    } else if (t.id === "dice-clear") picked = { roll: picked.roll, colours: [], numbers: [] };
    else if (t.id === "dice-change") editing = true;
    else if (t.id === "dice-cancel") editing = false;
    else if (t.id === "dice-send") { send(); return; }
    else return;
    render();
  });
  box.addEventListener("keydown", (ev) => {
    if ((ev.key === "Enter" || ev.key === " ") && ev.target.dataset && ev.target.dataset.remove) { ev.preventDefault(); ev.target.click(); }
  });

  let loaded = false;  // the advice is loaded on each snapshot, and on the first drawing (drawn without a stream)
  root.addEventListener("room-drawn", (ev) => {
    room = ev.detail;
    if (!loaded) { loaded = true; load(); }
    render();
  });
  root.addEventListener("room-sync", () => { loaded = true; load(); });
  root.addEventListener("room-dice", (ev) => show(ev.detail));
})();
