// Shared helpers of the nochmal pages: the JSON API, dice buttons, sheet drawing.
"use strict";
const NM = {};

NM.api = async function (method, path, body) {
  const opts = { method, headers: {} };
  if (body instanceof FormData) opts.body = body;
  else if (body !== undefined) { opts.body = JSON.stringify(body); opts.headers["Content-Type"] = "application/json"; }
  const resp = await fetch(path, opts);
  const type = resp.headers.get("content-type") || "";
  const data = type.includes("json") ? await resp.json() : await resp.text();
  if (!resp.ok) {
    const err = new Error((data && data.error) || ("HTTP " + resp.status));
    err.field = data && data.field; err.status = resp.status;
    throw err;
  }
  return data;
};

NM.say = function (text, kind) {
  const el = document.getElementById("message");
  if (!el) return;
  el.textContent = text || "";
  el.className = "message" + (kind ? " " + kind : "");
};

NM.dieButton = function (kind, face, usable) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "die " + kind;
  b.dataset.kind = kind;
  b.dataset.face = face;
  if (kind === "colour") b.classList.add(face === "x" ? "joker" : "c-" + face);
  else if (face === "?") b.classList.add("joker");
  b.textContent = kind === "colour" ? (face === "x" ? "✱" : "") : face;
  b.title = kind === "colour" ? (face === "x" ? "colour joker" : "colour " + face) : (face === "?" ? "number joker" : "number " + face);
  b.setAttribute("aria-label", b.title);
  if (!usable) { b.classList.add("unusable"); b.disabled = true; }
  return b;
};

// Which dice of the roll the deciding player may use: a multiset match of available faces.
NM.usable = function (faces, available) {
  const left = {};
  (available || faces).forEach(f => { left[f] = (left[f] || 0) + 1; });
  return faces.map(f => { if (left[f] > 0) { left[f] -= 1; return true; } return false; });
};

NM.rollText = function (r) { return r.colours.join("") + "/" + r.numbers.join(""); };

NM.sheetBox = function (svg, cls) {
  const box = document.createElement("div");
  box.className = "sheet-box" + (cls ? " " + cls : "");
  box.innerHTML = svg;
  return box;
};
