// /rooms: create a room through the API, or open one by its code.
(function () {
  "use strict";
  const form = document.getElementById("create-form");
  const error = document.getElementById("create-error");
  const players = document.getElementById("players");

  function mode() { return form.querySelector("input[name=mode]:checked").value; }

  function showMode() {
    const mission = mode() === "mission";
    document.querySelectorAll(".mission-only").forEach((el) => { el.hidden = !mission; });
    document.querySelectorAll(".competitive-only").forEach((el) => { el.hidden = mission; });
    for (const opt of players.options) { opt.disabled = mission && Number(opt.value) > 4; }
    if (mission && Number(players.value) > 4) players.value = "4";
  }

  function showMission() {
    const id = document.getElementById("mission").value;
    document.querySelectorAll(".mission-notes li").forEach((li) => { li.hidden = li.dataset.mission !== id; });
  }

  form.querySelectorAll("input[name=mode]").forEach((el) => el.addEventListener("change", showMode));
  document.getElementById("mission").addEventListener("change", showMission);
  showMode();

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    error.textContent = "";
    const body = { players: Number(players.value) };
    if (mode() === "mission") {
      body.mission = document.getElementById("mission").value;
      body.difficulty = document.getElementById("difficulty").value;
    } else {
      body.mode = "competitive";
      body.board = document.getElementById("board").value;
    }
    const res = await fetch("/api/rooms", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    const data = await res.json().catch(() => ({}));
    if (res.status !== 201) { error.textContent = data.error || t("could not create the room (%(status)s)", { status: res.status }); return; }
    // this phone made the room: its creator token frees a seat or makes a new link for a lost phone
    try { localStorage.setItem("nochmal-room-creator-" + data.id, data.creator_token); } catch (e) { /* private mode */ }
    window.location.href = "/r/" + data.id;
  });

  // import: the answer's seat tokens are for scripts; a browser takes its seat by the handover link
  function esc(text) {
    return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
  }
  document.getElementById("import-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const err = document.getElementById("import-error"), box = document.getElementById("import-result");
    err.textContent = "";
    box.hidden = true;
    const file = document.getElementById("import-file").files[0];
    if (!file) { err.textContent = t("choose an exported room file first"); return; }
    const type = file.name.toLowerCase().endsWith(".json") ? "application/json" : "application/zip";
    const res = await fetch("/api/rooms/import", { method: "POST", headers: { "Content-Type": type }, body: await file.arrayBuffer() });
    const data = await res.json().catch(() => ({}));
    if (res.status !== 201) { err.textContent = data.error || t("could not import the room (%(status)s)", { status: res.status }); return; }
    try { localStorage.setItem("nochmal-room-creator-" + data.id, data.creator_token); } catch (e) { /* private mode */ }
    // (the message is markup: the room's link in it, its code escaped)
    let html = "<p>" + t("Room %(link)s is ready. Send each player their seat's link (each works once and gives that " +
      "browser the seat):", { link: '<a id="import-room" href="' + esc(data.url) + '">' + esc(data.id) + "</a>" }) +
      '</p><ul class="import-links">';
    for (const s of data.seats) {
      html += '<li><span class="seat-name">' + esc(s.name) + '</span> <a class="handover" data-seat="' + s.seat + '" href="' +
        esc(s.handover_url) + '">' + esc(s.handover_url) + "</a></li>";
    }
    box.innerHTML = html + "</ul>";
    box.hidden = false;
  });

  document.getElementById("join-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    let code = document.getElementById("join-code").value.trim();
    const m = code.match(/\/r\/([a-z0-9]+)/i);  // a pasted link works too
    if (m) code = m[1];
    window.location.href = "/r/" + encodeURIComponent(code.toLowerCase());
  });
})();
