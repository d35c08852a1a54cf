// /r/CODE: one seat's sheet to tap, every other sheet and the team status, live (server-sent events).
(function () {
  "use strict";
  const root = document.getElementById("room");
  const code = root.dataset.code;
  const api = "/api/rooms/" + code;
  const storeKey = "nochmal-room-" + code;
  const $ = (id) => document.getElementById(id);

  let room = null;          // the room document (GET /api/rooms/CODE)
  let svgs = {};            // seat -> SVG text from the renderer
  let me = loadSeat();      // {seat, token} held by this browser
  let pathsShown = {};      // seat -> true while its crossing path is drawn
  let sending = Promise.resolve();
  let seatNote = "";        // why this browser lost its seat (shown until it sits down again)

  function loadSeat() {
    try { return JSON.parse(localStorage.getItem(storeKey)) || null; } catch (e) { return null; }
  }
  function saveSeat(value) {
    me = value;
    if (value) localStorage.setItem(storeKey, JSON.stringify(value)); else localStorage.removeItem(storeKey);
  }
  function esc(text) {
    return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
  }
  // the token of the phone that made the room (rooms_index.js keeps it): it frees a seat or makes
  // a new link for it; a room made before rooms had creators lets any seated phone (docs/rooms.md, seats)
  const creatorKey = "nochmal-room-creator-" + code;
  function creatorToken() { try { return localStorage.getItem(creatorKey); } catch (e) { return null; } }
  function keeperToken() {
    if (!room) return null;
    if (room.has_creator) return creatorToken();
    return me && room.seats[me.seat] && room.seats[me.seat].taken ? me.token : null;
  }
  function authHeaders() {
    return { "Content-Type": "application/json", "Authorization": "Bearer " + (me ? me.token : "") };
  }

  // --- handover links: /r/CODE#seat=K&handover=SECRET ----------------------------------
  async function claimFromHash() {
    const params = new URLSearchParams(window.location.hash.slice(1));
    if (!params.has("handover")) return;
    const seat = params.get("seat");
    history.replaceState(null, "", window.location.pathname);
    const res = await fetch(api + "/seats/" + seat + "/claim", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ handover: params.get("handover") }),
    });
    const data = await res.json().catch(() => ({}));
    // claimed: the room version of this claim, so that its own "handover" event is not taken for a later one
    if (res.ok) saveSeat({ seat: data.seat, token: data.seat_token, claimed: data.version });
    else seatNote = data.error || "This hand-over link did not work; ask for a new one.";
  }

  // --- live stream -------------------------------------------------------------------------
  function connect() {
    const es = new EventSource(api + "/events");
    es.addEventListener("open", () => { $("live").textContent = "live"; $("live").className = "live on"; });
    es.addEventListener("error", () => {
      $("live").textContent = "reconnecting…"; $("live").className = "live off";
      // a refused stream (e.g. 429: too many open from this address) is not retried by the browser:
      // show the room as it stands and try the stream again a little later
      if (es.readyState === EventSource.CLOSED) { if (!room) refresh(); setTimeout(connect, 3000); }
    });
    es.addEventListener("sync", (e) => {
      const doc = JSON.parse(e.data);
      svgs = doc.svgs || {};
      delete doc.svgs;
      room = doc;
      if (me && !(room.seats[me.seat] && room.seats[me.seat].taken)) saveSeat(null);
      renderAll();
      root.dispatchEvent(new CustomEvent("room-sync", { detail: room }));  // rooms_dice.js loads this roll's dice
    });
    es.addEventListener("dice", (e) => root.dispatchEvent(new CustomEvent("room-dice", { detail: JSON.parse(e.data) })));
    es.addEventListener("sheet", (e) => {
      const d = JSON.parse(e.data);
      if (!room || d.version <= room.version) return;
      room.version = d.version;
      room.seats[d.seat] = d.sheet;
      if (d.seats) room.seats = d.seats;  // the race: first/later of other seats follow from this edit
      if (d.in_play) room.in_play = d.in_play;
      if ("won_on" in d) room.won_on = d.won_on;
      Object.assign(svgs, d.svgs || {});
      if (d.status) room.status = d.status;
      renderAll();
    });
    es.addEventListener("rolls", (e) => {
      const d = JSON.parse(e.data);
      if (!room || d.version <= room.version) return;
      const counted = d.rolls_used > room.rolls_used;
      if (counted) holdPlus();  // another phone just counted: a tap meant for the same roll must not count the next
      applyRolls(d);
      rollNote(d.message, d.rolls_used);  // "Anna counted roll 5", on every phone
    });
    es.addEventListener("status", (e) => {
      const d = JSON.parse(e.data);
      if (!room || d.version < room.version) return;  // a status of an older state: a newer one follows
      const had = hasSplit();
      room.status = d.status;
      if (had !== hasSplit()) { renderAll(); return; }  // (the path buttons come or go)
      renderStatus();
      renderWarnings();
      renderPaths();
    });
    es.addEventListener("handover", (e) => {
      const d = JSON.parse(e.data);
      if (!room) return;
      if (d.version > room.version) room.version = d.version;
      if (!me || me.seat !== d.seat || (me.claimed || 0) >= d.version) return;
      const stored = loadSeat();  // this browser claimed it in another tab: take that token
      if (stored && stored.seat === d.seat && (stored.claimed || 0) >= d.version) { me = stored; return; }
      const name = room.seats[d.seat] ? room.seats[d.seat].name : "seat " + (d.seat + 1);
      seatNote = "Your seat (" + name + ") was handed over to another browser; this one no longer holds it.";
      saveSeat(null);
      renderAll();
    });
    es.addEventListener("seat", (e) => {  // the creator freed a seat or made a new link for it
      const d = JSON.parse(e.data);
      if (!room) return;
      if (!me || me.seat !== d.seat || (me.claimed || 0) >= d.version) return;
      seatNote = d.text;
      saveSeat(null);
      refresh();
    });
    es.addEventListener("resync", () => { es.close(); connect(); });
  }

  // --- rendering -----------------------------------------------------------------------------
  function renderAll() {
    if (!room) return;
    const mission = room.mode === "mission";
    $("room-title").textContent = mission ? room.mission_name : "Competitive game";
    $("status-title").textContent = mission ? "Team" : "Scores";
    $("room-sub").textContent = mission
      ? room.difficulty + " · " + room.players + " player(s) · " + room.board + " board"
      : room.board + " board · " + room.players + " player(s)";
    $("share-link").href = room.url; $("share-link").textContent = room.url;
    // a loopback link cannot be opened by another phone: say how to get one that can
    $("share-local").hidden = !/^https?:\/\/(localhost|127\.[0-9.]+|\[::1\])(:|\/)/.test(room.url);
    const seated = me && room.seats[me.seat] && room.seats[me.seat].taken;
    const free = room.seats.some((s) => !s.taken);
    $("join-box").hidden = seated;
    $("seat-form").hidden = !free;
    if (seated) seatNote = "";
    if (!seated && (seatNote || !free)) {
      $("join-error").textContent = [seatNote, free ? "" : "Every seat is taken; a player can hand a seat over to " +
        "you, or the room's creator can free one."].filter(Boolean).join(" ");
    }
    if (!seated) renderSeatPick();
    renderKeeper();
    $("mine-box").hidden = !seated;
    renderRolls(seated);
    renderBanner(seated);
    if (seated) renderMine();
    renderOthers();
    renderRaceLines();
    renderStatus();
    renderWarnings();
    renderPaths();
  }

  // --- seats: pick one, the creator frees one or makes a new link (docs/rooms.md, seats) --------
  function seatWords(s, k) {
    const crosses = s.cells.length;
    return "Seat " + (k + 1) + " — " + (s.name ? s.name + "'s sheet (" + crosses + " crossed), no phone holds it" : "empty");
  }

  function renderSeatPick() {
    const box = $("seat-pick");
    const picked = box.querySelector("input:checked");
    const keep = picked ? Number(picked.value) : null;
    const free = room.seats.map((s, k) => [s, k]).filter(([s]) => !s.taken);
    let html = "<legend>Your seat</legend>";
    free.forEach(([s, k], i) => {
      const on = keep === null ? i === 0 : keep === k;
      html += '<label><input type="radio" name="seat" value="' + k + '"' + (on ? " checked" : "") +
        (s.name ? ' data-name="' + esc(s.name) + '"' : "") + "> " + esc(seatWords(s, k)) + "</label>";
    });
    box.innerHTML = html;
    box.hidden = free.length < 2 && !free.some(([s]) => s.name);
    prefillName();
  }
  // a freed seat: most likely its player again, on a new phone
  function prefillName() {
    const picked = $("seat-pick").querySelector("input:checked");
    if (picked && picked.dataset.name && !$("seat-name").value) $("seat-name").value = picked.dataset.name;
  }
  $("seat-pick").addEventListener("change", prefillName);

  function renderKeeper() {
    const token = keeperToken();
    $("keeper").hidden = !token;
    if (!token) return;
    $("keeper-note").textContent = room.has_creator
      ? "You made this room: for a lost phone, make a new link for its seat (the old phone stops at once), or free the seat so that any phone can sit in it; its sheet stays."
      : "This room was made before rooms had a creator: any seated phone may make a new link for a seat or free it.";
    const open = {};
    $("keeper-seats").querySelectorAll(".link-box[data-seat]").forEach((el) => { open[el.dataset.seat] = el.outerHTML; });
    $("keeper-seats").innerHTML = room.seats.map((s, k) => '<li data-seat="' + k + '"><span>' + esc("Seat " + (k + 1) + " — " +
      (s.taken ? s.name : s.name ? s.name + " (free)" : "free")) + "</span>" + (s.taken ? ' <button type="button" class="reissue" data-seat="' +
      k + '">New link</button> <button type="button" class="free-seat" data-seat="' + k + '">Free</button>' : "") +
      (open[k] || "") + "</li>").join("");
  }

  $("keeper-seats").addEventListener("click", async (ev) => {
    const btn = ev.target.closest("button.reissue, button.free-seat");
    if (!btn) return;
    const k = Number(btn.dataset.seat);
    const name = room.seats[k].name;
    const headers = { "Content-Type": "application/json", "Authorization": "Bearer " + keeperToken() };
    const row = btn.closest("li");
    if (btn.classList.contains("free-seat")) {
      if (!confirm("Free " + name + "'s seat? The phone holding it stops; the sheet stays for whoever sits in seat " + (k + 1) + ".")) return;
      const res = await fetch(api + "/seats/" + k, { method: "DELETE", headers });
      const data = await res.json().catch(() => ({}));
      $("keeper-note").textContent = res.ok ? name + "'s seat is free: any phone can sit in it and gets the sheet." : data.error;
      await refresh();
      return;
    }
    const res = await fetch(api + "/seats/" + k + "/handover", { method: "POST", headers });
    const data = await res.json().catch(() => ({}));
    row.querySelectorAll(".link-box").forEach((el) => el.remove());
    row.insertAdjacentHTML("beforeend", res.ok ? linkBox(data, "Open on " + name + "'s new phone (works once):") :
      '<p class="error">' + esc(data.error || "refused") + "</p>");
  });

  // a hand-over link: its QR code, the phone's share sheet (or copy), and the link itself
  function linkBox(data, intro) {
    const how = navigator.share ? "Share…" : "Copy link";
    return '<div class="link-box" data-seat="' + data.seat + '"><p>' + esc(intro) + '</p><div class="qr">' + data.qr_svg +
      '</div><p><button type="button" class="share-link" data-url="' + esc(data.url) + '">' + how + "</button> " +
      '<span class="copied fine" aria-live="polite"></span></p><p class="fine"><a href="' + esc(data.url) + '">' + esc(data.url) + "</a></p></div>";
  }

  document.addEventListener("click", async (ev) => {
    const btn = ev.target.closest("button.share-link");
    if (!btn) return;
    const url = btn.dataset.url;
    const said = btn.parentElement.querySelector(".copied");
    if (navigator.share) {
      try { await navigator.share({ title: "Your seat in room " + code, url }); } catch (e) { /* the player closed the sheet */ }
      return;
    }
    try {
      await navigator.clipboard.writeText(url);
      said.textContent = "Copied: paste it into a message to the other phone.";
    } catch (e) {
      said.textContent = "Press and hold the link below to copy it.";
    }
  });

  function renderMine() {
    const seat = room.seats[me.seat];
    $("mine-title").textContent = "Your sheet — " + seat.name;
    $("mine").innerHTML = svgs[me.seat] || "";
    $("mine").querySelector("svg") && $("mine").querySelector("svg").setAttribute("data-seat-sheet", me.seat);
    NM.sheetKeys($("mine"));  // Tab, arrows and Space on the sheet (nochmal/web/static/common.js)
    NM.keyCells($("mine"));
    $("jokers-used").textContent = seat.jokers_used;
    $("path-mine").hidden = room.mode !== "mission" || !hasSplit();
    $("path-mine").textContent = pathsShown[me.seat] ? "Hide my path" : "Show my path";
    renderClaims(seat);
  }

  // --- the rolls: whose roll it is, counted by number (docs/rooms.md, the rolls) ----------------
  function renderRolls(seated) {
    const play = room.in_play || {};
    const mission = room.mode === "mission";
    $("in-play").textContent = room.won_on ? "The mission is won: no roll left to count" :
      play.roll ? "Roll " + play.roll + " — " + play.name + " rolls" :
      mission ? "All " + room.budget + " rolls are used" : "The game is over";
    $("rolls-used").textContent = room.rolls_used;
    if (noteRolls !== null && noteRolls !== room.rolls_used) rollNote("", null);
    $("rolls-left").textContent = mission ? "of " + room.budget + " · " + Math.max(0, room.budget - room.rolls_used) + " left" : "";
    // a phone without a seat counts nothing; a won mission has no roll left to count (docs/rooms.md, the win)
    $("rolls-plus").hidden = !seated || !play.roll || !!room.won_on;
    $("rolls-plus").textContent = "Roll " + play.roll + " done";
    const last = play.last;
    $("rolls-minus").hidden = !seated || !last;
    $("rolls-minus").textContent = last ? "Undo roll " + last.roll + (last.counted_by ? " (counted by " + last.counted_by + ")" : "") : "Undo";
    $("rolls-plus").disabled = Date.now() < plusHeldUntil;
  }

  // the + of a phone that sees another phone's count is held a moment (PLUS_HOLD_MS): the
  // player who pressed it 0.4 s later meant the roll just counted, not the next one
  const PLUS_HOLD_MS = 1500;
  let plusHeldUntil = 0;
  function holdPlus() {
    plusHeldUntil = Date.now() + PLUS_HOLD_MS;
    setTimeout(() => { if (room) renderRolls(!!(me && room.seats[me.seat] && room.seats[me.seat].taken)); }, PLUS_HOLD_MS + 10);
  }

  function applyRolls(d) {
    if (d.version < room.version) return;
    room.version = d.version;
    room.rolls_used = d.rolls_used;
    if (d.status) room.status = d.status;
    if (d.in_play) room.in_play = d.in_play;
    if ("won_on" in d) room.won_on = d.won_on;
    renderAll();
  }

  // the roll note speaks of one count ("Anna counted roll 5" with 5 counted): once the room's count
  // is another without a note of its own (a resync after an undo elsewhere, a count set outright) it goes
  let noteRolls = null;
  function rollNote(text, rollsUsed) {
    $("roll-note").textContent = text || "";
    noteRolls = rollsUsed === undefined ? null : rollsUsed;
  }

  // taps go one after another, each naming the roll it counts as the room stood after the one
  // before: two phones counting one roll count it once, five taps of undo take back five rolls
  let rolling = Promise.resolve();
  function stepRoll(undo) {
    rolling = rolling.then(async () => {
      if (undo && !room.rolls_used) return;
      const body = undo ? { undo: room.rolls_used } : { roll: room.rolls_used + 1 };
      const res = await fetch(api + "/rolls", { method: "PUT", headers: authHeaders(), body: JSON.stringify(body) });
      const data = await res.json().catch(() => ({}));
      rollNote(res.ok ? data.message : (data.error || "refused (" + res.status + ")"), res.ok ? data.rolls_used : null);
      if (res.ok) applyRolls(data); else if (res.status === 409) await refresh();
    }).catch(() => {
      // the request never reached the room (no connection): nothing was counted; the queue stays
      // usable, so the next press tries again
      rollNote(undo ? "Not undone: no connection. Tap again when the phone is back online."
                    : "Not counted: no connection. Tap again when the phone is back online.");
    });
    return rolling;
  }

  // --- the win and the end: a banner on top of every phone (docs/rooms.md, the win) -----------
  function renderBanner(seated) {
    const end = room.mode === "competitive" && room.status && room.status.end;
    const text = room.won_on ? "Won on roll " + room.won_on + "!" : end ? end.title : "";
    $("banner").hidden = !text;
    $("banner").className = "banner" + (end && !end.final ? " last" : "");
    $("banner-text").textContent = text;
    $("reopen").hidden = !(room.won_on && seated);
  }

  // --- the race: first / later from the rolls of the completions, set by hand if need be ------
  const COLOUR_NAMES = ["yellow", "green", "blue", "red", "orange"];
  function itemLabel(item) { return COLOUR_NAMES.includes(item) ? item : "column " + item; }

  // per seat: [{item, roll, first, byHand}] of every column and colour it completed
  function raceOf(k) {
    const race = room.status && room.status.race;
    if (!race) return [];
    const out = [];
    for (const what of ["columns", "colours"]) {
      for (const [item, r] of Object.entries(race[what] || {})) {
        const roll = (r.rolls || {})[String(k)];
        const first = r.first.includes(k);
        if (first || r.later.includes(k)) out.push({ item, roll, first, byHand: (r.by_hand || {})[String(k)] || "" });
      }
    }
    return out;
  }
  function raceText(m) { return itemLabel(m.item) + " " + (m.first ? "first" : "later") + (m.roll ? " (roll " + m.roll + ")" : ""); }

  function renderClaims(seat) {
    const box = $("claims");
    const marks = room.mode === "competitive" ? raceOf(me.seat) : [];
    box.hidden = !marks.length;
    if (!marks.length) { box.innerHTML = ""; return; }
    let html = "<p>First or later follows from the roll each sheet completed it on; set it by hand if the room got it wrong.</p>";
    for (const m of marks) {
      const opt = (value, label) => '<option value="' + value + '"' + ((m.byHand || "auto") === value ? " selected" : "") + ">" + label + "</option>";
      html += '<label class="claim" data-item="' + esc(m.item) + '"><span>' + esc(raceText(m)) + '</span><select data-item="' +
        esc(m.item) + '" aria-label="' + esc(itemLabel(m.item)) + ' first or later">' + opt("auto", "as the rolls say") +
        opt("first", "first") + opt("later", "later") + "</select></label>";
    }
    box.innerHTML = html;
  }

  function renderRaceLines() {
    if (room.mode !== "competitive") return;
    document.querySelectorAll(".other[data-seat]").forEach((card) => {
      const marks = raceOf(Number(card.dataset.seat));
      if (!marks.length) return;
      const line = document.createElement("p");
      line.className = "race-line";
      line.textContent = marks.map(raceText).join(" · ");
      card.querySelector("h3").after(line);
    });
  }

  function renderOthers() {
    const box = $("others");
    let html = "";
    room.seats.forEach((s, k) => {
      if (me && k === me.seat && s.taken) return;
      html += '<section class="card other" data-seat="' + k + '"><h3>' +
        esc(s.name || "seat " + (k + 1) + " (free)") + ' <span class="score">' + s.score + ' pts</span></h3>' +
        '<div class="sheet-warning" data-seat="' + k + '" hidden></div>' +
        // a freed seat keeps its sheet on the table until a phone sits in it (docs/rooms.md, seats)
        (s.name && !s.taken ? '<p class="waiting">no phone holds this seat: a phone that sits in it gets the sheet</p>' : "") +
        (s.name ? '<div class="sheet small">' + (svgs[k] || "") + "</div>" : '<p class="waiting">waiting for a player to sit down</p>') +
        (room.mode === "mission" && s.taken && hasSplit() ? '<button type="button" class="path-btn" data-seat="' + k + '">' +
          (pathsShown[k] ? "Hide path" : "Show path") + "</button>" : "") + "</section>";
    });
    box.innerHTML = html;
  }

  // whether the mission has cell objectives to split (and so crossing paths to show)
  function hasSplit() {
    const st = room && room.status;
    if (st && st.team) return st.team.split.has_cells !== false;
    return !(st && st.objectives && st.objectives.length && st.objectives.every((o) => o.kind === "score" || o.kind === "jokers_left"));
  }

  // --- a sheet no legal game gives: the warning on that sheet, its cells marked (docs/rooms.md, A mis-tap)
  function warningOf(k) {
    const st = room.status || {};
    return (st.impossible || []).find((w) => w.seat === k) || null;
  }

  function sheetSvgOf(k) {
    const host = me && Number(k) === me.seat ? $("mine") : document.querySelector('.other[data-seat="' + k + '"] .sheet');
    return host && host.querySelector("svg");
  }

  // a red ring drawn over the cell, above its neighbours
  function badMark(rect) {
    const mark = document.createElementNS("http://www.w3.org/2000/svg", "rect");
    for (const a of ["x", "y", "width", "height"]) mark.setAttribute(a, rect.getAttribute(a));
    mark.setAttribute("class", "bad-mark");
    mark.setAttribute("pointer-events", "none");
    return mark;
  }

  function renderWarnings() {
    document.querySelectorAll("rect.bad").forEach((el) => el.classList.remove("bad"));
    document.querySelectorAll(".bad-mark").forEach((el) => el.remove());
    room.seats.forEach((s, k) => {
      const w = warningOf(k);
      const mine = me && k === me.seat && s.taken;
      const box = mine ? $("mine-warning") : document.querySelector('.sheet-warning[data-seat="' + k + '"]');
      const card = mine ? $("mine-box") : document.querySelector('.other[data-seat="' + k + '"]');
      if (card) card.classList.toggle("impossible", !!w);
      if (!box) return;
      box.hidden = !w;
      if (!w) { box.innerHTML = ""; return; }
      box.innerHTML = "<p>" + esc((mine ? "Your sheet" : w.name + "'s sheet") + " cannot come from a legal game: " +
        w.problems.join("; ") + ".") + "</p>" + (room.mode !== "mission" ? "" : '<p class="fine">' + esc(w.left_out ?
        "The team status leaves it out for now." : "The team status counts it without " + w.cells.join(", ") + ".") + "</p>") +
        (mine ? '<button type="button" class="undo-tap primary">Undo my last tap</button>' : "");
      const svg = sheetSvgOf(k);
      for (const cell of w.cells) {
        const rect = svg && svg.querySelector('rect[data-cell="' + cell + '"]');
        if (rect) { rect.classList.add("bad"); svg.appendChild(badMark(rect)); }
      }
    });
  }

  function renderStatus() {
    const st = room.status;
    const box = $("status");
    if (!st) { box.innerHTML = ""; return; }
    if (st.mode === "competitive") { box.innerHTML = competitiveHtml(st); return; }
    let html = "";
    const stateText = { "won": "Won!", "lost": "Lost", "in progress": "In progress" };
    html += '<p class="state state-' + String(st.state).replace(" ", "-") + '" id="mission-state">' +
      esc(stateText[st.state] || st.state) + " · " + st.rolls_used + " of " + st.budget +
      " rolls used, " + st.rolls_left + " left</p>";
    html += countedNotes(st);
    const team = st.team;
    if (st.lost_reasons && st.lost_reasons.length) {
      html += '<p class="flag lost" id="lost-reasons">' + st.lost_reasons.map(esc).join("<br>") + "</p>";
    }
    html += '<ul class="objectives">';
    for (const o of st.objectives || []) {
      html += '<li class="' + (o.met ? "met" : "open") + '"><span class="mark">' + (o.met ? "✓" : "○") + "</span> " +
        esc(o.description) + ' <span class="progress">' + (o.kind === "score" ? "now " + o.progress + " points, " + o.total +
        " needed" : o.progress + " of " + o.total) + "</span>" +
        (o.missing && o.missing.length ? '<div class="missing">missing: ' + esc(o.missing.join(", ")) + "</div>" : "") + "</li>";
    }
    html += "</ul>";
    if (team) html += adviceHtml(st, team);
    else if (!st.complete) html += '<p class="fine" id="computing">working out who should do what…</p>';
    box.innerHTML = html;
  }

  // who should do what, as a player says it (advice.py); the split's technical words stay in the API
  function adviceHtml(st, team) {
    const split = team.split;
    let html = "<h3>Who should do what</h3>";
    if (hasSplit()) {
      html += '<p class="split-total" id="split-total">' + (split.rolls_upper === 0 ? "Nothing left to do." :
        "The team needs " + (split.exact ? "about " + split.rolls_upper : split.rolls_lower + " to " + split.rolls_upper) +
        " more rolls; the slowest player decides.") + "</p>";
    } else {
      for (const b of team.score_bounds || []) {
        html += '<p class="split-total score-bound" id="split-total">Every column, colour and star counts: the team can ' +
          "still reach at most " + b.best_reachable + " points (" + b.target + " needed).</p>";
      }
    }
    html += '<ul class="advice">' + (st.advice || []).map((a) => '<li data-seat="' + a.seat + '">' + esc(a.text) +
      "</li>").join("") + "</ul>";
    return html;
  }

  // what the status counted of a sheet no legal game gives ("Ben's sheet is counted without A1: ...")
  function countedNotes(st) {
    return (st.impossible || []).map((w) => '<p class="note counted-note" data-seat="' + w.seat + '">' +
      esc(w.warning) + "</p>").join("");
  }

  function competitiveHtml(st) {
    let html = st.end ? '<div class="end" id="end"><p><strong>' + esc(st.end.text) + "</strong></p>" + (st.end.final ?
      '<p class="fine">' + esc(st.end.record_note) + ' <a href="' + api + '/export">Download the final sheets</a></p>' : "") +
      "</div>" : "";
    html += '<table class="scores"><thead><tr><th>player</th><th>score</th></tr></thead><tbody>';
    for (const s of st.scores) html += "<tr><td>" + esc(s.name) + "</td><td>" + s.score + "</td></tr>";
    html += "</tbody></table>";
    html += countedNotes(st);
    const rows = [];
    for (const what of ["columns", "colours"]) {
      for (const [item, r] of Object.entries(st.race[what])) {
        const when = (ks) => ks.map((k) => esc(st.scores[k].name) + ((r.rolls || {})[String(k)] ? " (roll " + r.rolls[String(k)] + ")" : "")).join(", ");
        rows.push("<tr><td>" + esc(itemLabel(item)) + "</td><td>" + when(r.first) + "</td><td>" + when(r.later) + "</td></tr>");
      }
    }
    html += "<h3>The race</h3>" + (rows.length ? '<table class="race"><thead><tr><th></th><th>first</th><th>later</th></tr></thead><tbody>' +
      rows.join("") + "</tbody></table>" : "<p>Nobody has completed a column or colour yet.</p>");
    for (const p of st.race_problems || []) html += '<p class="flag">' + esc(p) + "</p>";
    return html;
  }

  // the crossing path of a seat (from the split), numbered on its sheet
  function renderPaths() {
    root.dispatchEvent(new CustomEvent("room-drawn", { detail: room }));  // the sheets are drawn: rooms_dice.js marks its cells
    const team = room && room.status && room.status.team;
    document.querySelectorAll(".path-mark").forEach((el) => el.remove());
    if (!team) return;
    for (const [k, on] of Object.entries(pathsShown)) {
      if (!on) continue;
      const cells = team.split.sheets[k] ? team.split.sheets[k].crosses.cells : [];
      const svg = sheetSvgOf(k);
      if (!svg) continue;
      cells.forEach((cell, i) => {
        const rect = svg.querySelector('rect[data-cell="' + cell + '"]');
        if (!rect) return;
        const x = Number(rect.getAttribute("x")) + Number(rect.getAttribute("width")) / 2;
        const y = Number(rect.getAttribute("y")) + Number(rect.getAttribute("height")) / 2;
        const g = document.createElementNS("http://www.w3.org/2000/svg", "g");
        g.setAttribute("class", "path-mark");
        g.setAttribute("pointer-events", "none");
        g.innerHTML = '<circle cx="' + x + '" cy="' + y + '" r="9" fill="#fff" stroke="#111" stroke-width="1.5"/>' +
          '<text x="' + x + '" y="' + (y + 4) + '" text-anchor="middle" font-size="11" font-weight="bold">' + (i + 1) + "</text>";
        svg.appendChild(g);
      });
    }
  }

  // --- editing ---------------------------------------------------------------------------------
  function currentSheet() {
    const s = room.seats[me.seat];
    // no later_columns / later_colours: the room derives them from the race (renderClaims sets them by hand)
    return { cells: s.cells.slice(), jokers_used: s.jokers_used };
  }

  function sendSheet(change) {
    // taps go one after another, each an edit relative to the sheet ("cross H4"), with the sheet
    // version it was made on: the server applies it to the sheet as it is, so another phone's
    // taps on other cells are kept (docs/rooms.md, two phones on one seat)
    sending = sending.then(async () => {
      const body = change(currentSheet());
      body.version = room.seats[me.seat].sheet_version;
      // offline, the tap waits on the phone and is sent when the connection is back (rooms_offline.js)
      const res = await NM.roomTaps.send(api + "/seats/" + me.seat + "/sheet", { method: "PATCH", headers: authHeaders(), body: JSON.stringify(body) });
      if (!res) return;
      const data = await res.json().catch(() => ({}));
      $("edit-error").textContent = "";
      if (res.ok) {
        if (data.version > room.version) {
          room.seats[me.seat] = data.seat;
          room.status = data.status;
          // the stream brings the drawn sheet; fetch it if the stream is slow
          setTimeout(async () => {
            if (room.version < data.version) {
              svgs[me.seat] = (await (await fetch(api + "/seats/" + me.seat + "/sheet.svg")).text()).replace(/^<\?xml[^>]*>\s*/, "");
              renderAll();
            }
          }, 1000);
        }
      } else if (res.status === 409) {
        $("edit-error").textContent = data.error;
        await refresh();
      } else if (res.status === 401 || res.status === 403) {
        // (the edit box is hidden once the seat is gone: say it where it stays visible)
        const why = data.error || "this phone no longer holds the seat";
        seatNote = why.charAt(0).toUpperCase() + why.slice(1) + ".";
        saveSeat(null);
        renderAll();
      } else {
        $("edit-error").textContent = data.error || ("edit refused (" + res.status + ")");
      }
    });
    return sending;
  }

  async function refresh() {
    const res = await fetch(api);
    if (!res.ok) return;
    room = await res.json();
    for (let k = 0; k < room.players; k++) {
      svgs[k] = (await (await fetch(api + "/seats/" + k + "/sheet.svg")).text()).replace(/^<\?xml[^>]*>\s*/, "");
    }
    renderAll();
  }

  $("mine").addEventListener("click", (ev) => {
    const rect = ev.target.closest("rect[data-cell]");
    if (!rect || !me) return;
    const cell = rect.dataset.cell;
    rect.classList.add("pending");
    $("undo-note").textContent = "";  // (an undo's note holds until the next tap)
    // the roll in play as the player tapped: a win by a late cross is that roll's (docs/rooms.md, the win)
    const roll = room.in_play && room.in_play.roll;
    // the direction is read when the tap is sent, after the taps before it are answered
    sendSheet((s) => Object.assign(s.cells.includes(cell) ? { uncross: [cell] } : { cross: [cell] }, roll ? { roll } : {}));
  });
  $("mine-warning").addEventListener("click", async (ev) => {
    if (!ev.target.closest(".undo-tap") || !me) return;
    await sending;  // after the taps already on their way
    const res = await fetch(api + "/seats/" + me.seat + "/undo", { method: "POST", headers: authHeaders(),
      body: JSON.stringify({ version: room.seats[me.seat].sheet_version }) });
    const data = await res.json().catch(() => ({}));
    $("edit-error").textContent = res.ok ? "" : (data.error || "undo refused (" + res.status + ")");
    $("undo-note").textContent = res.ok ? "Undone: " + data.undone : "";
    if (res.ok && data.version > room.version) { room.seats[me.seat] = data.seat; room.status = data.status; }
    if (!res.ok) await refresh();
  });
  $("joker-plus").addEventListener("click", () => sendSheet(() => ({ jokers: 1 })));
  $("joker-minus").addEventListener("click", () => sendSheet(() => ({ jokers: -1 })));
  $("claims").addEventListener("change", async (ev) => {
    const sel = ev.target.closest("select[data-item]");
    if (!sel || !me) return;
    const res = await fetch(api + "/seats/" + me.seat + "/race", { method: "PUT", headers: authHeaders(),
      body: JSON.stringify({ item: sel.dataset.item, value: sel.value }) });
    const data = await res.json().catch(() => ({}));
    $("edit-error").textContent = res.ok ? "" : (data.error || "refused (" + res.status + ")");
    if (res.ok && data.version > room.version) { room.seats[me.seat] = data.seat; room.status = data.status; renderAll(); }
  });

  $("rolls-plus").addEventListener("click", () => stepRoll(false));
  $("rolls-minus").addEventListener("click", () => stepRoll(true));
  $("reopen").addEventListener("click", async () => {
    if (!room.won_on || !confirm("Reopen the game? The room forgets that it was won on roll " + room.won_on + ".")) return;
    const res = await fetch(api + "/reopen", { method: "POST", headers: authHeaders(), body: JSON.stringify({ won_on: room.won_on }) });
    const data = await res.json().catch(() => ({}));
    if (!res.ok) { rollNote(data.error || "refused", null); await refresh(); return; }
    if (data.version > room.version) { room.version = data.version; room.won_on = data.won_on; renderAll(); }
  });

  $("path-mine").addEventListener("click", () => { pathsShown[me.seat] = !pathsShown[me.seat]; renderMine(); renderPaths(); });
  $("others").addEventListener("click", (ev) => {
    const btn = ev.target.closest(".path-btn");
    if (!btn) return;
    const k = btn.dataset.seat;
    pathsShown[k] = !pathsShown[k];
    renderOthers(); renderPaths();
  });

  $("handover").addEventListener("click", async () => {
    const res = await fetch(api + "/seats/" + me.seat + "/handover", { method: "POST", headers: authHeaders() });
    const data = await res.json().catch(() => ({}));
    const box = $("handover-link");
    box.hidden = false;
    box.innerHTML = res.ok ? linkBox(data, "Scan this on the other phone, or send it the link (it works once; this " +
      "phone then loses the seat):") : '<p class="error">' + esc(data.error || "refused") + "</p>";
  });

  $("rename").addEventListener("click", () => {
    $("rename-form").hidden = false;
    $("rename-name").value = room.seats[me.seat].name;
    $("rename-name").focus();
  });
  $("rename-cancel").addEventListener("click", () => { $("rename-form").hidden = true; });
  $("rename-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const res = await fetch(api + "/seats/" + me.seat + "/name", { method: "PUT", headers: authHeaders(),
      body: JSON.stringify({ name: $("rename-name").value }) });
    const data = await res.json().catch(() => ({}));
    $("edit-error").textContent = res.ok ? "" : (data.error || "rename refused (" + res.status + ")");
    if (res.ok) { $("rename-form").hidden = true; await refresh(); }
  });

  $("share-toggle").addEventListener("click", () => {
    const box = $("share-box");
    box.hidden = !box.hidden;
    $("share-toggle").setAttribute("aria-expanded", String(!box.hidden));
    if (!box.hidden) $("share-qr").src = api + "/qr.svg";
  });

  $("seat-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const picked = $("seat-pick").querySelector("input:checked");
    const body = { name: $("seat-name").value };
    if (picked) body.seat = Number(picked.value);
    const headers = { "Content-Type": "application/json" };
    if (creatorToken()) headers.Authorization = "Bearer " + creatorToken();  // the room learns its creator's seat
    const res = await fetch(api + "/seats", { method: "POST", headers, body: JSON.stringify(body) });
    const data = await res.json().catch(() => ({}));
    if (res.status !== 201) { $("join-error").textContent = data.error || "could not take a seat"; await refresh(); return; }
    saveSeat({ seat: data.seat, token: data.seat_token });
    $("join-error").textContent = "";
    await refresh();
  });

  claimFromHash().then(connect);
})();
