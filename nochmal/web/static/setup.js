// The new-game form of /play: seats, mission, board, seed; starts the game via the API.
"use strict";
(function () {
  const seats = document.getElementById("seats");
  const tpl = document.getElementById("seat-row");
  function addSeat(kind) {
    if (seats.children.length >= 6) { NM.say(t("a game has at most 6 seats"), "bad"); return; }
    const row = tpl.content.firstElementChild.cloneNode(true);
    row.querySelector(".seat-kind").value = kind;
    row.querySelector(".remove").addEventListener("click", () => { if (seats.children.length > 1) row.remove(); });
    const name = row.querySelector(".seat-name");
    row.querySelector(".seat-kind").addEventListener("change", e => { name.classList.toggle("hidden", e.target.value !== "human"); });
    name.classList.toggle("hidden", kind !== "human");
    seats.appendChild(row);
  }
  addSeat("human");
  addSeat("greedy");
  document.getElementById("add-seat").addEventListener("click", () => addSeat("greedy"));
  document.getElementById("setup").addEventListener("submit", async ev => {
    ev.preventDefault();
    const list = [...seats.children].map(row => {
      const kind = row.querySelector(".seat-kind").value;
      const name = row.querySelector(".seat-name").value.trim();
      return kind === "human" && name ? "human:" + name : kind;
    });
    const body = { kind: "play", seats: list, board: document.getElementById("board").value,
      difficulty: document.getElementById("difficulty").value };
    const mission = document.getElementById("mission").value;
    if (mission) body.mission = mission;
    const seed = document.getElementById("seed").value.trim();
    if (seed) {
      if (!/^\d+$/.test(seed)) { NM.say(t("seed: a whole number, 0 or more"), "bad"); return; }
      body.seed = Number(seed);
    }
    try {
      const state = await NM.api("POST", "/api/games", body);
      window.location.href = "/play/" + state.id;
    } catch (e) { NM.say(e.message, "bad"); }  // the message names what is wrong, in the page's language
  });
})();
