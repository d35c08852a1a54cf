// The puzzle's challenge (docs/web.md "Leaderboards"): the end screen's submit and share, a
// leaderboard drawn from GET /api/puzzles/SEED/leaderboard, and the player's own history kept
// in this browser (localStorage). Loaded by the puzzle, leaderboard and history pages.
"use strict";
(function () {
  const $ = id => document.getElementById(id);
  const HISTORY = "nochmal-history", NAME = "nochmal-name", TOKENS = "nochmal-tokens";

  function stored(key, fallback) {
    try { const v = JSON.parse(localStorage.getItem(key)); return v === null ? fallback : v; }
    catch (e) { return fallback; }
  }
  function keep(key, value) { try { localStorage.setItem(key, JSON.stringify(value)); } catch (e) { /* private mode */ } }

  // a daily seed is its UTC day as YYYYMMDD (docs/glossary.md "puzzle"); the day or null
  function dayOf(seed) {
    const s = String(seed);
    if (!/^20\d{6}$/.test(s)) return null;
    const d = new Date(Date.UTC(+s.slice(0, 4), +s.slice(4, 6) - 1, +s.slice(6, 8)));
    return d.getUTCDate() === +s.slice(6, 8) ? d : null;
  }

  // --- a leaderboard ---------------------------------------------------------------------------
  NM.optimumText = function (o) {
    if (!o) return t("No best possible score is known for this seed yet.");
    return o.proven ? t("Best possible: %(best)s (proven).", { best: o.best })
      : t("Best known: %(best)s; no play can beat %(bound)s.", { best: o.best, bound: o.bound });
  };

  NM.drawLeaderboard = function (box, board, mine) {
    box.innerHTML = "";
    const head = document.createElement("p");
    head.className = "small";
    head.textContent = NM.optimumText(board.optimum) + " " +
      t("Entries on this leaderboard: %(count)s.", { count: NM.number(board.count) });
    box.appendChild(head);
    if (!board.entries.length) {
      const p = document.createElement("p"); p.textContent = t("Nobody yet: be the first."); box.appendChild(p); return;
    }
    const table = document.createElement("table");
    table.className = "leaderboard";
    const cols = ["#", t("name"), t("score"), "%", t("jokers")];
    table.innerHTML = "<thead><tr>" + cols.map(() => "<th></th>").join("") + "</tr></thead><tbody></tbody>";
    table.querySelectorAll("th").forEach((th, i) => { th.textContent = cols[i]; });
    table.querySelectorAll("th")[3].title = t("of the best possible");
    for (const e of board.entries) {
      const tr = document.createElement("tr");
      tr.dataset.entry = e.id;
      if (e.id === mine || (mine instanceof Set && mine.has(e.name.trim().toLowerCase()))) tr.className = "mine";
      const cells = [String(e.rank), e.name, String(e.score), e.percent == null ? "–" : NM.percent(e.percent), String(e.jokers)];
      for (const text of cells) { const td = document.createElement("td"); td.textContent = text; tr.appendChild(td); }
      // the name opens the game as a replay (its record is the proof)
      const a = document.createElement("a");
      a.href = "/replay?entry=" + encodeURIComponent(e.id);
      a.title = t("replay") + " · " + e.verdict;
      a.textContent = e.name;
      tr.children[1].textContent = "";
      tr.children[1].appendChild(a);
      table.querySelector("tbody").appendChild(tr);
    }
    box.appendChild(table);
  };

  // --- the player's history --------------------------------------------------------------------
  NM.history = {
    all() { return stored(HISTORY, []); },
    add(item) {  // one result per game: a reload of the end screen does not count twice
      const list = NM.history.all().filter(h => h.game !== item.game);
      list.push(item);
      keep(HISTORY, list.slice(-1000));
    },
    // the run of daily puzzles played on consecutive days up to today (or yesterday: today's
    // may still be to come)
    streak(list, today) {
      const days = new Set(list.filter(h => h.daily).map(h => h.seed));
      const seedOf = d => d.getUTCFullYear() * 10000 + (d.getUTCMonth() + 1) * 100 + d.getUTCDate();
      const d = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()));
      if (!days.has(seedOf(d))) d.setUTCDate(d.getUTCDate() - 1);
      let n = 0;
      while (days.has(seedOf(d))) { n += 1; d.setUTCDate(d.getUTCDate() - 1); }
      return n;
    },
  };

  // a small chart: each result's score (a bar) against its best possible (a line above it)
  NM.historyChart = function (list) {
    const items = list.slice(-30), w = 300, h = 120;
    const top = Math.max(50, ...items.map(i => Math.max(i.score, i.best || 0)));
    const low = Math.min(0, ...items.map(i => i.score));  // a score below zero is drawn under the axis
    const step = w / Math.max(items.length, 10), y = v => h - 14 - (h - 24) * (v - low) / (top - low);
    let svg = '<svg class="chart" viewBox="0 0 ' + w + " " + h + '" role="img" aria-label="' + esc(t("score against the best possible")) + '">';
    svg += '<line x1="0" x2="' + w + '" y1="' + y(0) + '" y2="' + y(0) + '" class="axis"/>';
    items.forEach((i, k) => {
      const x = k * step + step * 0.15, bw = step * 0.7;
      svg += '<rect class="score" x="' + x + '" y="' + Math.min(y(0), y(i.score)) + '" width="' + bw + '" height="' +
        Math.max(1, Math.abs(y(0) - y(i.score))) + '"><title>' + esc(i.seed + ": " + i.score + (i.best ? " / " + i.best : "")) + "</title></rect>";
      if (i.best) svg += '<line class="best" x1="' + x + '" x2="' + (x + bw) + '" y1="' + y(i.best) + '" y2="' + y(i.best) + '"/>';
    });
    svg += '<text x="2" y="' + (h - 2) + '">' + esc(t("bars: your score · lines: the best possible")) + "</text></svg>";
    return svg;
  };

  // --- the share text ----------------------------------------------------------------------------
  const EMOJI = { y: "🟨", g: "🟩", b: "🟦", r: "🟥", o: "🟧" };
  // the final sheet as emoji, a square per cell (crossed: its colour): the picture, not the moves
  NM.sheetPicture = function (svgBox) {
    const rows = {};
    svgBox.querySelectorAll("rect.cell").forEach(r => {
      const m = /^([A-Z])(\d+)$/.exec(r.dataset.cell || "");
      if (!m) return;
      (rows[m[2]] = rows[m[2]] || []).push([m[1], r.dataset.crossed === "1" ? EMOJI[r.dataset.colour] || "⬛" : "⬜"]);
    });
    return Object.keys(rows).sort((a, b) => a - b)
      .map(k => rows[k].sort((a, b) => a[0].localeCompare(b[0])).map(c => c[1]).join("")).join("\n");
  };

  // the edition's name in the page's language (base.html <meta name="application-name">: the
  // server's catalog, as the header says it; docs/glossary.md "Editions")
  NM.gameName = () => (document.querySelector('meta[name="application-name"]') || {}).content || "Noch mal!";

  NM.shareText = function (s, picture) {
    const k = s.known_best, score = s.scores[0];
    const head = t("%(game)s · puzzle %(seed)s", { game: NM.gameName(), seed: s.seed }) +
      (dayOf(s.seed) ? " (" + NM.date(dayOf(s.seed)) + ")" : "") + (s.open ? " · " + t("all rolls shown") : "");
    const values = { score, verdict: s.verdict || s.rating, best: k && k.best, percent: k && NM.percent(score / k.best) };
    const line = !k ? t("Score %(score)s · %(verdict)s", values)
      : k.proven ? t("Score %(score)s of %(best)s possible (%(percent)s) · %(verdict)s", values)
        : t("Score %(score)s; best known %(best)s (%(percent)s) · %(verdict)s", values);
    return [head, line, picture, window.location.origin + "/puzzle/" + s.seed].join("\n");
  };

  async function share(text) {
    if (navigator.share) {
      try { await navigator.share({ text }); return t("Shared."); }
      catch (e) { if (e.name === "AbortError") return ""; }
    }
    try { await navigator.clipboard.writeText(text); return t("Copied: paste it anywhere."); }
    catch (e) {  // no clipboard API (plain http on a phone): the old way, from the text box
      const box = $("share-text"); box.select();
      return document.execCommand("copy") ? t("Copied: paste it anywhere.") : t("Select the text and copy it.");
    }
  }

  // --- the puzzle's end screen (game.js says when: the event nm:over, or NM.over where the game
  // ended before this script came: the puzzle page loads it async, docs/web.md "Page load") -------
  function tokenKey(seed, open, name) { return seed + ":" + (open ? 1 : 0) + ":" + name.trim().toLowerCase(); }

  document.addEventListener("nm:over", ev => endScreen(ev.detail));
  if (NM.over) endScreen(NM.over);

  function endScreen(s) {
    if (!$("lb-form") || s.mode !== "solo") return;
    const k = s.known_best;
    NM.history.add({ seed: s.seed, daily: !!dayOf(s.seed), open: !!s.open, score: s.scores[0],
      best: k ? k.best : null, proven: k ? k.proven : null, game: s.id, at: new Date().toISOString() });
    const text = NM.shareText(s, NM.sheetPicture($("sheets")));
    $("share-text").value = text;
    $("share-text").rows = text.split("\n").length + 2;
    $("share").onclick = async () => { $("share-said").textContent = await share(text); };
    $("lb-link").href = "/puzzle/" + s.seed + "/leaderboard" + (s.open ? "?open=1" : "");
    $("lb-name").value = stored(NAME, "");
    $("lb-form").onsubmit = async e => {
      e.preventDefault();
      const name = $("lb-name").value, tokens = stored(TOKENS, {});
      const said = $("lb-said");
      said.className = "message";
      said.textContent = t("Checking your game…");
      try {
        const record = await NM.api("GET", "/api/games/" + s.id + "/record");
        const res = await NM.api("POST", "/api/puzzles/" + s.seed + "/leaderboard",
          { name, record, token: tokens[tokenKey(s.seed, s.open, name)] || null });
        if (res.token) { tokens[tokenKey(s.seed, s.open, name)] = res.token; keep(TOKENS, tokens); }
        keep(NAME, name);
        said.className = "message good";
        said.textContent = res.stored ? t("Verified and ranked: #%(rank)s of %(count)s.", { rank: res.entry.rank, count: res.leaderboard.count })
          : t("Your earlier game stays: it ranks higher (#%(rank)s).", { rank: res.entry.rank });
        NM.drawLeaderboard($("lb-board"), res.leaderboard, res.entry.id);
      } catch (err) { said.className = "message bad"; said.textContent = err.message; }
    };
  }

  // --- the leaderboard page --------------------------------------------------------------------
  const page = $("leaderboard");
  if (page) {
    const open = new URL(window.location.href).searchParams.get("open") === "1";
    // the names this browser submitted under (it holds their tokens) are marked as the player's
    const prefix = tokenKey(page.dataset.seed, open, "");
    const mine = new Set(Object.keys(stored(TOKENS, {})).filter(k => k.startsWith(prefix)).map(k => k.slice(prefix.length)));
    Promise.all([NM.api("GET", "/api/puzzles/" + page.dataset.seed + "/leaderboard?limit=100" + (open ? "&open=true" : "")), NM.i18nReady])
      .then(([board]) => NM.drawLeaderboard($("lb-board"), board, mine))
      .catch(e => NM.say(e.message, "bad"));
  }

  // --- the history page ------------------------------------------------------------------------
  const mine = $("history");
  if (mine) NM.i18nReady.then(() => {
    const list = NM.history.all();
    const scores = list.map(h => h.score);
    const figures = [
      [t("daily streak"), NM.number(NM.history.streak(list, new Date()))],
      [t("puzzles finished"), NM.number(list.length)],
      [t("mean score"), list.length ? NM.number(scores.reduce((a, b) => a + b, 0) / list.length, 1) : "–"],
      [t("best score"), list.length ? NM.number(Math.max(...scores)) : "–"]];
    $("figures").innerHTML = figures.map(() => "<div><span class='big'></span><span class='small'></span></div>").join("");
    $("figures").querySelectorAll("div").forEach((d, i) => {
      d.dataset.figure = ["streak", "puzzles", "mean", "best"][i];
      d.children[0].textContent = figures[i][1]; d.children[1].textContent = figures[i][0];
    });
    $("chart").innerHTML = list.length ? NM.historyChart(list) : "";
    const rows = $("results");
    list.slice().reverse().forEach(h => {
      const li = document.createElement("li");
      li.textContent = (h.daily ? NM.date(dayOf(h.seed)) : t("seed %(seed)s", { seed: h.seed })) + ": " + h.score +
        (h.best ? " / " + h.best : "") + (h.open ? " · " + t("all rolls shown") : "");
      rows.appendChild(li);
    });
    $("empty").classList.toggle("hidden", list.length > 0);
    $("export").onclick = () => {
      const a = document.createElement("a");
      a.href = URL.createObjectURL(new Blob([JSON.stringify({ format: "nochmal-history/1", results: list }, null, 1)], { type: "application/json" }));
      a.download = "nochmal-history.json";
      a.click();
    };
  });

  function esc(s) { const d = document.createElement("div"); d.textContent = s; return d.innerHTML; }
})();
