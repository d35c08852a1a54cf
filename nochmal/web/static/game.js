// The game page (puzzle and play): dice, tapping cells, undo, pass, hints, the end.
"use strict";
(function () {
  // game.js sits in the page's head (its <script> names the game): the game is asked for at
  // once, while the page is still read, and drawn once the page is in (docs/web.md "Page load")
  const asked = document.currentScript.dataset;
  const first = firstRequest(asked).then((state) => ({ state }), (error) => ({ error }));
  NM.ready(main);

  function firstRequest(d) {
    if (d.kind === "puzzle") {
      const id = new URL(window.location.href).searchParams.get("game");
      // a page that carries the puzzle's first state (data-fresh: its sheet in the markup, the rest
      // in #fresh-game) needs the game's id, not its drawing again
      const path = "/api/games" + (d.fresh ? "?svg=false" : "");
      return id ? NM.api("GET", "/api/games/" + id) : NM.api("POST", path, { kind: "puzzle", seed: Number(d.seed) });
    }
    return NM.api("GET", "/api/games/" + d.game);
  }

  function main() {
    const root = document.getElementById("game");
    const kind = root.dataset.kind;
    const $ = id => document.getElementById(id);
    let state = null;          // the game state from the API
    let pick = { colour: null, number: null };
    let selected = [];         // cells tapped so far
    let pendingMove = null;    // the move the selection makes, when it is a whole placement
    let busy = false;

    function gameUrl(id) {
      if (kind === "puzzle") {
        const url = new URL(window.location.href);
        url.searchParams.set("game", id);
        return url.pathname + url.search;
      }
      return "/play/" + id;
    }

    // a new puzzle's page carries its first state (puzzle.html): the sheet as markup, which the
    // browser draws as it reads the page, and #fresh-game, what the game's answer says but the id
    // (the game is made alongside) and the drawing. The rest is drawn at once; every request
    // about the game waits for the answer (made), so a tap before it is answered in its turn
    let made = null;          // why the game could not be made, when it could not
    let markMade;
    const madeNow = new Promise((resolve) => { markMade = resolve; });

    function fresh() {  // (the server writes none for an address that names a game, pages.py _fresh)
      const el = $("fresh-game");
      return el ? JSON.parse(el.textContent) : null;
    }

    async function start() {
      const drawn = fresh();
      await NM.i18nReady;  // fetched alongside the game: the first drawing is in the page's language
      if (drawn) { state = drawn; render(); }
      const got = await first;
      if (got.error) {
        made = got.error;
        NM.say(got.error.message, "bad");
      } else if (!drawn) {
        state = got.state;
        render();
        nameGame();  // (made without a drawing in its page: named now; one drawn from it at its first change)
      } else if (canonical({ ...drawn, id: null }) === canonical({ ...got.state, id: null })) {
        state = got.state;  // the page's own drawing stands (the answer, as the page's state, has none)
      } else {  // (not expected: the page and the game of one puzzle differ) the game as it is, drawn
        try { state = await NM.api("GET", "/api/games/" + got.state.id); render(); }
        catch (e) { made = e; NM.say(e.message, "bad"); }
      }
      markMade();
    }

    // the address names the puzzle's game (?game=ID), so a reload keeps it: once the game has
    // something to keep (its first move or its rolls opened). Before that a reload draws the same
    // new puzzle again, and history.replaceState's few ms stay off the first drawing
    // (benchmarks/log/2026-12-05-web.md)
    let named = new URL(window.location.href).searchParams.has("game");
    function nameGame() {
      if (kind !== "puzzle" || named) return;
      named = true;
      history.replaceState(null, "", gameUrl(state.id));
    }

    // a value's JSON with every object's keys in order (the page's copy is written sorted)
    function canonical(value) {
      return JSON.stringify(value, (_, v) => (v && typeof v === "object" && !Array.isArray(v)
        ? Object.fromEntries(Object.keys(v).sort().map(k => [k, v[k]])) : v));
    }

    // no game to ask about (it could not be made): the reason again, and nothing sent
    function unmade() {
      if (made) NM.say(made.message, "bad");
      return made !== null;
    }

    function me() { return state.human_to_move; }

    let lastHuman = null;
    function render() {
      resetPick();
      // pass-and-play: say so when the device goes to another human
      const humans = state.humans.filter(Boolean).length;
      if (humans > 1 && me() !== null && lastHuman !== null && me() !== lastHuman)
        NM.say(t("pass the device to %(name)s", { name: state.names[me()] }), "good");
      lastHuman = me();
      const over = state.over;
      let info = over ? ngettext("game over after %(n)s roll", "game over after %(n)s rolls", state.rolls)
        : state.roll_limit ? t("roll %(roll)s of %(limit)s", { roll: state.roll, limit: state.roll_limit })
          : t("roll %(roll)s", { roll: state.roll });
      if (!over && state.roll_limit) info += " " + t("(%(left)s left after this one)", { left: state.roll_limit - state.roll });
      if (!over && state.players.length > 1 && me() !== null) {
        info += " · " + t("%(name)s to choose", { name: state.names[me()] });
        if (me() === state.active_player) info += " " + t("(active: pick first)");
        else if (state.rolls >= 3) info += " " + t("(from the dice left by %(name)s)", { name: state.names[state.active_player] });
      }
      if (!over && state.jokers_left && me() !== null) info += " · " + t("jokers left %(n)s", { n: state.jokers_left[me()] });
      $("roll-info").textContent = info;
      if ($("game-title")) $("game-title").textContent = (state.mode === "coop" ? t("Co-op mission") :
        state.mode === "solo" ? t("Solo game") : t("Game")) + " · " + t("seed %(seed)s", { seed: state.seed }) + " · " + (state.board_label || state.board);
      const seedLabel = document.querySelector("h1 .seed");
      if (seedLabel) seedLabel.textContent = t("seed %(seed)s", { seed: state.seed });  // a saved game may be of another day
      drawDice();
      drawSheets();
      drawMission();
      drawLog();
      drawRolls();
      $("controls").classList.toggle("hidden", over);
      $("undo").disabled = !state.can_undo;
      if (kind === "puzzle") $("hint").classList.add("hidden");
      if (over) showEnd();
    }

    function drawDice() {
      const box = $("dice");
      box.innerHTML = "";
      if (!state.dice) return;
      const usableC = NM.usable(state.dice.colours, state.available && state.available.colours);
      const usableN = NM.usable(state.dice.numbers, state.available && state.available.numbers);
      state.dice.colours.forEach((f, i) => box.appendChild(NM.dieButton("colour", f, usableC[i])));
      const sep = document.createElement("span"); sep.className = "sep"; box.appendChild(sep);
      state.dice.numbers.forEach((f, i) => box.appendChild(NM.dieButton("number", f, usableN[i])));
      box.querySelectorAll(".die").forEach(b => b.addEventListener("click", () => pickDie(b)));
    }

    function drawSheets() {
      const box = $("sheets");
      if (!state.sheets_svg) { hookSheet(); return; }  // a state drawn by its page (puzzle.html): kept
      box.innerHTML = "";
      box.classList.toggle("multi", state.sheets_svg.length > 1);
      const order = state.sheets_svg.map((_, p) => p);
      if (me() !== null) order.sort((a, b) => (b === me()) - (a === me()));
      for (const p of order) {
        const el = NM.sheetBox(state.sheets_svg[p], p === me() ? "to-move" : "");
        el.dataset.seat = p;
        if (p === me()) el.id = "my-sheet";
        box.appendChild(el);
      }
      hookSheet();
    }

    // the player's sheet answers taps and keys (once per drawing: a kept one is not hooked again)
    const hooked = new WeakSet();
    function hookSheet() {
      const mine = $("my-sheet");
      if (!mine || hooked.has(mine)) return;
      hooked.add(mine);
      mine.addEventListener("click", ev => {
        const cell = ev.target.closest("[data-cell]");
        if (cell) tapCell(cell.dataset.cell);
      });
      NM.sheetKeys(mine); NM.keyCells(mine);
    }

    function drawMission() {
      const box = $("mission");
      if (!box) return;
      if (!state.mission) { box.classList.add("hidden"); return; }
      const m = state.mission;
      box.classList.remove("hidden");
      const left = m.budget - m.rolls_used;
      const level = { easy: t("easy"), normal: t("normal"), hard: t("hard") }[m.difficulty] || m.difficulty;
      let html = "<strong>" + esc(m.name) + "</strong> (" + esc(level) + ") · " +
        esc(t("rolls left %(left)s of %(budget)s", { left, budget: m.budget })) + "<ul>";
      for (const o of m.objectives) {
        html += "<li class='" + (o.met ? "met" : "") + "'>" + (o.met ? "✔ " : o.progress + "/" + o.total + " ") +
          esc(o.description) + "</li>";
      }
      box.innerHTML = html + "</ul>" + (state.over ? "<strong>" + esc(m.text) + "</strong>" : "");
      // the short form stays in view with the dice while the player scrolls the sheets
      const kinds = { columns: t("columns"), colours: t("colours"), stars: t("stars"), cells: t("cells"),
        score: t("score"), jokers_left: t("jokers") };
      const line = $("mission-line");
      line.textContent = t("rolls left %(left)s", { left }) + " · " + m.objectives.map(o => (o.met ? "✔" : o.progress + "/" + o.total) +
        " " + (kinds[o.kind] || o.kind)).join(" · ");
      line.classList.remove("hidden");
    }

    function drawLog() {
      const box = $("log");
      if (!box) return;
      box.innerHTML = "";
      // newest first, numbered from the first move (the first move is 1)
      state.log.slice().reverse().forEach((e, i) => {
        const li = document.createElement("li");
        li.value = state.log.length - i;
        li.textContent = t("roll %(roll)s", { roll: e.roll }) + " (" + e.dice + ") " + e.name + ": " + (e.move === "pass" ? t("pass") : e.move);
        box.appendChild(li);
      });
    }

    async function drawRolls() {
      const sw = $("open-switch");
      if (!sw) return;
      sw.checked = state.open;
      const box = $("all-rolls");
      if (!state.open) { box.classList.add("hidden"); return; }
      try {
        const data = await NM.api("GET", "/api/games/" + state.id + "/rolls");
        box.innerHTML = "";
        data.rolls.forEach((r, i) => {
          const s = document.createElement("span");
          s.textContent = (i + 1) + ": " + NM.rollText(r);
          if (i + 1 < (state.roll || 999)) s.className = "done";
          if (i + 1 === state.roll) s.className = "now";
          box.appendChild(s);
        });
        box.classList.remove("hidden");
      } catch (e) { NM.say(e.message, "bad"); }
    }

    function resetPick() {
      NM.say("");  // a message about the old pick ("tap the cells…") would outlive it
      pick = { colour: null, number: null };
      selected = [];
      pendingMove = null;
      $("cross").disabled = true;
      $("cross").textContent = t("Cross");
      $("hints").innerHTML = "";
      const sheets = $("sheets");
      if (sheets) sheets.classList.remove("choosing");
    }

    // taps and picks are answered in the order they were made: one request at a time, each
    // built from the selection the previous answer left (a late answer never undoes a newer one)
    let queue = madeNow;
    function enqueue(fn) { queue = queue.then(fn, fn); }

    function pickDie(btn) { enqueue(() => pickDieNow(btn)); }

    function pickDieNow(clicked) {
      if (unmade()) return;
      // a pick waits for the game (madeNow): the dice may have been drawn again meanwhile, so the
      // die picked is the one now on the page with the clicked one's face (none: the pick is void)
      const btn = clicked.isConnected ? clicked : document.querySelector(
        '.die.' + clicked.dataset.kind + '[data-face="' + clicked.dataset.face + '"]:not([disabled])');
      if (!btn) return;
      const k = btn.dataset.kind;
      pick[k] = pick[k] === btn.dataset.face ? null : btn.dataset.face;
      document.querySelectorAll(".die." + k).forEach(b => b.classList.remove("picked"));
      if (pick[k]) btn.classList.add("picked");
      selected = [];
      pendingMove = null;
      return query();
    }

    function mark(extend) { NM.markMine(extend, selected, !!(pick.colour && pick.number)); }

    function query(extra) {
      return NM.askTap(pick, selected, extra, (body) => NM.api("POST", "/api/games/" + state.id + "/tap", body),
        (cells, move) => { selected = cells; pendingMove = move; }, mark);
    }

    function tapCell(name) { enqueue(() => tapCellNow(name)); }

    function tapCellNow(name) {
      if (busy || me() === null || unmade()) return;
      if (!(pick.colour && pick.number)) { NM.say(t("pick a colour die and a number die first"), "bad"); return; }
      if (selected.includes(name)) {
        selected = selected.filter(c => c !== name);
        return query();
      }
      return query(name);
    }

    async function send(path, body) {
      if (busy || unmade()) return;
      busy = true;
      try {
        state = await NM.api("POST", "/api/games/" + state.id + path, body);
        NM.say("");
        render();
        nameGame();
      } catch (e) { NM.say(e.message, "bad"); }
      busy = false;
    }

    $("cross").addEventListener("click", () => enqueue(() => { if (pendingMove) return send("/move", { move: pendingMove }); }));
    $("pass").addEventListener("click", () => enqueue(() => send("/move", { move: "pass" })));
    $("undo").addEventListener("click", () => enqueue(() => send("/undo")));
    $("hint").addEventListener("click", async () => {
      NM.say(t("the hint bot is thinking…"));
      try {
        const data = await NM.api("GET", "/api/games/" + state.id + "/hint");
        const box = $("hints");
        box.innerHTML = "";
        data.hints.forEach(h => {
          const li = document.createElement("li");
          li.textContent = h.move + "  " + t("(value %(value)s)", { value: NM.number(h.value, 2) });
          box.appendChild(li);
        });
        NM.say(t("the hint bot's best three choices:"), "good");
      } catch (e) { NM.say(e.message, "bad"); }
    });
    const sw = $("open-switch");
    if (sw) sw.addEventListener("change", async () => {
      await madeNow;
      if (unmade()) { sw.checked = false; return; }
      if (sw.checked && !state.open) {
        try { state = await NM.api("POST", "/api/games/" + state.id + "/open"); render(); nameGame(); }
        catch (e) { NM.say(e.message, "bad"); sw.checked = false; }
      } else if (!sw.checked) { $("all-rolls").classList.add("hidden"); }
    });

    // --- the end ---------------------------------------------------------------------------
    let endShown = false;
    function showEnd() {
      $("end").classList.remove("hidden");
      $("dl-record").href = "/api/games/" + state.id + "/record?download=true";
      $("dl-svg").href = "/api/games/" + state.id + "/svg?download=true";
      if ($("to-replay")) $("to-replay").href = "/replay?game=" + state.id;
      let text;
      if (state.mode === "solo") text = t("Score %(score)s: %(verdict)s", { score: state.scores[0], verdict: state.verdict || state.rating });
      else if (state.mission) text = state.mission.text;
      else text = t("Scores: %(scores)s — winner: %(winners)s", { scores: state.names.map((n, p) => n + " " + state.scores[p]).join(" · "),
        winners: NM.andList((state.winners || []).map(p => state.names[p])) });
      $("final-score").textContent = text;
      if (kind === "puzzle" && !endShown) {
        endShown = true; showKnownBest(); startPlanner();
        // share, leaderboard, history: static/puzzles.js, loaded async (it may come after this: it reads NM.over)
        NM.over = state;
        document.dispatchEvent(new CustomEvent("nm:over", { detail: state }));
      }
    }

    // the shipped campaign's figure for this seed (nochmal/puzzles.py), shown before the planner runs
    function knownBestText() {
      const k = state.known_best;
      if (!k) return null;
      return k.proven ? t("The proven best for this seed is %(best)s.", { best: k.best })
        : t("Best known for this seed: %(best)s; no play can beat %(bound)s.", { best: k.best, bound: k.bound });
    }

    function showKnownBest() {
      const known = knownBestText();
      if (known) $("planner-status").textContent = known + " " + t("You scored %(score)s.", { score: state.scores[0] }) + " " + t("The planner looks for a best play to show…");
    }

    let job = null;
    async function startPlanner() {
      try {
        job = await NM.api("POST", "/api/jobs/solve", { game_id: state.id });
      } catch (e) { $("planner-status").textContent = t("the planner is not available: %(reason)s", { reason: e.message }); return; }
      $("planner-cancel").onclick = async () => { try { await NM.api("POST", "/api/jobs/" + job.id + "/cancel"); } catch (e) { /* gone */ } };
      pollPlanner();
    }

    async function pollPlanner() {
      try { job = await NM.api("GET", "/api/jobs/" + job.id); }
      catch (e) { $("planner-status").textContent = e.message; return; }
      const p = job.progress;
      const cap = job.time_cap;
      if (!job.done) {
        $("planner-status").textContent = (knownBestText() ? knownBestText() + " " : "") + t("The planner is searching: best %(best)s, no play beats %(bound)s", { best: p.best ?? "–", bound: p.bound ?? "–" }) +
          " · " + NM.number(job.elapsed || 0) + " s";
        $("planner-bar").style.width = Math.min(100, 100 * (job.elapsed || 0) / Math.min(cap, 20)) + "%";
        setTimeout(pollPlanner, 1000);
        return;
      }
      $("planner-cancel").classList.add("hidden");
      $("planner-bar").style.width = "100%";
      if (job.state !== "done") { $("planner-status").textContent = t("planner %(state)s", { state: NM.jobState(job.state) }) + (job.state === "failed" && job.error ? ": " + job.error : ""); return; }
      const plan = job.result;
      const mine = state.scores[0];
      const k = state.known_best;
      const scored = " " + t("You scored %(score)s.", { score: mine });
      const proven = best => t("Best possible score for these dice: %(best)s (proven).", { best }) + scored;
      if (plan.status === "optimal" || (k && k.proven && plan.total === k.best))
        $("planner-status").textContent = proven(plan.total);
      else if (k && k.proven)
        $("planner-status").textContent = t("The proven best for this seed is %(best)s; the play shown is the planner's best in its time (%(total)s).",
          { best: k.best, total: plan.total }) + scored;
      else if (k) {  // an unproven table entry: the better play and the tighter bound of both
        const bound = plan.bound == null ? k.bound : Math.min(plan.bound, k.bound), best = Math.max(plan.total, k.best);
        $("planner-status").textContent = best === bound ? proven(best)
          : t("Best known for this seed: %(best)s; no play can beat %(bound)s (not proven best; the play shown scores %(total)s).",
            { best, bound, total: plan.total }) + scored;
      } else
        $("planner-status").textContent = t("The planner found %(total)s points; no play can beat %(bound)s (not proven best).",
          { total: plan.total, bound: plan.bound ?? "?" }) + scored;
      showCompare(plan);
    }

    function showCompare(plan) {
      $("compare").classList.remove("hidden");
      const steps = $("plan-steps");
      steps.innerHTML = "";
      plan.steps.forEach((s, i) => {
        const li = document.createElement("li");
        li.textContent = s.dice + "  " + (s.move === "pass" ? t("pass") : s.move);
        li.dataset.k = i + 1;
        steps.appendChild(li);
      });
      const range = $("cmp-range");
      range.max = plan.steps.length;
      range.value = plan.steps.length;
      const show = async () => {
        const k = Number(range.value);
        $("cmp-label").textContent = t("after roll %(roll)s of %(rolls)s", { roll: k, rolls: plan.steps.length });
        steps.querySelectorAll("li").forEach(li => li.classList.toggle("now", Number(li.dataset.k) === k));
        try {
          const [a, b] = await Promise.all([
            fetch("/api/games/" + state.id + "/sheet?after=" + k).then(r => r.text()),
            fetch("/api/jobs/" + job.id + "/sheet?after=" + k).then(r => r.text())]);
          $("cmp-mine").innerHTML = a;
          $("cmp-best").innerHTML = b;
          // the cells crossed in roll k: the player's move and the plan's move
          const mine = state.log.find(e => e.roll === k);
          markCells("#cmp-mine", mine ? mine.move : "pass");
          markCells("#cmp-best", k ? plan.steps[k - 1].move : "pass");
        } catch (e) { NM.say(e.message, "bad"); }
      };
      range.oninput = show;
      $("cmp-prev").onclick = () => { range.value = Math.max(0, Number(range.value) - 1); show(); };
      $("cmp-next").onclick = () => { range.value = Math.min(plan.steps.length, Number(range.value) + 1); show(); };
      show();
    }

    function markCells(box, move) {
      const cells = new Set(move === "pass" ? [] : move.split(" ").slice(1));
      document.querySelectorAll(box + " rect.cell").forEach(r => r.classList.toggle("plan-now", cells.has(r.dataset.cell)));
    }

    function esc(s) { const d = document.createElement("div"); d.textContent = s; return d.innerHTML; }
    start();
  }
})();
