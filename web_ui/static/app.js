// Domino table companion dashboard: renders the state pushed over /events and posts commands.
// Every change goes through /api/... (the server's Session); this file only displays and asks.
"use strict";

const $ = (sel) => document.querySelector(sel);
const csrf = document.querySelector('meta[name="csrf-token"]').content;
let state = JSON.parse($("#initial-state").textContent);
let camera = JSON.parse($("#initial-camera").textContent);
let controller = document.body.dataset.controller === "yes";
let games = [];
const RETRY_CLOSED_MS = 3000;

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

function toast(msg, bad = false) {
  const t = $("#toast");
  t.textContent = msg;
  t.className = bad ? "bad" : "good";
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, bad ? 8000 : 2500);
}

async function post(path, body = {}) {
  let resp;
  try {
    resp = await fetch(path, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify(body),
    });
  } catch (err) {
    toast("Not sent: the companion cannot be reached (" + err.message + "). Nothing was changed.", true);
    return null;
  }
  let data = {};
  try { data = await resp.json(); } catch (err) { data = { error: resp.status + " " + resp.statusText }; }
  if (!resp.ok) { toast(data.error || ("refused: " + resp.status), true); return null; }
  if (data.status === "illegal") toast("Not legal: " + data.alert.message, true);
  else if (data.status === "confirm") toast("Please confirm the reading");
  return data;
}

// ---- rendering ----------------------------------------------------------------------------
function render() {
  const s = state;
  const has = !!s.game;
  $("#nogame").hidden = has;
  $("#title").textContent = has ? `${s.title}: ${s.players.join(", ")}` : "Domino table companion";
  $("#scoreboard").hidden = !has;
  $("#grid-card").hidden = !has;
  $("#history-card").hidden = !has;
  $("#entry-card").hidden = !has || s.finished || !controller;
  $("#rematch-btn").disabled = !has;
  $("#game-card").hidden = !controller;
  $("#undo-btn").disabled = !controller || !has || !s.moves;
  if (!has) { $("#alerts").hidden = true; $("#houses-card").hidden = true; $("#view-card").hidden = true; return; }
  $("#round-label").textContent = `round ${s.round}` + (s.finished ? " · match over" : s.round_over ? " · round over" : "");
  renderPlayers(s);
  renderAlerts(s);
  renderGrid(s);
  renderHistory(s);
  renderView(s);
  renderHouses(s);
  renderEntryForms(s);
}

function scoreOf(s, p) { return s.scores[p] ?? 0; }

function renderPlayers(s) {
  const box = $("#players");
  box.replaceChildren();
  for (const p of s.players) {
    const need = typeof s.target === "number" ? Math.max(0, s.target - scoreOf(s, p)) : null;
    const cnt = s.hand_counts ? s.hand_counts[p] : null;
    box.append(el("div", { class: "player" + (s.turn === p ? " turn" : ""), "data-player": p },
      el("div", { class: "pname" }, p, s.turn === p ? el("span", { class: "turn-tag" }, "to play") : null),
      el("div", { class: "pscore" }, scoreOf(s, p)),
      need !== null ? el("div", { class: "need" }, need === 0 ? "reached the target" : `needs ${need} to reach ${s.target}`) : null,
      cnt !== null && cnt !== undefined ? el("div", { class: "muted" }, `${cnt} tile${cnt === 1 ? "" : "s"} in hand`) : null));
  }
  if (s.teams) {
    box.append(el("div", { class: "teams muted" }, s.teams.map((t) => `${t.players.join(" & ")}: ${t.score}`).join(" · ")));
  }
  const w = $("#winner");
  if (s.finished) {
    w.hidden = false;
    w.textContent = s.winner ? `Winner: ${Array.isArray(s.winner) ? s.winner.join(" and ") : s.winner}` : "The match is over.";
  } else w.hidden = true;
  const last = s.history.length ? s.history[s.history.length - 1] : null;
  $("#last-move").textContent = last ? describe(last) : "—";
}

function describe(h) {
  const ev = (h.events || []).filter((e) => e.points || e.event !== "score")
    .map((e) => `${e.event}${e.player ? " " + e.player : ""}${e.points ? (e.points > 0 ? " +" : " ") + e.points : ""}${e.detail ? " (" + e.detail + ")" : ""}`);
  const src = h.entry && h.entry.source && h.entry.source !== "hand" ? ` [${h.entry.source}]` : "";
  return h.text + src + (ev.length ? " — " + ev.join("; ") : "");
}

function renderAlerts(s) {
  const list = $("#alert-list");
  $("#alerts").hidden = !s.alerts.length;
  list.replaceChildren();
  for (const a of s.alerts) {
    const box = el("div", { class: "alert alert-" + a.kind, "data-alert": a.id },
      el("p", { class: "amsg" }, a.kind === "illegal" ? "Illegal placement: " : "Uncertain reading: ",
        a.legal && a.legal.length ? a.message.split("; legal: ")[0] : a.message));
    if (a.legal && a.legal.length) {
      box.append(el("p", { class: "legal" }, "Legal now: " + a.legal.slice(0, 8).join(", ") + (a.legal.length > 8 ? ` (and ${a.legal.length - 8} more)` : "")));
    }
    const row = el("div", { class: "row" });
    if (controller) {
      if (a.kind === "confirm") row.append(el("button", { class: "btn good", type: "button", onclick: () => post(`/api/alerts/${a.id}/confirm`) }, "Confirm"));
      for (const alt of a.alternatives || []) {
        row.append(el("button", { class: "btn", type: "button", onclick: () => post(`/api/alerts/${a.id}/correct`, { entry: alt }) }, "It was " + entryText(alt)));
      }
      row.append(el("button", { class: "btn", type: "button", onclick: () => openCorrect(box, a) }, "Correct…"));
      row.append(el("button", { class: "btn", type: "button", onclick: () => post(`/api/alerts/${a.id}/dismiss`) }, "Dismiss"));
    } else row.append(el("span", { class: "muted" }, "A controller must confirm, correct or dismiss this."));
    box.append(row);
    list.append(box);
  }
}

function entryText(e) {
  if (e.play) return `${e.player || "?"} plays ${e.play}${e.on ? " on " + e.on : ""}`;
  return JSON.stringify(e);
}

function cleanEntry(e) {
  const out = {};
  for (const [k, v] of Object.entries(e)) if (!["source", "reading", "t", "confidence", "alternatives", "seq"].includes(k)) out[k] = v;
  return out;
}

function openCorrect(box, a) {
  if (box.querySelector("form")) return;
  const entry = cleanEntry(a.entry);
  let form;
  if ("play" in entry) {
    form = el("form", { class: "row correct-form" },
      el("label", {}, "Player ", playerSelect(entry.player)),
      el("label", {}, "Tile ", el("input", { name: "play", value: entry.play, size: 5, required: true })),
      el("label", {}, "On ", el("input", { name: "on", value: entry.on || "", size: 6 })),
      el("button", { class: "btn good", type: "submit" }, "Save correction"));
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const f = new FormData(form);
      const fixed = { ...entry, player: f.get("player"), play: f.get("play").trim() };
      if (f.get("on").trim()) fixed.on = f.get("on").trim(); else delete fixed.on;
      post(`/api/alerts/${a.id}/correct`, { entry: fixed });
    });
  } else {
    const ta = el("textarea", { name: "entry", rows: 2, cols: 40 }, JSON.stringify(entry));
    form = el("form", { class: "row correct-form" }, ta, el("button", { class: "btn good", type: "submit" }, "Save correction"));
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      let fixed;
      try { fixed = JSON.parse(ta.value); } catch (err) { toast("The correction must be a JSON entry: " + err.message, true); return; }
      post(`/api/alerts/${a.id}/correct`, { entry: fixed });
    });
  }
  box.append(form);
}

function playerSelect(selected, withNone = false) {
  const sel = el("select", { name: "player", class: "player-select" });
  if (withNone) sel.append(el("option", { value: "" }, "(none)"));
  for (const p of state.players || []) sel.append(el("option", { value: p, selected: p === selected }, p));
  return sel;
}

function renderGrid(s) {
  const thead = $("#grid thead"), tbody = $("#grid tbody");
  thead.replaceChildren(el("tr", {}, el("th", {}, "Round"), s.players.map((p) => el("th", {}, p))));
  tbody.replaceChildren();
  const totals = Object.fromEntries(s.players.map((p) => [p, 0]));
  s.round_scores.forEach((rs, i) => {
    tbody.append(el("tr", {}, el("td", {}, i + 1), s.players.map((p) => {
      totals[p] += rs[p] || 0;
      return el("td", {}, el("span", { class: "rs" }, (rs[p] || 0)), el("span", { class: "tot" }, totals[p]));
    })));
  });
  tbody.append(el("tr", { class: "now" }, el("td", {}, s.finished ? "final" : "now"), s.players.map((p) => el("td", {}, el("strong", {}, scoreOf(s, p))))));
}

function renderHistory(s) {
  const ol = $("#history");
  ol.replaceChildren();
  const items = s.history.slice().reverse();
  ol.setAttribute("start", String(s.moves));
  for (const h of items) ol.append(el("li", {}, describe(h)));
}

function renderView(s) {
  const v = s.view;
  const card = $("#view-card");
  if (!v || typeof v !== "object" || !Object.keys(v).length) { card.hidden = true; return; }
  card.hidden = false;
  const dl = $("#view");
  dl.replaceChildren();
  for (const [k, val] of Object.entries(v)) {
    dl.append(el("dt", {}, k.replace(/_/g, " ")), el("dd", {}, typeof val === "object" ? JSON.stringify(val) : String(val)));
  }
}

// A house is ten strokes of 5 points (50 points): two walls, floor, ceiling, two roof lines,
// two diagonals, the door, the chimney.
const HOUSE_STROKES = [
  [5, 45, 5, 20], [35, 45, 35, 20], [5, 45, 35, 45], [5, 20, 35, 20], [5, 20, 20, 5],
  [20, 5, 35, 20], [5, 45, 35, 20], [5, 20, 35, 45], [17, 45, 17, 33], [28, 12, 28, 4],
];

function houseSvg(strokes) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 40 50");
  svg.setAttribute("class", "house");
  for (const [x1, y1, x2, y2] of HOUSE_STROKES.slice(0, strokes)) {
    const l = document.createElementNS(ns, "line");
    Object.entries({ x1, y1, x2, y2 }).forEach(([k, v]) => l.setAttribute(k, v));
    svg.append(l);
  }
  return svg;
}

function renderHouses(s) {
  const card = $("#houses-card");
  if (s.game !== "allfives") { card.hidden = true; return; }
  card.hidden = false;
  const box = $("#houses");
  box.replaceChildren();
  for (const p of s.players) {
    const score = scoreOf(s, p);
    const full = Math.floor(score / 50), strokes = Math.floor((score % 50) / 5), rest = score % 5;
    const row = el("div", { class: "house-row", "data-player": p }, el("span", { class: "pname" }, p));
    for (let i = 0; i < full; i++) row.append(houseSvg(10));
    if (strokes) row.append(houseSvg(strokes));
    row.append(el("span", { class: "muted" }, `${full} house${full === 1 ? "" : "s"}, ${strokes} stroke${strokes === 1 ? "" : "s"}${rest ? ` + ${rest}` : ""} = ${score}`));
    box.append(row);
  }
}

function renderEntryForms(s) {
  for (const sel of document.querySelectorAll("#play-form .player-select, #entry-form .player-select")) {
    const keep = sel.value;
    const none = sel.closest("#entry-form") !== null;
    sel.replaceChildren(...(none ? [el("option", { value: "" }, "(none)")] : []),
      ...s.players.map((p) => el("option", { value: p }, p)));
    sel.value = s.players.includes(keep) ? keep : (s.turn || s.players[0]);
  }
  const hands = $("#end-round-hands");
  if (hands.dataset.players !== s.players.join(",")) {
    hands.dataset.players = s.players.join(",");
    hands.replaceChildren(...s.players.map((p) => el("label", {}, p + " ", el("input", { name: p, placeholder: "3-0 6-5 (empty: none)", size: 14 }))));
  }
  $("#pass-btn").textContent = s.turn ? `${s.turn} passes` : "Pass";
  $("#draw-btn").textContent = s.turn ? `${s.turn} draws 1` : "Draw 1";
  $("#pass-btn").disabled = !s.turn;
  $("#draw-btn").disabled = !s.turn;
}

function renderCamera() {
  const c = camera;
  const b = $("#camera");
  b.className = "banner banner-" + c.state;
  $("#camera-msg").textContent = c.state === "offline" ? "Camera offline: " + c.message : c.message;
  $("#camera-hints").replaceChildren(...(c.hints || []).map((h) => el("li", {}, h)));
  b.hidden = c.state === "ok";
  const d = c.diagnostics;
  $("#diag-card").hidden = !d || !Object.keys(d).length;
  if (d) $("#diag").replaceChildren(...Object.entries(d).flatMap(([k, v]) => [el("dt", {}, k.replace(/_/g, " ")), el("dd", {}, String(v))]));
}

// ---- live updates -------------------------------------------------------------------------
function connect() {
  const es = new EventSource("/events");
  const live = $("#live");
  es.addEventListener("open", () => { live.textContent = "live"; live.className = "pill ok"; });
  es.addEventListener("error", () => {
    live.textContent = "reconnecting…"; live.className = "pill warn";
    // A refused stream (503: too many open, or the server answered with an error) is not
    // retried by the browser itself: try again after a pause.
    if (es.readyState === EventSource.CLOSED) { es.close(); setTimeout(connect, RETRY_CLOSED_MS); }
  });
  es.addEventListener("state", (ev) => {
    const next = JSON.parse(ev.data);
    const newGame = next.generation !== state.generation;
    state = next;
    render();
    if (newGame) loadGames();
  });
  es.addEventListener("camera", (ev) => { camera = JSON.parse(ev.data); renderCamera(); });
}

// ---- forms --------------------------------------------------------------------------------
function parseValue(kind, raw) {
  raw = raw.trim();
  if (kind === "pass") return true;
  if (kind === "remove" || (kind === "draw" && /[\s,]/.test(raw))) return raw.split(/[\s,]+/).filter(Boolean);
  if (/^-?\d+$/.test(raw)) return parseInt(raw, 10);
  return raw;
}

function setupForms() {
  const kinds = $("#entry-kind");
  for (const k of ["bid", "trump", "draw", "pass", "discard", "remove"]) kinds.append(el("option", { value: k }, k));
  $("#undo-btn").addEventListener("click", async () => {
    const r = await post("/api/undo");
    if (r) toast(r.undone ? "Undone: " + r.undone.text : "Nothing to undo");
  });
  $("#pass-btn").addEventListener("click", () => post("/api/submit", { entry: { player: state.turn, pass: true } }));
  $("#draw-btn").addEventListener("click", () => post("/api/submit", { entry: { player: state.turn, draw: 1 } }));
  $("#play-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const f = new FormData(ev.target);
    const entry = { player: f.get("player"), play: f.get("play").trim() };
    if (f.get("on").trim()) entry.on = f.get("on").trim();
    const r = await post("/api/submit", { entry });
    if (r && r.status === "accepted") ev.target.reset();
    renderEntryForms(state);
  });
  $("#entry-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const f = new FormData(ev.target);
    const kind = f.get("kind");
    const entry = { [kind]: parseValue(kind, f.get("value")) };
    if (f.get("player")) entry.player = f.get("player");
    post("/api/submit", { entry });
  });
  $("#end-round-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const hands = {};
    for (const inp of $("#end-round-hands").querySelectorAll("input")) {
      hands[inp.name] = inp.value.split(/[\s,]+/).filter(Boolean);
    }
    post("/api/submit", { entry: { end_round: { hands } } }).then((r) => { if (r && r.status === "accepted") ev.target.reset(); });
  });
  $("#game-select").addEventListener("change", renderOptions);
  $("#new-game-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const game = $("#game-select").value;
    const players = $("#players-input").value.split(",").map((p) => p.trim()).filter(Boolean);
    const options = {};
    for (const inp of $("#options").querySelectorAll("[data-option]")) {
      const name = inp.dataset.option;
      if (inp.type === "checkbox") options[name] = inp.checked;
      else if (inp.type === "number") options[name] = parseInt(inp.value, 10);
      else options[name] = inp.value;
    }
    post("/api/new_game", { game, players, options }).then((r) => { if (r) toast("New game started"); });
  });
  $("#rematch-btn").addEventListener("click", () => post("/api/rematch").then((r) => { if (r) toast("Rematch started"); }));
  // pairing
  const dlg = $("#pair-dialog");
  $("#pair-btn").addEventListener("click", () => dlg.showModal());
  $("#pair-cancel").addEventListener("click", () => dlg.close());
  $("#pair-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const r = await post("/api/pair", { code: $("#pair-code").value.trim() });
    if (r && r.controller) { dlg.close(); toast("Paired: this device can now make changes"); location.reload(); }
  });
  // theme
  const saved = localStorage.getItem("theme");
  if (saved) document.documentElement.dataset.theme = saved;
  $("#theme-btn").addEventListener("click", () => {
    const dark = document.documentElement.dataset.theme ? document.documentElement.dataset.theme === "dark"
      : matchMedia("(prefers-color-scheme: dark)").matches;
    const next = dark ? "light" : "dark";
    document.documentElement.dataset.theme = next;
    localStorage.setItem("theme", next);
  });
  // video: reconnect after the stream ends (server restart, stream time limit)
  const video = $("#video");
  if (video) {
    const reload = () => { video.src = "/video.mjpg?t=" + Date.now(); };
    video.addEventListener("error", () => setTimeout(reload, RETRY_CLOSED_MS));
    // the server ends each video stream after STREAM_MAX_S; open the next one just after
    const maxS = parseFloat(document.body.dataset.streamMaxS || "0");
    if (maxS > 0) setInterval(reload, (maxS + 1) * 1000);
  }
}

function renderOptions() {
  const g = games.find((x) => x.name === $("#game-select").value);
  const box = $("#options");
  box.replaceChildren();
  if (!g) return;
  const cur = state.game === g.name ? state.options : {};
  for (const [name, o] of Object.entries(g.options)) {
    const val = cur[name] ?? o.default;
    let input;
    if (o.choices) {
      input = el("select", { "data-option": name }, o.choices.map((c) => el("option", { value: c, selected: c === val }, String(c))));
    } else if (typeof o.default === "boolean") {
      input = el("input", { type: "checkbox", "data-option": name, checked: !!val });
    } else if (typeof o.default === "number") {
      input = el("input", { type: "number", "data-option": name, value: val, size: 5 });
    } else input = el("input", { "data-option": name, value: val });
    box.append(el("label", { title: o.doc }, name.replace(/_/g, " ") + " ", input));
  }
}

async function loadGames() {
  try {
    const r = await fetch("/api/games");
    if (!r.ok) return;
    const data = await r.json();
    games = data.games;
  } catch (err) { return; }
  const sel = $("#game-select");
  const keep = state.game || sel.value;
  sel.replaceChildren(...games.map((g) => el("option", { value: g.name, selected: g.name === keep }, `${g.title} (${g.min_players}-${g.max_players})`)));
  if (state.players && !$("#players-input").value) $("#players-input").value = state.players.join(", ");
  renderOptions();
}

setupForms();
render();
renderCamera();
if (controller) loadGames();
connect();
