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
    else $("live").textContent = data.error || "the handover link did not work";
  }

  // --- live stream -------------------------------------------------------------------------
  function connect() {
    const es = new EventSource(api + "/events");
    es.addEventListener("open", () => { $("live").textContent = "live"; $("live").className = "live on"; });
    es.addEventListener("error", () => { $("live").textContent = "reconnecting…"; $("live").className = "live off"; });
    es.addEventListener("sync", (e) => {
      const doc = JSON.parse(e.data);
      svgs = doc.svgs || {};
      delete doc.svgs;
      room = doc;
      if (me && !(room.seats[me.seat] && room.seats[me.seat].taken)) saveSeat(null);
      renderAll();
    });
    es.addEventListener("sheet", (e) => {
      const d = JSON.parse(e.data);
      if (!room || d.version <= room.version) return;
      room.version = d.version;
      room.seats[d.seat] = d.sheet;
      Object.assign(svgs, d.svgs || {});
      if (d.status) room.status = d.status;
      renderAll();
    });
    es.addEventListener("rolls", (e) => {
      const d = JSON.parse(e.data);
      if (!room || d.version <= room.version) return;
      room.version = d.version;
      room.rolls_used = d.rolls_used;
      room.status = d.status;
      renderAll();
    });
    es.addEventListener("status", (e) => {
      const d = JSON.parse(e.data);
      if (!room || d.version < room.version) return;  // a status of an older state: a newer one follows
      const had = hasSplit();
      room.status = d.status;
      if (had !== hasSplit()) { renderAll(); return; }  // (the path buttons come or go)
      renderStatus();
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
    $("rolls-used").textContent = room.rolls_used;
    $("rolls-left").textContent = mission ? "of " + room.budget + " · " + Math.max(0, room.budget - room.rolls_used) + " left" : "";
    const seated = me && room.seats[me.seat] && room.seats[me.seat].taken;
    const free = room.seats.some((s) => !s.taken);
    $("join-box").hidden = seated;
    $("seat-form").hidden = !free;
    if (seated) seatNote = "";
    if (!seated && (seatNote || !free)) {
      $("join-error").textContent = [seatNote, free ? "" : "Every seat is taken; a player can hand a seat over to you."]
        .filter(Boolean).join(" ");
    }
    $("mine-box").hidden = !seated;
    $("rolls-minus").disabled = $("rolls-plus").disabled = !seated;
    if (seated) renderMine();
    renderOthers();
    renderStatus();
    renderPaths();
  }

  function renderMine() {
    const seat = room.seats[me.seat];
    $("mine-title").textContent = "Your sheet — " + seat.name;
    $("mine").innerHTML = svgs[me.seat] || "";
    $("mine").querySelector("svg") && $("mine").querySelector("svg").setAttribute("data-seat-sheet", me.seat);
    $("jokers-used").textContent = seat.jokers_used;
    $("path-mine").hidden = room.mode !== "mission" || !hasSplit();
    $("path-mine").textContent = pathsShown[me.seat] ? "Hide my path" : "Show my path";
    renderClaims(seat);
  }

  function renderClaims(seat) {
    const box = $("claims");
    if (room.mode !== "competitive") { box.hidden = true; return; }
    const done = completeItems(seat);
    if (!done.columns.length && !done.colours.length) { box.hidden = true; return; }
    box.hidden = false;
    const names = { y: "yellow", g: "green", b: "blue", r: "red", o: "orange" };
    let html = "<p>Scored first or later? (Later when somebody completed it before you.)</p>";
    for (const c of done.columns) html += claimRow("later_columns", c, "column " + c, seat.later_columns.includes(c));
    for (const c of done.colours) html += claimRow("later_colours", c, names[c], seat.later_colours.includes(c));
    box.innerHTML = html;
  }
  function claimRow(field, item, label, later) {
    return '<label class="claim"><span>' + esc(label) + '</span><select data-field="' + field + '" data-item="' + item + '">' +
      '<option value="first"' + (later ? "" : " selected") + '>first</option><option value="later"' + (later ? " selected" : "") +
      '>later</option></select></label>';
  }
  function completeItems(seat) {
    const svg = document.createElement("div");
    svg.innerHTML = svgs[me.seat] || "";
    const cells = Array.from(svg.querySelectorAll("rect[data-cell]"));
    const byCol = {}, byColour = {};
    for (const r of cells) {
      const col = r.dataset.cell.replace(/[0-9]+/, ""), colour = r.dataset.colour, crossed = r.dataset.crossed === "1";
      byCol[col] = (byCol[col] === undefined ? true : byCol[col]) && crossed;
      byColour[colour] = (byColour[colour] === undefined ? true : byColour[colour]) && crossed;
    }
    return { columns: Object.keys(byCol).filter((k) => byCol[k]).sort(), colours: "ygbro".split("").filter((k) => byColour[k]) };
  }

  function renderOthers() {
    const box = $("others");
    let html = "";
    room.seats.forEach((s, k) => {
      if (me && k === me.seat && s.taken) return;
      const bad = impossibleOf(k);
      html += '<section class="card other' + (bad ? " impossible" : "") + '" data-seat="' + k + '"><h3>' +
        esc(s.taken ? s.name : "seat " + (k + 1) + " (free)") + ' <span class="score">' + s.score + ' pts</span></h3>' +
        (bad ? '<p class="flag">Impossible sheet: ' + esc(bad.join("; ")) + "</p>" : "") +
        (s.taken ? '<div class="sheet small">' + (svgs[k] || "") + "</div>" : '<p class="waiting">waiting for a player to sit down</p>') +
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

  function impossibleOf(k) {
    const st = room.status || {};
    const hit = (st.impossible || []).find((i) => i.sheet === k + 1);
    return hit ? hit.reasons : null;
  }

  function renderStatus() {
    const st = room.status;
    const box = $("status");
    if (!st) { box.innerHTML = ""; return; }
    if (st.mode === "competitive") { box.innerHTML = competitiveHtml(st); return; }
    let html = "";
    const stateText = { "won": "Won!", "lost": "Lost", "in progress": "In progress" };
    html += '<p class="state state-' + String(st.state).replace(" ", "-") + '" id="mission-state">' +
      esc(st.state ? stateText[st.state] : "A sheet is impossible") + " · " + st.rolls_used + " of " + st.budget +
      " rolls used, " + st.rolls_left + " left</p>";
    for (const bad of st.impossible || []) {
      html += '<p class="flag impossible-flag" data-sheet="' + bad.sheet + '">' + esc(bad.file) +
        "'s sheet cannot come from a legal game: " + esc(bad.reasons.join("; ")) + "</p>";
    }
    const team = st.team;
    if (st.lost_reasons && st.lost_reasons.length) {
      html += '<p class="flag lost" id="lost-reasons">' + st.lost_reasons.map(esc).join("<br>") + "</p>";
    }
    html += '<ul class="objectives">';
    for (const o of st.objectives || []) {
      html += '<li class="' + (o.met ? "met" : "open") + '"><span class="mark">' + (o.met ? "✓" : "○") + "</span> " +
        esc(o.description) + ' <span class="progress">' + o.progress + " of " + o.total + "</span>" +
        (o.missing && o.missing.length ? '<div class="missing">missing: ' + esc(o.missing.join(", ")) + "</div>" : "") + "</li>";
    }
    html += "</ul>";
    if (team && !hasSplit()) {
      // a score (or jokers) target only: nothing to split, the score bound is the figure
      html += '<h3>Who should do what</h3><p class="split-total" id="split-total">This mission has no cells to split' +
        (team.score_bounds && team.score_bounds.length ? ": what counts is the best score still reachable." : ".") + "</p>";
      for (const b of team.score_bounds || []) {
        html += '<p class="score-bound">' + esc(b.description) + ": at most " + b.best_reachable + " still reachable (needs " +
          b.target + ")</p>";
      }
    } else if (team) {
      const split = team.split;
      html += '<h3>Who should do what</h3><p class="split-total" id="split-total">' +
        (split.exact ? split.rolls_upper + " roll(s) at best" : split.rolls_lower + "–" + split.rolls_upper + " rolls (bounds)") +
        ' <span class="fine">(' + esc(split.method) + ")</span></p><table class=\"split\"><tbody>";
      split.sheets.forEach((s, k) => {
        const name = st.sheets[k];
        html += "<tr><th>" + esc(name) + "</th><td>" + (s.items.length ? esc(s.items.join(", ")) : "nothing needed") +
          "</td><td>" + (s.items.length ? (s.crosses.exact ? s.crosses.upper : s.crosses.lower + "–" + s.crosses.upper) +
          " crosses · " + s.rolls + " roll(s)" : "") + "</td></tr>";
      });
      html += "</tbody></table>";
      for (const b of team.score_bounds || []) {
        html += "<p>" + esc(b.description) + ": at most " + b.best_reachable + " still reachable (needs " + b.target + ")</p>";
      }
    } else if (!st.complete && !(st.impossible || []).length) {
      html += '<p class="fine" id="computing">working out who should do what…</p>';
    }
    box.innerHTML = html;
  }

  function competitiveHtml(st) {
    let html = '<table class="scores"><thead><tr><th>player</th><th>score</th></tr></thead><tbody>';
    for (const s of st.scores) html += "<tr><td>" + esc(s.name) + "</td><td>" + s.score + "</td></tr>";
    html += "</tbody></table>";
    for (const bad of st.impossible || []) {
      html += '<p class="flag impossible-flag" data-sheet="' + bad.sheet + '">' + esc(bad.file) +
        "'s sheet cannot come from a legal game: " + esc(bad.reasons.join("; ")) + "</p>";
    }
    const names = (ks) => ks.map((k) => esc(st.scores[k].name)).join(", ");
    const rows = [];
    for (const what of ["columns", "colours"]) {
      for (const [item, r] of Object.entries(st.race[what])) {
        rows.push("<tr><td>" + (what === "columns" ? "column " : "") + esc(item) + "</td><td>" + names(r.first) + "</td><td>" + names(r.later) + "</td></tr>");
      }
    }
    html += "<h3>The race</h3>" + (rows.length ? '<table class="race"><thead><tr><th></th><th>first</th><th>later</th></tr></thead><tbody>' +
      rows.join("") + "</tbody></table>" : "<p>Nobody has completed a column or colour yet.</p>");
    for (const p of st.race_problems || []) html += '<p class="flag">' + esc(p) + "</p>";
    return html;
  }

  // the crossing path of a seat (from the split), numbered on its sheet
  function renderPaths() {
    const team = room && room.status && room.status.team;
    document.querySelectorAll(".path-mark").forEach((el) => el.remove());
    if (!team) return;
    for (const [k, on] of Object.entries(pathsShown)) {
      if (!on) continue;
      const cells = team.split.sheets[k] ? team.split.sheets[k].crosses.cells : [];
      const host = me && Number(k) === me.seat ? $("mine") : document.querySelector('.other[data-seat="' + k + '"] .sheet');
      const svg = host && host.querySelector("svg");
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
    return { cells: s.cells.slice(), jokers_used: s.jokers_used, later_columns: s.later_columns.slice(),
             later_colours: s.later_colours.slice() };
  }

  function sendSheet(change) {
    // edits go one after another, each with the sheet version it was made on
    sending = sending.then(async () => {
      const body = change(currentSheet());
      body.version = room.seats[me.seat].sheet_version;
      const res = await fetch(api + "/seats/" + me.seat + "/sheet", { method: "PUT", headers: authHeaders(), body: JSON.stringify(body) });
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
        seatNote = "This browser no longer holds the seat: " + (data.error || "refused");
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
    sendSheet((s) => {
      const i = s.cells.indexOf(cell);
      if (i >= 0) s.cells.splice(i, 1); else s.cells.push(cell);
      // a column or colour no longer complete cannot stay scored 'later'
      return s;
    });
  });
  $("joker-plus").addEventListener("click", () => sendSheet((s) => { s.jokers_used = Math.min(8, s.jokers_used + 1); return s; }));
  $("joker-minus").addEventListener("click", () => sendSheet((s) => { s.jokers_used = Math.max(0, s.jokers_used - 1); return s; }));
  $("claims").addEventListener("change", (ev) => {
    const sel = ev.target.closest("select[data-field]");
    if (!sel) return;
    sendSheet((s) => {
      const list = s[sel.dataset.field].filter((x) => x !== sel.dataset.item);
      if (sel.value === "later") list.push(sel.dataset.item);
      s[sel.dataset.field] = list;
      return s;
    });
  });

  async function setRolls(delta) {
    const value = Math.max(0, room.rolls_used + delta);
    const res = await fetch(api + "/rolls", { method: "PUT", headers: authHeaders(), body: JSON.stringify({ rolls_used: value }) });
    const data = await res.json().catch(() => ({}));
    if (!res.ok) { $("edit-error").textContent = data.error || "refused"; return; }
    if (data.version > room.version) { room.version = data.version; room.rolls_used = value; room.status = data.status; renderAll(); }
  }
  $("rolls-plus").addEventListener("click", () => setRolls(1));
  $("rolls-minus").addEventListener("click", () => setRolls(-1));

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
    box.innerHTML = res.ok ? 'Open this link on the other phone (it works once; this browser then loses the seat):<br><a href="' +
      esc(data.url) + '">' + esc(data.url) + "</a>" : esc(data.error || "refused");
  });

  $("share-toggle").addEventListener("click", () => {
    const box = $("share-box");
    box.hidden = !box.hidden;
    $("share-toggle").setAttribute("aria-expanded", String(!box.hidden));
    if (!box.hidden) $("share-qr").src = api + "/qr.svg";
  });

  $("seat-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const res = await fetch(api + "/seats", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name: $("seat-name").value }) });
    const data = await res.json().catch(() => ({}));
    if (res.status !== 201) { $("join-error").textContent = data.error || "could not take a seat"; return; }
    saveSeat({ seat: data.seat, token: data.seat_token });
    $("join-error").textContent = "";
    await refresh();
  });

  claimFromHash().then(connect);
})();
