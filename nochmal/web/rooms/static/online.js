// The online room's page (docs/rooms.md, online games): the server rolls, each phone taps its
// own move on its own sheet as on the puzzle page (dice, outlined legal cells, the engine's
// reason for an illegal tap), and sees every sheet, the dice and who is still choosing, live.
"use strict";
(function () {
  const root = document.getElementById("online");
  const code = root.dataset.code;
  const api = "/api/rooms/online/" + code;
  const $ = id => document.getElementById(id);
  const keyOf = "nochmal-online-" + code;
  let room = null;           // the room as the stream and GET give it
  let mine = null;           // {seat, token} of this phone, from localStorage or the seat link
  let myMove = null;         // this phone's choice in the roll in play
  let pick = { colour: null, number: null };
  let selected = [];
  let pendingMove = null;
  let shownRoll = null;

  // --- the seat this phone holds: localStorage, or a seat link (#seat=K&token=T) ------------
  function loadSeat() {
    const hash = new URLSearchParams(window.location.hash.slice(1));
    if (hash.get("token") && hash.get("seat") !== null) {
      mine = { seat: Number(hash.get("seat")), token: hash.get("token") };
      localStorage.setItem(keyOf, JSON.stringify(mine));
      history.replaceState(null, "", window.location.pathname + window.location.search);
      return;
    }
    try { mine = JSON.parse(localStorage.getItem(keyOf) || "null"); } catch (e) { mine = null; }
  }

  // the room's API with this phone's seat token (common.js NM.api: a refusal's words, or "no connection")
  function call(method, path, body) {
    return NM.api(method, api + path, body, mine ? { Authorization: "Bearer " + mine.token } : undefined);
  }

  // --- drawing ------------------------------------------------------------------------------
  function nameOf(k) {
    const s = room.seats[k];
    return s.name || t("seat %(n)s", { n: k + 1 });
  }

  function names(list) { return list.map(nameOf).join(", "); }

  function seated() { return mine !== null && room.seats[mine.seat] && room.seats[mine.seat].taken; }

  function render() {
    if (room.roll !== shownRoll) { shownRoll = room.roll; myMove = null; resetPick(); }
    const sub = room.mission ? t("Co-op mission %(name)s", { name: room.mission }) + " · " + t(room.difficulty)
      : t("Competitive game") + " · " + room.board;
    $("online-sub").textContent = sub;
    $("commitment").textContent = t("The dice come from a seed the server drew; its SHA-256: %(hash)s",
      { hash: room.commitment });
    drawJoin();
    drawSeatLink();
    drawRoll();
    drawDice();
    drawSheets();
    drawEnd();
  }

  function drawJoin() {
    const box = $("join-box");
    const free = room.seats.filter(s => !s.taken);
    box.hidden = seated() || !free.length || room.over;
    if (box.hidden) return;
    const pickBox = $("seat-pick");
    pickBox.querySelectorAll("label").forEach(l => l.remove());
    free.forEach((s, i) => {
      const label = document.createElement("label");
      label.innerHTML = "<input type='radio' name='seat'> ";
      label.querySelector("input").value = s.seat;
      label.querySelector("input").checked = i === 0;
      label.append(t("seat %(n)s", { n: s.seat + 1 }));
      pickBox.appendChild(label);
    });
  }

  // the way back in: the seat's own link, which a reload keeps anyway (localStorage)
  function drawSeatLink() {
    $("seat-link-box").hidden = !seated();
    if (!seated()) return;
    const link = window.location.origin + "/o/" + code + "#seat=" + mine.seat + "&token=" + encodeURIComponent(mine.token);
    $("seat-link").href = link;
    $("seat-link").textContent = link;
  }

  function drawRoll() {
    const inPlay = $("in-play");
    const line = $("choosing");
    if (room.over) { inPlay.textContent = t("Game over"); line.textContent = ""; }
    else if (!room.started) {
      inPlay.textContent = t("Waiting for every seat to be taken");
      line.textContent = t("Free seats: %(seats)s", { seats: names(room.seats.filter(s => !s.taken).map(s => s.seat)) });
    } else {
      inPlay.textContent = t("Roll %(roll)s — %(name)s is the active player", { roll: room.roll, name: nameOf(room.active) });
      const still = room.seats.filter(s => s.state !== "chosen").map(s => s.seat);
      line.textContent = still.length ? t("Still choosing: %(names)s", { names: names(still) }) : "";
    }
    const last = room.last;
    $("last-roll").textContent = last ? t("Roll %(roll)s (%(dice)s): %(moves)s", { roll: last.roll,
      dice: NM.rollText(last.dice), moves: last.moves.map(moveText).join(" · ") }) : "";
  }

  // a move of the last roll as the table says it: who, what, and whether the server chose for them
  function moveText(m) {
    let text = nameOf(m.seat) + " " + (m.move === "pass" ? t("pass") : m.move);
    if (m.by === "quiet") text += " " + t("(passed for a quiet seat)");
    else if (m.by === "bot" && !room.seats[m.seat].bot) text += " " + t("(a bot stood in)");
    return text;
  }

  function myState() { return seated() ? room.seats[mine.seat].state : null; }

  function drawDice() {
    const box = $("dice");
    box.innerHTML = "";
    const state = myState();
    $("controls").hidden = !room.dice || room.over || !seated();
    if (!room.dice || !seated()) return;
    const offer = state === "choosing" ? room.seats[mine.seat].dice : null;
    const usableC = offer ? NM.usable(room.dice.colours, offer.colours) : room.dice.colours.map(() => false);
    const usableN = offer ? NM.usable(room.dice.numbers, offer.numbers) : room.dice.numbers.map(() => false);
    room.dice.colours.forEach((f, i) => box.appendChild(NM.dieButton("colour", f, usableC[i])));
    const sep = document.createElement("span"); sep.className = "sep"; box.appendChild(sep);
    room.dice.numbers.forEach((f, i) => box.appendChild(NM.dieButton("number", f, usableN[i])));
    box.querySelectorAll(".die").forEach(b => {
      if (b.dataset.face === pick[b.dataset.kind]) b.classList.add("picked");
      b.addEventListener("click", () => pickDie(b));
    });
    $("pass").disabled = state !== "choosing";
    if (state === "waiting") NM.say(t("%(name)s chooses first; then you choose from the dice left", { name: nameOf(room.active) }));
    else if (state === "chosen") {
      const yours = t("your move");  // a call of its own: pybabel does not extract t() inside another t()'s values
      NM.say(t("You chose %(move)s; waiting for the others", { move: myMove || room.seats[mine.seat].move || yours }), "good");
    }
    else if (state === "choosing" && !pick.colour && !pick.number) NM.say(t("Your turn: pick a colour die and a number die, then tap the cells"));
  }

  function drawSheets() {
    const box = $("sheets");
    box.innerHTML = "";
    const order = room.seats.map(s => s.seat);
    const me = seated() ? mine.seat : null;
    if (me !== null) order.sort((a, b) => (b === me) - (a === me));
    box.classList.toggle("multi", order.length > 1);
    for (const k of order) {
      const s = room.seats[k];
      const el = NM.sheetBox(room.svgs[String(k)], k === me && s.state === "choosing" ? "to-move" : "");
      el.dataset.seat = k;
      el.dataset.state = s.state;
      const head = document.createElement("p");
      head.className = "seat-state";
      head.textContent = nameOf(k) + " · " + ({ choosing: t("choosing"), waiting: t("waits for the active player"),
        chosen: t("has chosen"), over: ngettext("%(n)s point", "%(n)s points", room.scores[k], { n: room.scores[k] }), "not started": s.taken ? t("seated") : t("free seat") }[s.state] || s.state);
      el.prepend(head);
      if (k === me) el.id = "my-sheet";
      box.appendChild(el);
    }
    const own = $("my-sheet");
    if (own) {
      own.addEventListener("click", ev => { const cell = ev.target.closest("[data-cell]"); if (cell) tapCell(cell.dataset.cell); });
      NM.sheetKeys(own); NM.keyCells(own);
      if (pick.colour && pick.number) enqueue(() => query());  // a redraw keeps the selection's outline, in turn with the taps
    }
  }

  function drawEnd() {
    $("end").hidden = !room.over;
    if (!room.over) return;
    let text;
    if (room.outcome) text = room.outcome.text;
    else text = t("Scores: %(scores)s — winner: %(winners)s", { scores: room.seats.map(s => nameOf(s.seat) + " " + room.scores[s.seat]).join(" · "),
      winners: NM.andList((room.winners || []).map(nameOf)) });
    $("final").textContent = text;
    $("seed-line").textContent = t("The seed was %(seed)s (SHA-256 %(hash)s).", { seed: room.seed_text, hash: room.commitment });
    $("dl-record").href = api + "/record";
    $("dl-record").setAttribute("download", "online-" + code + ".json");
    $("analysis").hidden = false;
    $("analyse").textContent = room.mission ? t("Analyse the team's play") : t("Analyse every seat");
    $("analysis-note").textContent = room.mission
      ? t("Roll by roll, the fewest rolls in which the team could have won from there (the team planner).")
      : t("Per seat, the best score the planner finds with the dice that seat could use and the others' moves as they were.");
  }

  // --- the end's analysis: a job of the app's per seat (nochmal/web/jobs.py), polled, stoppable --
  let jobs = {};  // seat -> the job as last read
  async function analyse() {
    $("analyse").disabled = true;
    $("analyse-stop").hidden = false;
    jobs = {};
    for (const s of (room.mission ? room.seats.slice(0, 1) : room.seats)) {  // a mission: one job, the team's
      try { jobs[s.seat] = await NM.api("POST", api + "/analyse", { seat: s.seat, time_limit: Number($("analyse-time").value) }); }
      catch (e) { jobs[s.seat] = { done: true, state: "failed", error: e.message }; }
    }
    drawAnalysis();
    pollJobs();
  }

  async function pollJobs() {
    const open = Object.entries(jobs).filter(([, job]) => !job.done && job.id);
    for (const [seat, job] of open) {
      try { jobs[seat] = await NM.api("GET", "/api/jobs/" + job.id); } catch (e) { jobs[seat] = { done: true, state: "failed", error: e.message }; }
    }
    drawAnalysis();
    if (Object.values(jobs).some(job => !job.done)) setTimeout(pollJobs, 1000);
    else { $("analyse").disabled = false; $("analyse-stop").hidden = true; }
  }

  function drawAnalysis() {
    const list = $("analysis-list");
    list.innerHTML = "";
    for (const [seat, job] of Object.entries(jobs)) {
      const li = document.createElement("li");
      li.dataset.seat = seat;
      li.dataset.state = job.state;
      const p = job.progress || {};
      let text;
      if (job.state === "queued") text = t("queued");
      else if (!job.done) text = t("analysing: %(n)s of %(total)s solves", { n: p.solves_done || 0, total: p.solves_total || "…" });
      else if (job.state !== "done") text = t("analysis %(state)s", { state: NM.jobState(job.state) }) + (job.error ? ": " + job.error : "");
      else if (room.mission) text = teamText(job.result);
      else {
        const a = job.result;
        text = t("actual %(score)s", { score: a.actual_score }) + " · " + (a.optimum_proven
          ? t("best possible %(best)s (proven)", { best: a.optimum }) : t("best found %(best)s", { best: a.optimum }));
      }
      li.textContent = (room.mission ? t("The team") : nameOf(Number(seat))) + ": " + text;
      list.appendChild(li);
    }
  }

  // a mission's analysis (solver/analyse.py analyse_coop) in words: the earliest win from the
  // start, and the rolls whose moves cost the team rolls
  function teamText(a) {
    let text = a.fewest <= a.budget ? t("the team could have won on roll %(n)s", { n: a.fewest }) +
      (a.fewest === a.fewest_low ? " " + t("(proven)") : " " + t("(no earlier win proven before roll %(n)s)", { n: a.fewest_low }))
      : t("no win within the budget was found");
    const costly = a.rolls.filter(r => r.lost > 0).map(r => ngettext("roll %(roll)s cost %(n)s roll", "roll %(roll)s cost %(n)s rolls", r.lost, { roll: r.roll, n: r.lost }));
    if (costly.length) text += " · " + costly.join(", ");
    return text;
  }

  $("analyse").addEventListener("click", analyse);
  $("analyse-stop").addEventListener("click", async () => {
    for (const job of Object.values(jobs)) if (job.id && !job.done) try { await NM.api("POST", "/api/jobs/" + job.id + "/cancel"); } catch (e) { /* gone */ }
  });

  // --- choosing: the puzzle page's taps ------------------------------------------------------
  function resetPick() {
    pick = { colour: null, number: null };
    selected = [];
    pendingMove = null;
    $("cross").disabled = true;
    $("cross").textContent = t("Cross");
    $("sheets").classList.remove("choosing");
  }

  let queue = Promise.resolve();
  function enqueue(fn) { queue = queue.then(fn, fn); }

  function pickDie(btn) {
    enqueue(() => {
      const k = btn.dataset.kind;
      pick[k] = pick[k] === btn.dataset.face ? null : btn.dataset.face;
      document.querySelectorAll(".die." + k).forEach(b => b.classList.toggle("picked", b === btn && pick[k] !== null));
      selected = [];
      pendingMove = null;
      return query();
    });
  }

  function mark(extend) { NM.markMine(extend, selected, !!(pick.colour && pick.number)); }

  function query(extra) {
    return NM.askTap(pick, selected, extra, (body) => call("POST", "/seats/" + mine.seat + "/tap", body),
      (cells, move) => { selected = cells; pendingMove = move; }, mark);
  }

  function tapCell(name) {
    enqueue(() => {
      if (myState() !== "choosing") return;
      if (!(pick.colour && pick.number)) { NM.say(t("pick a colour die and a number die first"), "bad"); return; }
      if (selected.includes(name)) { selected = selected.filter(c => c !== name); return query(); }
      return query(name);
    });
  }

  async function choose(move) {
    try {
      const res = await call("POST", "/seats/" + mine.seat + "/move", { roll: room.roll, move });
      const sameRoll = res.room.roll === room.roll;
      myMove = sameRoll ? res.move : null;
      resetPick();
      take(res.room);
    } catch (e) { NM.say(e.message, "bad"); }
  }

  $("cross").addEventListener("click", () => enqueue(() => { if (pendingMove) return choose(pendingMove); }));
  $("pass").addEventListener("click", () => enqueue(() => choose("pass")));
  $("undo").hidden = true;

  // --- sitting down, sharing ------------------------------------------------------------------
  $("seat-form").addEventListener("submit", async ev => {
    ev.preventDefault();
    const checked = document.querySelector("#seat-pick input:checked");
    try {
      const res = await call("POST", "/seats", { name: $("seat-name").value, seat: checked ? Number(checked.value) : undefined });
      mine = { seat: res.seat, token: res.seat_token };
      localStorage.setItem(keyOf, JSON.stringify(mine));
      $("join-error").textContent = "";
      await refresh();
    } catch (e) { $("join-error").textContent = e.message; }
  });
  $("share-toggle").addEventListener("click", () => {
    const box = $("share-box");
    box.hidden = !box.hidden;
    $("share-toggle").setAttribute("aria-expanded", String(!box.hidden));
    if (!box.hidden) { $("share-qr").src = api + "/qr.svg"; $("share-link").href = "/o/" + code; $("share-link").textContent = window.location.origin + "/o/" + code; }
  });

  // --- the room, live ---------------------------------------------------------------------------
  function take(doc) {
    if (room && doc.version < room.version) return;  // an older answer than the stream's
    if (doc.you && doc.you.offer && doc.you.offer.move) myMove = doc.you.offer.move;
    if (!doc.svgs) doc.svgs = room ? room.svgs : {};
    room = doc;
    render();
  }

  async function refresh() {
    try { take(await call("GET", "")); } catch (e) { NM.say(e.message, "bad"); }
  }

  function listen() {
    const stream = new EventSource(api + "/events");
    stream.addEventListener("online", ev => { $("live").textContent = t("live"); $("live").className = "live on"; take(JSON.parse(ev.data)); });
    stream.addEventListener("open", () => { $("live").textContent = t("live"); $("live").className = "live on"; });
    stream.addEventListener("error", () => { $("live").textContent = t("reconnecting…"); $("live").className = "live off"; });
  }

  loadSeat();
  NM.i18nReady.then(refresh).then(listen);
})();
