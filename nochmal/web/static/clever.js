// The /clever page (docs/clever.md "The web page"): a Clever 4ever solo game against a seed.
// Everything comes from /api/clever (nochmal/web/routers/clever.py): the dice, the legal
// actions with the fields each fills, the sheet as SVG. Tap a die, then an outlined field.
(() => {
  const root = document.getElementById("clever");
  if (!root) return;
  const $ = (id) => document.getElementById(id);
  let view = null, picked = null, asked = 0;

  async function call(url, body) {
    const init = body ? {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)} : {};
    const mine = ++asked;
    const answer = await fetch(url, init);
    const data = await answer.json();
    if (mine !== asked) return null;  // a later request was made meanwhile: its answer is the one shown
    if (!answer.ok) { $("clever-message").textContent = data.error || answer.statusText; return null; }
    $("clever-message").textContent = "";
    return data;
  }

  async function play(action) {
    const next = await call(`/api/clever/games/${view.id}/actions`, {action});
    if (next) show(next);
  }

  function dieButton(die, label, number) {
    const b = document.createElement("button");
    b.className = "die " + (die.startsWith("?") ? "die-bonus" : "die-" + die);
    b.textContent = label;
    b.dataset.die = die;
    b.title = view.names[die] || die;
    b.disabled = !view.choices.some((c) => c.die === die && c.targets.length);
    b.setAttribute("aria-pressed", String(picked === die));
    b.addEventListener("click", () => { picked = picked === die ? null : die; show(view); });
    return b;
  }

  // the phase's words in the page's language (templates/clever.html data-phase-*)
  const phaseName = (phase) => root.dataset["phase" + phase[0].toUpperCase() + phase.slice(1)] || phase;

  function show(next) {
    if (picked && !next.choices.some((c) => c.die === picked)) picked = null;  // the die is gone
    view = next;
    history.replaceState(null, "", `/clever?game=${view.id}`);
    $("clever-status").textContent = view.over ? `${root.dataset.over}: ${view.score} · ${view.rating}`
      : `${root.dataset.round} ${view.round}/${view.rounds} · ${phaseName(view.phase)} · ${view.score} · ${root.dataset.play}`;
    for (const where of ["pool", "tray", "field"]) $("clever-" + where).replaceChildren(
      ...view.dice.filter((d) => d.where === where).map((d) => dieButton(d.die, String(d.number), d.number)));
    const bonuses = [...new Set(view.choices.map((c) => c.die).filter((d) => d && d.startsWith("?")))];
    $("clever-pool").append(...bonuses.map((b) => dieButton(b, view.names[b] || b, null)));
    $("clever-reroll").querySelector("b").textContent = view.left.reroll;
    $("clever-plus").textContent = view.left["plus-one"];
    $("clever-polish").textContent = view.left.polish;
    $("clever-foxes").textContent = view.foxes;
    for (const id of ["clever-reroll", "clever-pass", "clever-done"]) $(id).disabled = !view.legal.includes($(id).dataset.action);
    $("clever-sheet").innerHTML = view.svg;
    const own = picked && view.dice.find((d) => d.die === picked);
    for (const c of view.choices.filter((c) => c.die === picked)) {
      for (const t of c.targets) {
        const el = document.getElementById(t);
        if (el) el.classList.add("legal");
      }
    }
    $("clever-legal").replaceChildren(...view.choices.map((c) => {
      const li = document.createElement("li"), b = document.createElement("button");
      b.textContent = c.label;  // the action in the page's language; the notation is sent
      b.dataset.action = c.action;
      b.addEventListener("click", () => play(c.action));
      li.append(b);
      return li;
    }));
    root.dataset.own = own ? own.number : "";
  }

  $("clever-sheet").addEventListener("click", (event) => {
    const field = event.target.closest(".field.legal");
    if (!field || !picked) return;
    const fits = view.choices.filter((c) => c.die === picked && c.targets.includes(field.id));
    const face = Number(root.dataset.own);
    const choice = fits.find((c) => c.number === face) || fits[0];  // the die's own number before a polished one
    if (choice) play(choice.action);
  });
  for (const id of ["clever-reroll", "clever-pass", "clever-done"]) $(id).addEventListener("click", () => play($(id).dataset.action));
  $("clever-new").addEventListener("submit", async (event) => {
    event.preventDefault();
    const next = await call("/api/clever/games", {seed: Number($("clever-seed").value)});
    if (next) { picked = null; show(next); }
  });

  const gid = new URLSearchParams(location.search).get("game");
  (gid ? call(`/api/clever/games/${encodeURIComponent(gid)}`) : Promise.resolve(null)).then((found) => {
    if (found) show(found); else $("clever-new").requestSubmit();
  });
})();
