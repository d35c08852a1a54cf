// The replay page: upload a record, step through its turns, analyse a solo record.
"use strict";
(function () {
  const $ = id => document.getElementById(id);
  const root = $("replay");
  let rec = null, turn = 0, analysis = null, job = null;
  let analysedSeat = 1;  // 1-based: whose sheet the analysis marks (a competitive record: the picked seat)
  let perRoll = 0;  // seconds per roll's solve of the analysis shown

  $("upload").addEventListener("submit", async ev => {
    ev.preventDefault();
    const file = $("file").files[0];
    if (!file) { NM.say(t("choose a record file first"), "bad"); return; }
    const form = new FormData();
    form.append("file", file);
    try {
      const data = await NM.api("POST", "/api/records", form);
      history.pushState(null, "", "/replay/" + data.id);
      open(data);
    } catch (e) { NM.say(e.message, "bad"); }
  });

  async function open(data) {
    await NM.i18nReady;  // the summary and labels in the page's language
    rec = data;
    NM.say("");
    $("upload").classList.add("hidden");
    $("viewer").classList.remove("hidden");
    const who = rec.names.join(", ");
    const mode = { solo: t("Solo game"), competitive: t("Competitive game"), coop: t("Co-op game") }[rec.mode] || rec.mode;
    $("summary").textContent = t("%(mode)s on the %(board)s board, seed %(seed)s, %(turns)s turns; %(who)s",
      { mode, board: rec.board_label || rec.board, seed: rec.seed, turns: rec.turns, who }) +
      (rec.over ? "; " + t("final scores %(scores)s", { scores: rec.scores.join(" / ") }) : " " + t("(unfinished)"));
    $("turn-range").max = rec.turns;
    // a solo record, or one seat of a competitive record at a time (POST /api/jobs/analyse)
    $("analysis").classList.toggle("hidden", !((rec.mode === "solo" || rec.mode === "competitive") && rec.over));
    const pick = $("analyse-seat");
    pick.innerHTML = "";
    rec.names.forEach((name, i) => {
      const o = document.createElement("option"); o.value = i + 1; o.textContent = (i + 1) + ": " + name; pick.appendChild(o);
    });
    $("seat-pick").classList.toggle("hidden", rec.mode !== "competitive");
    go(rec.turns);
  }

  async function go(k) {
    turn = Math.max(0, Math.min(rec.turns, k));
    $("turn-range").value = turn;
    $("turn-label").textContent = t("turn %(turn)s of %(turns)s", { turn, turns: rec.turns });
    let data;
    try { data = await NM.api("GET", "/api/records/" + rec.id + "/turns/" + turn); }
    catch (e) { NM.say(e.message, "bad"); return; }
    if (data.turn !== turn) return;  // a later step already replaced this one
    const dice = $("turn-dice");
    dice.innerHTML = "";
    if (data.dice) {
      const l = document.createElement("span"); l.className = "label"; l.textContent = t("dice"); dice.appendChild(l);
      data.dice.colours.forEach(f => dice.appendChild(NM.dieButton("colour", f, true)));
      data.dice.numbers.forEach(f => dice.appendChild(NM.dieButton("number", f, true)));
    }
    const moves = $("turn-moves");
    moves.innerHTML = "";
    data.moves.forEach(m => {
      const li = document.createElement("li");
      li.textContent = m.name + ": " + (m.move === "pass" ? t("pass") : m.move);
      moves.appendChild(li);
    });
    const box = $("sheets");
    box.innerHTML = "";
    box.classList.toggle("multi", data.sheets_svg.length > 1);
    data.sheets_svg.forEach(svg => box.appendChild(NM.sheetBox(svg)));
    markAnalysis();
  }

  function markAnalysis() {
    document.querySelectorAll("#losses tbody tr").forEach(tr => tr.classList.toggle("now", Number(tr.dataset.roll) === turn));
    $("turn-note").textContent = "";
    if (!analysis || turn < 1) return;
    const loss = analysis.losses[turn - 1];
    if (!loss) return;
    // mark the turn's actual cells (picked) and the best move's cells (plan-now) on the sheet
    const cellsOf = m => m === "pass" ? [] : m.split(" ").slice(1);
    const actual = new Set(cellsOf(loss.actual)), best = new Set(cellsOf(loss.best));
    // only the analysed seat's sheet (the sheets are drawn in seat order)
    document.querySelectorAll("#sheets > :nth-child(" + analysedSeat + ") rect.cell").forEach(r => {
      r.classList.toggle("picked", actual.has(r.dataset.cell));
      r.classList.toggle("best", best.has(r.dataset.cell) && !actual.has(r.dataset.cell));
    });
    const who = analysis.seat ? analysis.name + ", " : "";
    const open = analysis.open_dice ? " · " + t("dice open to %(name)s: %(dice)s", { name: analysis.name, dice: analysis.open_dice[turn - 1] }) : "";
    $("turn-note").textContent = t("roll %(roll)s", { roll: turn }) + ": " + who + t("played %(move)s", { move: loss.actual }) + " · " +
      (loss.proven ? t("best %(move)s", { move: loss.best }) : t("best found %(move)s", { move: loss.best })) + " · " +
      t("lost %(points)s", { points: lostText(loss) }) + open + " " + t("(white: played, violet: best)");
  }

  $("prev").addEventListener("click", () => go(turn - 1));
  $("next").addEventListener("click", () => go(turn + 1));
  $("turn-range").addEventListener("input", e => go(Number(e.target.value)));
  document.addEventListener("keydown", e => {
    if (!rec || e.target.tagName === "INPUT" && e.target.type !== "range") return;
    if (e.key === "ArrowLeft") { e.preventDefault(); go(turn - 1); }
    else if (e.key === "ArrowRight") { e.preventDefault(); go(turn + 1); }
    else if (e.key === "Home") { e.preventDefault(); go(0); }
    else if (e.key === "End") { e.preventDefault(); go(rec.turns); }
  });

  // a loss is exact when proven, else the interval it lies in (no upper bound: "?")
  const lostText = l => l.proven ? String(l.loss) : l.loss_low + "–" + (l.loss_high === null ? "?" : l.loss_high);

  $("analyse").addEventListener("click", async () => {
    perRoll = Number($("analyse-time").value);
    const body = { record_id: rec.id, time_limit: perRoll };
    if (rec.mode === "competitive") body.seat = Number($("analyse-seat").value);
    try { job = await NM.api("POST", "/api/jobs/analyse", body); }
    catch (e) { NM.say(e.message, "bad"); return; }
    analysis = null;  // a new analysis (another seat): the old rows and marks go
    $("losses").classList.add("hidden");
    $("losses-note").textContent = "";
    markAnalysis();
    $("analyse").disabled = true;
    $("analyse-cancel").classList.remove("hidden");
    poll();
  });
  $("analyse-cancel").addEventListener("click", async () => {
    if (job) try { await NM.api("POST", "/api/jobs/" + job.id + "/cancel"); } catch (e) { /* gone */ }
  });

  async function poll() {
    try { job = await NM.api("GET", "/api/jobs/" + job.id); }
    catch (e) { $("analysis-status").textContent = e.message; return; }
    const p = job.progress;
    if (!job.done) {
      const n = p.solves_done || 0, total = p.solves_total || rec.turns;
      $("analysis-status").textContent = t("analysing: %(n)s of %(total)s solves", { n, total }) + " · " + NM.number(job.elapsed || 0) + " s · " + NM.percent(n / total);
      $("analysis-bar").style.width = (100 * n / total) + "%";
      setTimeout(poll, 1000);
      return;
    }
    $("analyse-cancel").classList.add("hidden");
    $("analyse").disabled = false;
    if (job.state !== "done") { $("analysis-status").textContent = t("analysis %(state)s", { state: NM.jobState(job.state) }) + (job.state === "failed" && job.error ? ": " + job.error : ""); return; }
    analysis = job.result;
    analysedSeat = analysis.seat || 1;
    $("analysis-bar").style.width = "100%";
    // a figure the planner did not prove is "best found", with what it did prove beside it
    const secs = perRoll;
    $("analysis-status").textContent = (analysis.seat ? analysis.name + ": " : "") +
      t("actual %(score)s", { score: analysis.actual_score }) + " · " + (analysis.optimum_proven
        ? t("best possible %(best)s (proven)", { best: analysis.optimum })
        : analysis.optimum_bound !== null
          ? t("best found %(best)s, at most %(bound)s possible (not proven in %(secs)s s per roll)", { best: analysis.optimum, bound: analysis.optimum_bound, secs })
          : t("best found %(best)s (no bound proven in %(secs)s s per roll)", { best: analysis.optimum, secs })) +
      ". " + t("Click a row to see that roll.");
    const unproven = analysis.losses.filter(l => !l.proven).length;
    $("best-head").textContent = unproven ? t("best found") : t("best");
    $("losses-note").textContent = unproven ? t("%(n)s of %(rolls)s rolls not proven in %(secs)s s per roll: their loss lies in the range shown (more seconds per roll narrow it).",
      { n: unproven, rolls: analysis.losses.length, secs }) : "";
    const body = document.querySelector("#losses tbody");
    body.innerHTML = "";
    analysis.losses.forEach(l => {
      const tr = document.createElement("tr");
      tr.dataset.roll = l.roll;
      if (l.loss > 0) tr.className = "lost";
      const lost = lostText(l);
      [l.roll, l.dice, l.actual === "pass" ? t("pass") : l.actual, l.best === "pass" ? t("pass") : l.best, lost].forEach(v => { const td = document.createElement("td"); td.textContent = v; tr.appendChild(td); });
      tr.addEventListener("click", () => go(l.roll));
      body.appendChild(tr);
    });
    $("losses").classList.remove("hidden");
    markAnalysis();
  }

  // /replay?game=ID: the record of a game of this site, uploaded like any other; ?entry=ID a
  // leaderboard entry's (docs/web.md "Leaderboards")
  const query = new URL(window.location.href).searchParams;
  const fromGame = query.get("game"), fromEntry = query.get("entry");
  const source = fromGame ? "/api/games/" + encodeURIComponent(fromGame) + "/record"
    : fromEntry ? "/api/leaderboard/entries/" + encodeURIComponent(fromEntry) + "/record" : null;
  if (!root.dataset.record && source) {
    fetch(source).then(async r => {
      if (!r.ok) throw new Error((await r.json()).error);
      const form = new FormData();
      form.append("file", new Blob([await r.text()], { type: "application/json" }), "game.json");
      const data = await NM.api("POST", "/api/records", form);
      history.replaceState(null, "", "/replay/" + data.id);
      open(data);
    }).catch(e => NM.say(e.message, "bad"));
  }
  if (root.dataset.record) {
    NM.api("GET", "/api/records/" + root.dataset.record).then(open).catch(e => NM.say(e.message, "bad"));
  }
})();
