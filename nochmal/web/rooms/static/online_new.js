// A new online game (docs/rooms.md, online games): the form's set-up to POST /api/rooms/online,
// then the room's page; the creator's token is kept with the room's other keys.
"use strict";
(function () {
  const $ = id => document.getElementById(id);
  const form = $("online-form");
  const items = () => Array.from(document.querySelectorAll("#seat-specs li"));
  const shown = () => items().filter(li => !li.hidden);

  function mode() { return form.querySelector("input[name=mode]:checked").value; }

  function update() {
    const mission = mode() === "mission";
    document.querySelectorAll(".mission-only").forEach(el => { el.hidden = !mission; });
    document.querySelectorAll(".competitive-only").forEach(el => { el.hidden = mission; });
    const most = mission ? 4 : 6;
    items().forEach((li, k) => { if (k >= most) li.hidden = true; });
    $("seat-more").disabled = shown().length >= most;
    $("seat-less").disabled = shown().length <= 1;
  }

  form.querySelectorAll("input[name=mode]").forEach(r => r.addEventListener("change", update));
  $("seat-more").addEventListener("click", () => { const next = items().find(li => li.hidden); if (next) next.hidden = false; update(); });
  $("seat-less").addEventListener("click", () => { const list = shown(); if (list.length > 1) list[list.length - 1].hidden = true; update(); });

  form.addEventListener("submit", async ev => {
    ev.preventDefault();
    const body = { seats: shown().map(li => li.querySelector("select").value) };
    if (mode() === "mission") { body.mission = $("mission").value; body.difficulty = $("difficulty").value; }
    else { body.mode = "competitive"; body.board = $("board").value; }
    body.quiet = { after: $("quiet").value, seconds: Number($("quiet-seconds").value) };
    try {
      const made = await NM.api("POST", "/api/rooms/online", body);
      localStorage.setItem("nochmal-online-creator-" + made.id, made.creator_token);
      window.location.assign("/o/" + made.id);
    } catch (e) { $("create-error").textContent = e.message; }
  });
  update();
})();
