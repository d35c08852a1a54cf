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
  // a sentence the server sent as data beside its English (``key`` and ``key_said``, or the name
  // given): said in this page's language (common.js NM.said, nochmal/web/rooms/words.py)
  function said(doc, key, saidKey) {
    const data = doc[saidKey || key + "_said"];
    return data ? NM.said(data) : (doc[key] || "");
  }
  // a seat's name as the room shows it: its player's, or a free seat's label in this page's words
  function seatName(k, name) {
    const s = room.seats[k];
    return s && !s.taken && !s.name ? t("seat %(n)s (free)", { n: k + 1 }) : name;
  }
  function difficultyWord(d) { return { easy: t("easy"), normal: t("normal"), hard: t("hard") }[d] || d; }

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
    else seatNote = data.error || t("This hand-over link did not work; ask for a new one.");
  }

  // --- live stream -------------------------------------------------------------------------
  function connect() {
    const es = new EventSource(api + "/events");
    es.addEventListener("open", () => { $("live").textContent = t("live"); $("live").className = "live on"; });
    es.addEventListener("error", () => {
      $("live").textContent = t("reconnecting…"); $("live").className = "live off";
      if (!room) showLast();  // offline (a reload from the service worker): the room as this phone last saw it
      // a refused stream (e.g. 429: too many open from this address) is not retried by the browser:
      // show the room as it stands and try the stream again a little later
      if (es.readyState === EventSource.CLOSED) { if (!room) refresh(); setTimeout(connect, 3000); }
    });
    es.addEventListener("sync", (e) => {
      const doc = JSON.parse(e.data);
      // a snapshot read before this page's own later answer (a seat taken, a GET) arrives late
      // on a busy server: the page keeps what it has; the events after the snapshot follow
      if (room && doc.version < room.version) return;
      svgs = doc.svgs || {};
      delete doc.svgs;
      room = doc;
      stale = 0;
      if (me && (me.claimed || 0) <= room.version && !(room.seats[me.seat] && room.seats[me.seat].taken)) saveSeat(null);
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
      rollNote(said(d, "message"), d.rolls_used);  // "Anna counted roll 5", on every phone, each in its language
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
      const name = room.seats[d.seat] ? room.seats[d.seat].name : t("seat %(n)s", { n: d.seat + 1 });
      seatNote = t("Your seat (%(name)s) was handed over to another browser; this one no longer holds it.", { name });
      saveSeat(null);
      renderAll();
    });
    es.addEventListener("seat", (e) => {  // the creator freed a seat or made a new link for it
      const d = JSON.parse(e.data);
      if (!room) return;
      if (!me || me.seat !== d.seat || (me.claimed || 0) >= d.version) return;
      seatNote = said(d, "text", "said");
      saveSeat(null);
      refresh();
    });
    es.addEventListener("resync", () => { es.close(); connect(); });
  }

  // --- rendering -----------------------------------------------------------------------------
  function renderAll() {
    if (!room) return;
    const mission = room.mode === "mission";
    $("room-title").textContent = mission ? ((room.mission_names || {})[NM.lang] || room.mission_name) : t("Competitive game");
    $("status-title").textContent = mission ? t("Team") : t("Scores");
    const players = ngettext("%(n)s player", "%(n)s players", room.players);
    const board = (room.board_labels || {})[NM.lang] || room.board;
    $("room-sub").textContent = mission ? [difficultyWord(room.difficulty), players, board].join(" · ")
      : [board, players].join(" · ");
    $("share-link").href = room.url; $("share-link").textContent = room.url;
    // a loopback link cannot be opened by another phone: say how to get one that can
    $("share-local").hidden = !/^https?:\/\/(localhost|127\.[0-9.]+|\[::1\])(:|\/)/.test(room.url);
    const seated = me && room.seats[me.seat] && room.seats[me.seat].taken;
    const free = room.seats.some((s) => !s.taken);
    $("join-box").hidden = seated;
    $("seat-form").hidden = !free;
    if (seated) seatNote = "";
    if (!seated && (seatNote || !free)) {
      $("join-error").textContent = [seatNote, free ? "" : t("Every seat is taken; a player can hand a seat over to " +
        "you, or the room's creator can free one.")].filter(Boolean).join(" ");
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
    renderStale();
  }

  // --- the last state on the phone (docs/rooms.md, Offline): a reload without the network draws
  // the room as this phone last saw it, marked as not live, until the stream brings the room again
  const lastKey = "nochmal-room-last-" + code;
  let stale = 0;        // when the room drawn was kept (ms), while it is not live; 0: live
  let keeping = null;
  function renderStale() {
    $("stale-note").hidden = !stale;
    root.classList.toggle("stale", !!stale);
    if (stale) {
      $("stale-note").textContent = t("Not live: the room as this phone last saw it at %(time)s.",
        { time: new Date(stale).toLocaleTimeString(NM.lang, { hour: "2-digit", minute: "2-digit" }) });
      return;
    }
    if (!keeping) keeping = setTimeout(() => {  // (once for a burst of events)
      keeping = null;
      try { localStorage.setItem(lastKey, JSON.stringify({ at: Date.now(), room, svgs })); } catch (e) { /* full, private */ }
    }, 500);
  }
  function showLast() {
    let kept = null;
    try { kept = JSON.parse(localStorage.getItem(lastKey)); } catch (e) { kept = null; }
    if (!kept || !kept.room) return;
    room = kept.room; svgs = kept.svgs || {}; stale = kept.at || 1;
    renderAll();
  }

  // --- seats: pick one, the creator frees one or makes a new link (docs/rooms.md, seats) --------
  function seatWords(s, k) {
    const crosses = s.cells.length;
    return t("Seat %(n)s", { n: k + 1 }) + " — " + (s.name ? ngettext("%(name)s's sheet (%(n)s crossed), no phone holds it",
      "%(name)s's sheet (%(n)s crossed), no phone holds it", crosses, { name: s.name }) : t("empty"));
  }

  function renderSeatPick() {
    const box = $("seat-pick");
    const picked = box.querySelector("input:checked");
    const keep = picked ? Number(picked.value) : null;
    const free = room.seats.map((s, k) => [s, k]).filter(([s]) => !s.taken);
    let html = "<legend>" + esc(t("Your seat")) + "</legend>";
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
      ? t("You made this room: for a lost phone, make a new link for its seat (the old phone stops at once), or free the seat so that any phone can sit in it; its sheet stays.")
      : t("This room was made before rooms had a creator: any seated phone may make a new link for a seat or free it.");
    const open = {};
    $("keeper-seats").querySelectorAll(".link-box[data-seat]").forEach((el) => { open[el.dataset.seat] = el.outerHTML; });
    $("keeper-seats").innerHTML = room.seats.map((s, k) => '<li data-seat="' + k + '"><span>' + esc(t("Seat %(n)s", { n: k + 1 }) + " — " +
      (s.taken ? s.name : s.name ? t("%(name)s (free)", { name: s.name }) : t("free"))) + "</span>" + (s.taken ? ' <button type="button" class="reissue" data-seat="' +
      k + '">' + esc(t("New link")) + '</button> <button type="button" class="free-seat" data-seat="' + k + '">' + esc(t("Free")) + "</button>" : "") +
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
      if (!confirm(t("Free %(name)s's seat? The phone holding it stops; the sheet stays for whoever sits in seat %(n)s.", { name, n: k + 1 }))) return;
      const res = await fetch(api + "/seats/" + k, { method: "DELETE", headers });
      const data = await res.json().catch(() => ({}));
      $("keeper-note").textContent = res.ok ? t("%(name)s's seat is free: any phone can sit in it and gets the sheet.", { name }) : data.error;
      await refresh();
      return;
    }
    const res = await fetch(api + "/seats/" + k + "/handover", { method: "POST", headers });
    const data = await res.json().catch(() => ({}));
    row.querySelectorAll(".link-box").forEach((el) => el.remove());
    row.insertAdjacentHTML("beforeend", res.ok ? linkBox(data, t("Open on %(name)s's new phone (works once):", { name })) :
      '<p class="error">' + esc(data.error || t("refused")) + "</p>");
  });

  // a hand-over link: its QR code, the phone's share sheet (or copy), and the link itself
  function linkBox(data, intro) {
    const how = navigator.share ? t("Share…") : t("Copy link");
    return '<div class="link-box" data-seat="' + data.seat + '"><p>' + esc(intro) + '</p><div class="qr">' + data.qr_svg +
      '</div><p><button type="button" class="share-link" data-url="' + esc(data.url) + '">' + esc(how) + "</button> " +
      '<span class="copied fine" aria-live="polite"></span></p><p class="fine"><a href="' + esc(data.url) + '">' + esc(data.url) + "</a></p></div>";
  }

  document.addEventListener("click", async (ev) => {
    const btn = ev.target.closest("button.share-link");
    if (!btn) return;
    const url = btn.dataset.url;
    const said = btn.parentElement.querySelector(".copied");
    if (navigator.share) {
      try { await navigator.share({ title: t("Your seat in room %(code)s", { code }), url }); } catch (e) { /* the player closed the sheet */ }
      return;
    }
    try {
      await navigator.clipboard.writeText(url);
      said.textContent = t("Copied: paste it into a message to the other phone.");
    } catch (e) {
      said.textContent = t("Press and hold the link below to copy it.");
    }
  });

  function renderMine() {
    const seat = room.seats[me.seat];
    $("mine-title").textContent = t("Your sheet — %(name)s", { name: seat.name });
    $("mine").innerHTML = svgs[me.seat] || "";
    $("mine").querySelector("svg") && $("mine").querySelector("svg").setAttribute("data-seat-sheet", me.seat);
    NM.sheetKeys($("mine"));  // Tab, arrows and Space on the sheet (nochmal/web/static/common.js)
    NM.keyCells($("mine"));
    $("jokers-used").textContent = seat.jokers_used;
    $("path-mine").hidden = room.mode !== "mission" || !hasSplit();
    $("path-mine").textContent = pathsShown[me.seat] ? t("Hide my path") : t("Show my path");
    renderClaims(seat);
  }

  // --- the rolls: whose roll it is, counted by number (docs/rooms.md, the rolls) ----------------
  function renderRolls(seated) {
    const play = room.in_play || {};
    const mission = room.mode === "mission";
    $("in-play").textContent = room.won_on ? t("The mission is won: no roll left to count") :
      play.roll ? t("Roll %(roll)s — %(name)s rolls", { roll: play.roll, name: NM.said(play.name_said || play.name) }) :
      mission ? ngettext("All %(n)s rolls are used", "All %(n)s rolls are used", room.budget) : t("The game is over");
    $("rolls-used").textContent = room.rolls_used;
    if (noteRolls !== null && noteRolls !== room.rolls_used) rollNote("", null);
    $("rolls-left").textContent = mission ? t("of %(budget)s · %(left)s left", { budget: room.budget,
      left: Math.max(0, room.budget - room.rolls_used) }) : "";
    // a phone without a seat counts nothing; a won mission has no roll left to count (docs/rooms.md, the win)
    $("rolls-plus").hidden = !seated || !play.roll || !!room.won_on;
    $("rolls-plus").textContent = t("Roll %(roll)s done", { roll: play.roll });
    const last = play.last;
    $("rolls-minus").hidden = !seated || !last;
    $("rolls-minus").textContent = !last ? t("Undo") : last.counted_by
      ? t("Undo roll %(roll)s (counted by %(name)s)", { roll: last.roll, name: last.counted_by }) : t("Undo roll %(roll)s", { roll: last.roll });
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
      rollNote(res.ok ? said(data, "message") : (data.error || t("refused (%(status)s)", { status: res.status })), res.ok ? data.rolls_used : null);
      if (res.ok) applyRolls(data); else if (res.status === 409) await refresh();
    }).catch(() => {
      // the request never reached the room (no connection): nothing was counted; the queue stays
      // usable, so the next press tries again
      rollNote(undo ? t("Not undone: no connection. Tap again when the phone is back online.")
                    : t("Not counted: no connection. Tap again when the phone is back online."));
    });
    return rolling;
  }

  // --- the win and the end: a banner on top of every phone (docs/rooms.md, the win) -----------
  function renderBanner(seated) {
    const end = room.mode === "competitive" && room.status && room.status.end;
    const text = room.won_on ? t("Won on roll %(roll)s!", { roll: room.won_on }) : end ? said(end, "title") : "";
    $("banner").hidden = !text;
    $("banner").className = "banner" + (end && !end.final ? " last" : "");
    $("banner-text").textContent = text;
    $("reopen").hidden = !(room.won_on && seated);
  }

  // --- the race: first / later from the rolls of the completions, set by hand if need be ------
  // a colour's English name (the race's key) -> its face, as the edition says it (common.js NM.colourName)
  const COLOUR_FACES = { yellow: "y", green: "g", blue: "b", red: "r", orange: "o" };
  function itemLabel(item) { return item in COLOUR_FACES ? NM.colourName(COLOUR_FACES[item]) : t("column %(letter)s", { letter: item }); }

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
  function raceText(m) {
    return itemLabel(m.item) + " " + (m.first ? t("first") : t("later")) + (m.roll ? " " + t("(roll %(roll)s)", { roll: m.roll }) : "");
  }

  function renderClaims(seat) {
    const box = $("claims");
    const marks = room.mode === "competitive" ? raceOf(me.seat) : [];
    box.hidden = !marks.length;
    if (!marks.length) { box.innerHTML = ""; return; }
    let html = "<p>" + esc(t("First or later follows from the roll each sheet completed it on; set it by hand if the room got it wrong.")) + "</p>";
    for (const m of marks) {
      const opt = (value, label) => '<option value="' + value + '"' + ((m.byHand || "auto") === value ? " selected" : "") + ">" + esc(label) + "</option>";
      html += '<label class="claim" data-item="' + esc(m.item) + '"><span>' + esc(raceText(m)) + '</span><select data-item="' +
        esc(m.item) + '" aria-label="' + esc(t("%(item)s first or later", { item: itemLabel(m.item) })) + '">' + opt("auto", t("as the rolls say")) +
        opt("first", t("first")) + opt("later", t("later")) + "</select></label>";
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
        esc(s.name || t("seat %(n)s (free)", { n: k + 1 })) + ' <span class="score">' + esc(ngettext("%(n)s pt", "%(n)s pts", s.score)) + "</span></h3>" +
        '<div class="sheet-warning" data-seat="' + k + '" hidden></div>' +
        // a freed seat keeps its sheet on the table until a phone sits in it (docs/rooms.md, seats)
        (s.name && !s.taken ? '<p class="waiting">' + esc(t("no phone holds this seat: a phone that sits in it gets the sheet")) + "</p>" : "") +
        (s.name ? '<div class="sheet small">' + (svgs[k] || "") + "</div>" : '<p class="waiting">' + esc(t("waiting for a player to sit down")) + "</p>") +
        (room.mode === "mission" && s.taken && hasSplit() ? '<button type="button" class="path-btn" data-seat="' + k + '">' +
          esc(pathsShown[k] ? t("Hide path") : t("Show path")) + "</button>" : "") + "</section>";
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
      const problems = (w.problems_said && w.problems_said.length ? w.problems_said.map(NM.said) : w.problems).join("; ");
      box.innerHTML = "<p>" + esc(mine ? t("Your sheet cannot come from a legal game: %(problems)s.", { problems })
        : t("%(name)s's sheet cannot come from a legal game: %(problems)s.", { name: w.name, problems })) + "</p>" +
        (room.mode !== "mission" ? "" : '<p class="fine">' + esc(w.left_out ? t("The team status leaves it out for now.")
          : t("The team status counts it without %(cells)s.", { cells: w.cells.join(", ") })) + "</p>") +
        (mine ? '<button type="button" class="undo-tap primary">' + esc(t("Undo my last tap")) + "</button>" : "");
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
    const stateText = { "won": t("Won!"), "lost": t("Lost"), "in progress": t("In progress") };
    html += '<p class="state state-' + String(st.state).replace(" ", "-") + '" id="mission-state">' +
      esc((stateText[st.state] || st.state) + " · " + ngettext("%(used)s of %(n)s roll used, %(left)s left",
        "%(used)s of %(n)s rolls used, %(left)s left", st.budget, { used: st.rolls_used, left: st.rolls_left })) + "</p>";
    html += countedNotes(st);
    const team = st.team;
    if (st.lost_reasons && st.lost_reasons.length) {
      html += '<p class="flag lost" id="lost-reasons">' + (st.lost_reasons_said || st.lost_reasons).map((r) => esc(NM.said(r))).join("<br>") + "</p>";
    }
    html += '<ul class="objectives">';
    for (const o of st.objectives || []) {
      html += '<li class="' + (o.met ? "met" : "open") + '"><span class="mark">' + (o.met ? "✓" : "○") + "</span> " +
        esc(NM.said(o.description_said || o.description)) + ' <span class="progress">' + esc(o.kind === "score"
          ? t("now %(points)s points, %(total)s needed", { points: o.progress, total: o.total })
          : t("%(done)s of %(total)s", { done: o.progress, total: o.total })) + "</span>" +
        (o.missing && o.missing.length ? '<div class="missing">' + esc(t("missing: %(items)s",
          { items: (o.missing_said || o.missing).map(NM.said).join(", ") })) + "</div>" : "") + "</li>";
    }
    html += "</ul>";
    if (team) html += adviceHtml(st, team);
    else if (!st.complete) html += '<p class="fine" id="computing">' + esc(t("working out who should do what…")) + "</p>";
    box.innerHTML = html;
  }

  // who should do what, as a player says it (advice.py); the split's technical words stay in the API
  function adviceHtml(st, team) {
    const split = team.split;
    let html = "<h3>" + esc(t("Who should do what")) + "</h3>";
    if (hasSplit()) {
      html += '<p class="split-total" id="split-total">' + esc(split.rolls_upper === 0 ? t("Nothing left to do.") : split.exact
        ? ngettext("The team needs about %(n)s more roll; the slowest player decides.",
          "The team needs about %(n)s more rolls; the slowest player decides.", split.rolls_upper)
        : ngettext("The team needs %(lower)s to %(n)s more roll; the slowest player decides.",
          "The team needs %(lower)s to %(n)s more rolls; the slowest player decides.", split.rolls_upper, { lower: split.rolls_lower })) + "</p>";
    } else {
      for (const b of team.score_bounds || []) {
        html += '<p class="split-total score-bound" id="split-total">' + esc(t("Every column, colour and star counts: the team can " +
          "still reach at most %(best)s points (%(target)s needed).", { best: b.best_reachable, target: b.target })) + "</p>";
      }
    }
    html += '<ul class="advice">' + (st.advice || []).map((a) => '<li data-seat="' + a.seat + '">' + esc(said(a, "text", "said")) +
      "</li>").join("") + "</ul>";
    return html;
  }

  // what the status counted of a sheet no legal game gives ("Ben's sheet is counted without A1: ...")
  function countedNotes(st) {
    return (st.impossible || []).map((w) => '<p class="note counted-note" data-seat="' + w.seat + '">' +
      esc(said(w, "warning")) + "</p>").join("");
  }

  function competitiveHtml(st) {
    let html = st.end ? '<div class="end" id="end"><p><strong>' + esc(said(st.end, "text")) + "</strong></p>" + (st.end.final ?
      '<p class="fine">' + esc(said(st.end, "record_note")) + ' <a href="' + api + '/export">' + esc(t("Download the final sheets")) +
      "</a></p>" : "") + "</div>" : "";
    html += '<table class="scores"><thead><tr><th>' + esc(t("player")) + "</th><th>" + esc(t("score")) + "</th></tr></thead><tbody>";
    for (const s of st.scores) html += "<tr><td>" + esc(seatName(s.seat, s.name)) + "</td><td>" + s.score + "</td></tr>";
    html += "</tbody></table>";
    html += countedNotes(st);
    const rows = [];
    for (const what of ["columns", "colours"]) {
      for (const [item, r] of Object.entries(st.race[what])) {
        const when = (ks) => ks.map((k) => esc(seatName(k, st.scores[k].name)) + ((r.rolls || {})[String(k)]
          ? " " + esc(t("(roll %(roll)s)", { roll: r.rolls[String(k)] })) : "")).join(", ");
        rows.push("<tr><td>" + esc(itemLabel(item)) + "</td><td>" + when(r.first) + "</td><td>" + when(r.later) + "</td></tr>");
      }
    }
    html += "<h3>" + esc(t("The race")) + "</h3>" + (rows.length ? '<table class="race"><thead><tr><th></th><th>' + esc(t("first")) +
      "</th><th>" + esc(t("later")) + "</th></tr></thead><tbody>" + rows.join("") + "</tbody></table>"
      : "<p>" + esc(t("Nobody has completed a column or colour yet.")) + "</p>");
    for (const p of st.race_problems_said || st.race_problems || []) html += '<p class="flag">' + esc(NM.said(p)) + "</p>";
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
        const why = data.error || t("this phone no longer holds the seat");
        seatNote = why.charAt(0).toUpperCase() + why.slice(1) + ".";
        saveSeat(null);
        renderAll();
      } else {
        $("edit-error").textContent = data.error || t("edit refused (%(status)s)", { status: res.status });
      }
    }).catch((err) => {
      // a tap that failed in this page (not refused by the server) must not stop the taps after it
      $("edit-error").textContent = t("edit refused (%(status)s)", { status: String(err) });
    });
    return sending;
  }

  async function refresh() {
    const res = await fetch(api);
    if (!res.ok) return;
    const doc = await res.json();
    if (room && doc.version < room.version) return;  // the stream brought a later state meanwhile
    room = doc;
    stale = 0;
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
    $("edit-error").textContent = res.ok ? "" : (data.error || t("undo refused (%(status)s)", { status: res.status }));
    $("undo-note").textContent = res.ok ? t("Undone: %(what)s", { what: said(data, "undone") }) : "";
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
    $("edit-error").textContent = res.ok ? "" : (data.error || t("refused (%(status)s)", { status: res.status }));
    if (res.ok && data.version > room.version) { room.seats[me.seat] = data.seat; room.status = data.status; renderAll(); }
  });

  $("rolls-plus").addEventListener("click", () => stepRoll(false));
  $("rolls-minus").addEventListener("click", () => stepRoll(true));
  $("reopen").addEventListener("click", async () => {
    if (!room.won_on || !confirm(t("Reopen the game? The room forgets that it was won on roll %(roll)s.", { roll: room.won_on }))) return;
    const res = await fetch(api + "/reopen", { method: "POST", headers: authHeaders(), body: JSON.stringify({ won_on: room.won_on }) });
    const data = await res.json().catch(() => ({}));
    if (!res.ok) { rollNote(data.error || t("refused"), null); await refresh(); return; }
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
    box.innerHTML = res.ok ? linkBox(data, t("Scan this on the other phone, or send it the link (it works once; this " +
      "phone then loses the seat):")) : '<p class="error">' + esc(data.error || t("refused")) + "</p>";
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
    $("edit-error").textContent = res.ok ? "" : (data.error || t("rename refused (%(status)s)", { status: res.status }));
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
    if (res.status !== 201) { $("join-error").textContent = data.error || t("could not take a seat"); await refresh(); return; }
    // claimed: the room version of this seat, so that a snapshot read before it does not take it away
    saveSeat({ seat: data.seat, token: data.seat_token, claimed: data.version });
    $("join-error").textContent = "";
    await refresh();
  });

  // the page's catalog first: everything it draws is in the page's language (docs/web.md "Languages")
  NM.i18nReady.then(claimFromHash).then(connect);
})();
