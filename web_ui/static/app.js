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

// a POST in flight: a second tap meanwhile (a double tap, an impatient retry) is not sent, so
// one tap never logs an entry twice
let sending = false;

// A game in progress is left only when the person says so (the server refuses otherwise):
// true to leave it, false when there is none to leave, null when the person said no.
function leaveUnfinished(what) {
  if (!state || !state.game || state.finished || !state.moves) return false;
  return window.confirm(`The game in progress is not finished. Leave it and ${what}? ` +
    "It stays in the database.") ? true : null;
}

async function post(path, body = {}) {
  if (sending) {
    toast("Still sending your previous tap: this one was not sent.");
    return null;
  }
  sending = true;
  try {
    return await send(path, body);
  } finally {
    sending = false;
  }
}

async function send(path, body) {
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
  else if (data.status === "confirm" && data.alert && data.alert.held) toast("Held: it is logged in its turn once the open question is answered");
  else if (data.status === "confirm") toast("Please confirm the reading");
  else if (data.status === "amended") toast("Amended: the scores are recomputed from the whole log");
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
  // Forty-Two in marks mode: the target is marks (marks_to_win), not points
  const marks = !!(s.view && s.view.scoring === "marks");
  for (const p of s.players) {
    const need = typeof s.target === "number" ? Math.max(0, s.target - scoreOf(s, p)) : null;
    const cnt = s.hand_counts ? s.hand_counts[p] : null;
    box.append(el("div", { class: "player" + (s.turn === p ? " turn" : ""), "data-player": p },
      el("div", { class: "pname" }, p, s.turn === p ? el("span", { class: "turn-tag" }, "to play") : null),
      el("div", { class: "pscore" }, scoreOf(s, p)),
      s.view && s.view.lower_is_better ? el("div", { class: "need" }, "penalty pips: lower is better") : null,
      need !== null ? el("div", { class: "need" }, need === 0 ? "reached the target" : `needs ${need}${marks ? " marks" : ""} to reach ${s.target}`) : null,
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

function describe(h, withSource = true) {
  // the entry's text, where it came from unless the caller shows that itself (the history's
  // chip), and what it scored; event names read as words ("extra_turn" -> "extra turn")
  const ev = (h.events || []).filter((e) => e.points || e.event !== "score")
    .map((e) => `${String(e.event).replace(/_/g, " ")}${e.player ? " " + e.player : ""}${e.points ? (e.points > 0 ? " +" : " ") + e.points : ""}${e.detail ? " (" + e.detail + ")" : ""}`);
  const src = withSource && h.entry && h.entry.source && h.entry.source !== "hand" ? ` [${h.entry.source}]` : "";
  return h.text + src + (ev.length ? " — " + ev.join("; ") : "");
}

function renderAlerts(s) {
  const list = $("#alert-list");
  $("#alerts").hidden = !s.alerts.length;
  list.replaceChildren();
  for (const a of s.alerts.filter((x) => !x.waiting)) {
    const box = el("div", { class: "alert alert-" + a.kind, "data-alert": a.id },
      el("p", { class: "amsg" }, ALERT_TITLES[a.kind] || "",
        a.legal && a.legal.length ? a.message.split("; legal: ")[0] : a.message));
    if (a.legal && a.legal.length) {
      box.append(el("p", { class: "legal" }, "Legal now: " + a.legal.slice(0, 8).join(", ") + (a.legal.length > 8 ? ` (and ${a.legal.length - 8} more)` : "")));
    }
    const row = el("div", { class: "row" });
    if (controller && a.kind === "amend" && a.amend) {
      // a logged play the camera now reads as another tile: one tap amends it (the rules may
      // still refuse: the toast says why and the question stays), or keep it as logged
      row.append(alertButton(a, "confirm", "Amend to " + entryText(a.entry), true));
      row.append(alertButton(a, "dismiss", "Keep " + a.amend.was));
    } else if (controller) {
      if (a.kind === "confirm") row.append(alertButton(a, "confirm", "Confirm", true));
      for (const alt of a.alternatives || []) {
        // an answer that also tells what the camera could not see before it (a pass, or
        // another tile in question laid first): one tap logs them all, in that order
        const label = alt.before ? alt.before.map(entryText).join(", then ") + ", then " + entryText(alt) : "It was " + entryText(alt);
        row.append(el("button", { class: "btn", type: "button", onclick: () => post(`/api/alerts/${a.id}/correct`, { entry: alt }) }, label));
      }
      row.append(el("button", { class: "btn", type: "button", onclick: () => openCorrect(box, a) }, "Correct…"));
      row.append(alertButton(a, "dismiss", "Dismiss"));
    } else row.append(el("span", { class: "muted" }, "A controller must confirm, correct or dismiss this."));
    box.append(row);
    list.append(box);
  }
  renderWaiting(list, s.alerts.filter((x) => x.waiting));
}

// Entries that wait for a question above (held, or judged without the plays in question):
// one compact list, in the order seen; each is judged again, and logged in its turn, once
// the questions before it are answered.
function renderWaiting(list, waiting) {
  if (!waiting.length) return;
  const n = waiting.length;
  const box = el("div", { class: "alert alert-waiting" },
    el("p", { class: "amsg" }, `Waiting: ${n} ${n === 1 ? "entry" : "entries"} seen while a question above is open, logged in turn once it is answered`));
  const ul = el("ul", { class: "waiting-list" });
  for (const a of waiting) {
    const li = el("li", { "data-alert": a.id }, el("span", { class: "wtext" }, entryText(a.entry)));
    if (controller) {
      // a held entry the rules take now can be logged at once, as it reads
      if (a.held) li.append(alertButton(a, "confirm", "Log now", true));
      li.append(alertButton(a, "dismiss", "Dismiss"));
    }
    ul.append(li);
  }
  box.append(ul);
  list.append(box);
}

// A button that answers alert ``a`` (confirm or dismiss) with one tap.
function alertButton(a, action, label, good = false) {
  return el("button", { class: good ? "btn good" : "btn", type: "button", onclick: () => post(`/api/alerts/${a.id}/${action}`) }, label);
}

// What each kind of alert is, before its message.
const ALERT_TITLES = { illegal: "Illegal placement: ", confirm: "Uncertain reading: ", amend: "Read again: ", notice: "Notice: " };

function entryText(e) {
  if (e.play) return `${e.player || "?"} plays ${e.play}${e.on ? " on " + e.on : ""}${e.at ? " at " + JSON.stringify(e.at) + " level " + (e.level ?? 0) : ""}`;
  if (e.draw) return `${e.player || "?"} draws ${[].concat(e.draw).join(", ")}`;
  if (e.pass) return `${e.player || "?"} passes`;
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
      return el("td", {}, el("span", { class: "rs", title: "this round" }, (rs[p] || 0)), el("span", { class: "tot", title: "total after it" }, totals[p]));
    })));
  });
  // Chickenfoot: round scores are penalty pips, the lowest total wins
  const penalty = !!(s.view && s.view.lower_is_better);
  const notes = [penalty ? "penalty pips: lower is better" : "", s.round_scores.length ? "each round: its points, then the total after it" : ""].filter(Boolean);
  $("#grid-sub").textContent = notes.length ? `(${notes.join("; ")})` : "";
  const low = Math.min(...s.players.map((p) => scoreOf(s, p)));
  tbody.append(el("tr", { class: "now" }, el("td", {}, s.finished ? "final" : "now"), s.players.map((p) => el("td", { class: penalty && scoreOf(s, p) === low ? "best" : "" },
    el("strong", {}, penalty ? `${scoreOf(s, p)} pips` : scoreOf(s, p)), penalty && scoreOf(s, p) === low ? el("span", { class: "muted" }, " lowest") : null))));
}

let fullHistory = null;  // every entry, when "Show every entry" was tapped

function historyItem(h) {
  const li = el("li", { "data-seq": h.seq, class: h.amended ? "amended" : "" },
    el("span", { class: "htext" }, describe(h, false)), " ", chip(h.source || "hand", "src src-" + (h.source || "hand")));
  if (h.amended) {
    li.append(chip("edited", "edited"));
    const changes = el("ul", { class: "changes muted" }, el("li", {}, `first logged: ${h.original_text || "?"} (${(h.original && h.original.source) || "hand"})`),
      ...(h.amendments || []).map((a) => el("li", {}, `changed to ${a.text} by ${a.source}, ${new Date(a.t * 1000).toLocaleTimeString()}`)));
    li.append(changes);
  }
  if (controller) li.append(el("button", { class: "btn edit", type: "button", onclick: () => openAmend(h) }, "Edit"));
  return li;
}

function renderHistory(s) {
  const ol = $("#history");
  ol.replaceChildren();
  const all = fullHistory && fullHistory.length >= s.history.length ? fullHistory : s.history;
  ol.setAttribute("start", String(s.moves));
  for (const h of all.slice().reverse()) ol.append(historyItem(h));
  $("#history-all").hidden = s.moves <= s.history.length || all.length === s.moves;
}

function openAmend(h) {
  const dlg = $("#amend-dialog");
  const last = state.history.length ? state.history[state.history.length - 1].seq : null;
  const back = h.seq === last ? "the last entry" : "an earlier entry: every entry after it is checked again";
  $("#amend-warning").textContent = `Warning: you are changing ${back}. Scores are recomputed from the whole log. ` +
    "If any later entry no longer fits, nothing is changed and you are told which line breaks. The original stays in the history.";
  $("#amend-now").textContent = h.text + (h.source ? ` (${h.source})` : "");
  $("#amend-entry").value = JSON.stringify(cleanEntry(h.entry));
  $("#amend-changes").replaceChildren(...(h.amended ? [el("li", {}, `first logged: ${h.original_text}`), ...h.amendments.map((a) => el("li", {}, `then ${a.text} (${a.source})`))] : []));
  dlg.dataset.seq = String(h.seq);
  dlg.showModal();
}

// ---- the table, drawn in each game's own terms (state.view, from the game's view()) --------
function halvesOf(text) {
  const raw = String(text);
  return (raw.includes(":") ? raw.split(":")[1] : raw).split("-");
}

function tileEl(text, extra = "", first = null) {
  // "3-5" or "red:3-5": two halves with their numbers; a set colour shows as the tile's edge.
  // ``first``: the number to show first (the end that touches the tile before it in a line)
  const raw = String(text);
  const colour = raw.includes(":") ? raw.split(":")[0] : null;
  let [a, b] = halvesOf(raw);
  if (first !== null && String(b) === String(first) && a !== b) [a, b] = [b, a];
  const t = el("span", { class: "tile" + (a === b ? " double" : "") + (extra ? " " + extra : ""), "data-tile": raw, title: raw },
    el("span", { class: "half" }, a), el("span", { class: "half" }, b));
  if (colour) { t.classList.add("coloured"); t.style.setProperty("--set", colour); }
  return t;
}

function chip(text, cls = "") { return el("span", { class: "chip " + cls }, text); }

function facts(pairs) {
  // [label, value] pairs as a definition list; null values left out
  const dl = el("dl", { class: "kv" });
  for (const [k, v] of pairs) if (v !== null && v !== undefined && v !== "") dl.append(el("dt", {}, k), el("dd", {}, v));
  return dl;
}

function renderLine(v, s) {
  const box = el("div", { class: "line-view" });
  const centre = v.spinner || v.hub || null;
  const ends = v.open_ends.slice();
  if (v.spinner_open && Array.isArray(v.spinner_open)) ends.push(...v.spinner_open);
  else if (typeof v.spinner_open === "number") ends.push(v.spinner_open);
  const head = el("div", { class: "row line-head" });
  if (centre) head.append(el("span", { class: "centre" }, el("span", { class: "muted" }, s.game === "chickenfoot" ? "centre " : "spinner "), tileEl(centre, "big")));
  head.append(el("span", { class: "ends" }, "Open ends: ", ends.length ? ends.map((n) => chip(n, "end")) : chip("none")));
  if (typeof v.count === "number") {
    head.append(el("span", { class: "count" + (v.scores_now ? " scores" : ""), id: "open-count" },
      `count ${v.count}`, v.scores_now ? " · scores now" : " · no score"));
  }
  box.append(head);
  if (v.must_complete) {
    const m = v.must_complete;
    box.append(el("p", { class: "must" }, `${m.centre ? "The centre double" : "The chickenfoot"} ${m.double} needs ${m.toes_left} more toe${m.toes_left === 1 ? "" : "s"} before any other play`));
  }
  if (v.spell) box.append(el("p", { class: "must" }, `Spell: the next tile goes on the 13 of ${v.spell.tile} and is a 13 or a double (${v.spell.caster} is immune)`));
  const arms = el("ol", { class: "arms" });
  const skip = centre ? 1 : 0;
  v.arms.forEach((arm) => {
    const fromCentre = arm.tiles[0] === centre;
    const tiles = arm.tiles.slice(fromCentre ? skip : 0);
    // each tile shown with the number it matched first, so the chain reads end to end
    let touching = fromCentre ? halvesOf(centre)[0] : null;
    const shown = tiles.map((t) => {
      const [a, b] = halvesOf(t);
      const e = tileEl(t, "", touching);
      if (touching !== null) touching = a === b ? a : (String(a) === String(touching) ? b : (String(b) === String(touching) ? a : null));
      return e;
    });
    // a chickenfoot double without a toe yet: its arm waits for toes carrying arm.open
    const waits = typeof arm.toes_left === "number" ? ` (${arm.toes_left} toe${arm.toes_left === 1 ? "" : "s"} to go)` : "";
    arms.append(el("li", { class: "arm" }, el("span", { class: "chain" }, shown),
      el("span", { class: "open" }, "→ ", chip(arm.open, "end"), waits)));
  });
  if (!v.arms.length) arms.append(el("li", { class: "muted" }, v.table.length ? "no arm yet" : "no tile on the table yet"));
  box.append(arms);
  const extra = [["tiles on the table", v.table.length], ["boneyard", v.boneyard === null ? "not known (no deal logged)" : v.boneyard]];
  if (v.trains_max) extra.push(["trains", `${v.trains} of ${v.trains_max}`], ["direction", v.direction],
    ["next player misses a turn", v.skip_pending ? "yes" : null], ["still to draw for a 15", v.penalty_draws.length ? v.penalty_draws.join(", ") : null]);
  if (v.toes) extra.push(["feet", v.toes.filter((f) => !f.centre).map((f) => `${f.double}: ${f.toes.length}/3 toes`).join(" · ") || null]);
  if (v.rounds) extra.push(["round", `${v.round} of ${v.rounds} (penalty pips: lower is better)`]);
  box.append(facts(extra));
  return box;
}

function renderTricks(v, s) {
  const box = el("div", { class: "tricks-view" });
  const phaseText = { bid: "bidding", trump: "naming trump", discard: "discarding (widow)", play: `trick ${v.trick_no} of ${v.hand_tricks}`, over: "hand over" }[v.phase] || v.phase;
  box.append(el("div", { class: "row" }, chip(phaseText, "phase"),
    v.bidder ? chip(`${v.bidder} bid ${v.bid === 21 && s.game === "moon" ? "21 (shoot the moon)" : v.bid}${v.bid_marks ? ` (${v.bid_marks} mark${v.bid_marks === 1 ? "" : "s"})` : ""}`, "bid") : null,
    v.trump !== null ? chip(`trump: ${v.trump}`, "trump") : null,
    v.to_act ? el("span", { class: "muted" }, `${v.to_act} to act`) : null));
  box.append(el("p", { class: "bids" }, "Bids: ", v.bids.length ? v.bids.map((b) => chip(`${b.player} ${b.bid}`, b.player === v.bidder ? "bid" : "")) : el("span", { class: "muted" }, "none yet"), ` (${v.shuffler} shuffled)`));
  if (v.reneges && v.reneges.length) box.append(renegeWarnings(v.reneges));
  const trick = el("div", { class: "trick", id: "trick" });
  if (v.trick.length) {
    v.trick.forEach((p, i) => trick.append(el("div", { class: "played" }, el("div", { class: "muted" }, p.player + (i === 0 ? " led" : "")), tileEl(p.tile, "big"))));
    trick.append(el("div", { class: "muted led" }, `led: ${v.led_suit}`));
  } else trick.append(el("span", { class: "muted" }, v.phase === "play" ? "waiting for the lead" : "no trick in play"));
  box.append(trick);
  if (!v.trick.length && v.last_trick) box.append(lastTrick(v.last_trick, v.taken_unit === "points"));
  // Forty-Two: a trick's points are 1 for the trick plus the count dominoes in it
  const pointsHead = s.game === "fortytwo" ? el("th", { title: "1 per trick plus the count dominoes (5-5, 4-6: 10; 5-0, 4-1, 3-2: 5)" }, "Points") : el("th", {}, "Points");
  const t = el("table", { class: "won" }, el("thead", {}, el("tr", {}, el("th", {}, s.game === "fortytwo" ? "Team" : "Player"), el("th", {}, "Tricks"), pointsHead)));
  const body = el("tbody");
  for (const side of v.sides) body.append(el("tr", { class: side.bidding ? "bidding" : "" }, el("td", {}, side.players.join(" & ") + (side.bidding ? " (bidder)" : "")), el("td", {}, side.tricks), el("td", {}, side.points)));
  t.append(body);
  box.append(t);
  const more = [["tricks played", `${v.tricks_played} of ${v.hand_tricks}`]];
  if (v.scoring) more.push(["scoring", `${v.scoring}, ${v.goal} to win`], ["match", v.team_scores.join(" : ")]);
  if (v.needs !== undefined && v.needs !== null) more.push(["bidder needs", `${v.needs} tricks`]);
  if (v.discarded) more.push(["discarded", v.discarded]);
  box.append(facts(more));
  return box;
}

function renderRow(v) {
  const box = el("div", { class: "row-view" });
  const removable = new Set(v.removals.flat());
  box.append(el("div", { class: "castle-row", id: "castle-row" }, v.row.length ? v.row.map((t) => tileEl(t, removable.has(t) ? "removable" : "")) : el("span", { class: "muted" }, "the row is empty")));
  if (v.must_remove) box.append(el("p", { class: "must" }, "A removal is due: ", v.removals.map((r) => chip(r.join(" "), "end"))));
  box.append(facts([["tiles in the row", v.row.length], ["pile", v.pile], ["removed", v.removed.length],
    ["next draw", v.draw_next ? `${v.draw_next} tile${v.draw_next === 1 ? "" : "s"}` : null],
    ["a win needs", `at most ${v.win_limit} tiles left`], ["won as it stands", v.won_now ? "yes" : "no"]]));
  return box;
}

function renderLayouts(v) {
  const box = el("div", { class: "layouts-view" });
  for (const [p, stacks] of Object.entries(v.layouts)) {
    const lay = el("div", { class: "layout", "data-player": p }, el("div", { class: "pname" }, `${p}'s layout `, chip(v.colours[p], "set"), el("span", { class: "muted" }, ` · round total now ${v.totals[p]}`)));
    const row = el("div", { class: "stacks" });
    stacks.forEach((st) => {
      const col = el("div", { class: "stack", title: `level ${st.level}` });
      st.tiles.slice().reverse().forEach((t, i) => col.append(tileEl(t, i === 0 ? "top" : "under")));
      col.append(el("div", { class: "muted lvl" }, `L${st.level}`));
      row.append(col);
    });
    if (!stacks.length) row.append(el("span", { class: "muted" }, "not laid out yet"));
    lay.append(row);
    box.append(lay);
  }
  return box;
}

function renderGridView(v) {
  const box = el("div", { class: "grid-view" });
  if (!v.bounds) { box.append(el("p", { class: "muted" }, "no tile on the table yet")); return box; }
  const [x0, y0, x1, y1] = v.bounds;
  const board = el("div", { class: "board", id: "board" });
  board.style.gridTemplateColumns = `repeat(${x1 - x0 + 1}, minmax(22px, 34px))`;
  const at = new Map(v.cells.map((c) => [`${c.x},${c.y}`, c]));
  const ends = new Map(v.ends.map((e) => [`${e.x},${e.y}`, e]));
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const c = at.get(`${x},${y}`);
      if (!c) { board.append(el("div", { class: "cell empty" })); continue; }
      const e = ends.get(`${x},${y}`);
      // the two halves of one top tile are drawn joined
      const same = (dx, dy) => { const n = at.get(`${x + dx},${y + dy}`); return n && n.tile === c.tile && n.level === c.level; };
      const joins = [same(1, 0) ? "join-r" : "", same(-1, 0) ? "join-l" : "", same(0, 1) ? "join-d" : "", same(0, -1) ? "join-u" : ""];
      const cls = ["cell", `lv${Math.min(c.level, 4)}`, c.root ? "root" : "", e ? (e.capped ? "capped" : "open-end") : "", ...joins].join(" ");
      board.append(el("div", { class: cls, title: `${c.tile} · level ${c.level}${c.root ? " · root" : ""}` }, el("span", { class: "v" }, c.value), c.level ? el("sub", {}, c.level) : null));
    }
  }
  box.append(el("div", { class: "scroll" }, board));
  box.append(facts([["tiles placed", v.tiles.length], ["run", `${v.run_tiles} tile${v.run_tiles === 1 ? "" : "s"} on the table${v.run_tiles < 7 ? " (7 before a run end may be capped)" : ""}`],
    ["branches", v.branches], ["roots", v.roots.length ? v.roots.map((r) => `(${r[0]}, ${r[1]})`).join(" ") : "none"], ["pile", v.pile],
    ["legend", "number: top value · small number: level · outline: root · dashed: open end"]]));
  return box;
}

// Reneges the table proved this hand (trick games without the deal): a warning line each,
// naming who and the trick not followed; the players rule, a controller enters the ruling.
function renegeWarnings(reneges) {
  return el("div", { id: "renege-warnings" }, reneges.map((r) => {
    return el("p", { class: "renege-warning", "data-player": r.player, "data-trick": r.trick },
      `⚠ Renege: ${r.player} reneged in trick ${r.trick} (${r.facts}). The table decides ` +
      "(custom: the reneging side loses the hand): enter the ruling with \"End the hand early\".");
  }));
}

// The trick won last, shown until the next lead: its tiles in playing order, the winning tile
// marked, who won it (and, in Forty-Two, its points).
function lastTrick(lt, withPoints) {
  const box = el("div", { class: "trick last-trick", id: "last-trick" },
    el("div", { class: "muted last-head" }, `Last trick (${lt.number}): ${lt.winner} won it with ${lt.tile}` +
      (withPoints ? `, ${lt.points} point${lt.points === 1 ? "" : "s"}` : "")));
  lt.trick.forEach((p) => box.append(el("div", { class: "played" + (p.tile === lt.tile ? " won-it" : "") },
    el("div", { class: "muted" }, p.player), tileEl(p.tile))));
  return box;
}

function renderGeneric(v) {
  const dl = el("dl", { class: "kv" });
  for (const [k, val] of Object.entries(v)) {
    dl.append(el("dt", {}, k.replace(/_/g, " ")), el("dd", {}, typeof val === "object" ? JSON.stringify(val) : String(val)));
  }
  return dl;
}

const VIEWS = { line: renderLine, tricks: renderTricks, row: renderRow, layouts: renderLayouts, grid: renderGridView };

function renderView(s) {
  const v = s.view;
  const card = $("#view-card");
  if (!v || typeof v !== "object" || !Object.keys(v).length) { card.hidden = true; return; }
  card.hidden = false;
  const draw = VIEWS[v.kind];
  $("#view").dataset.kind = draw ? v.kind : "generic";
  $("#view-sub").textContent = draw ? `(${s.title})` : "";
  $("#view").replaceChildren(draw ? draw(v, s) : renderGeneric(v));
}

// The seed's houses: "one line diagonally, one line crossing it, then X's and O's filling in the
// four corners. Once filled in, each house is always 50 points." A house is a square; its marks
// come from the game's view (houses_tally): line, cross, then X / O / half per corner.
const CORNERS = [[20, 8], [32, 20], [20, 32], [8, 20]];  // top, right, bottom, left triangles

function houseSvg(marks, full = false) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 40 40");
  svg.setAttribute("class", "house" + (full ? " full" : ""));
  const add = (tag, attrs) => {
    const e = document.createElementNS(ns, tag);
    Object.entries(attrs).forEach(([k, v]) => e.setAttribute(k, v));
    svg.append(e);
  };
  add("rect", { x: 2, y: 2, width: 36, height: 36, class: "frame" });
  const list = full ? ["line", "cross", "X", "O", "X", "O"] : marks;
  let corner = 0;
  for (const m of list) {
    if (m === "line") add("line", { x1: 2, y1: 38, x2: 38, y2: 2 });
    else if (m === "cross") add("line", { x1: 2, y1: 2, x2: 38, y2: 38 });
    else {
      const [cx, cy] = CORNERS[corner++];
      if (m === "O") add("circle", { cx, cy, r: 4 });
      else {
        add("line", { x1: cx - 3.5, y1: cy - 3.5, x2: cx + 3.5, y2: cy + 3.5 });
        if (m === "X") add("line", { x1: cx - 3.5, y1: cy + 3.5, x2: cx + 3.5, y2: cy - 3.5 });
      }
    }
  }
  return svg;
}

function renderHouses(s) {
  const card = $("#houses-card");
  const houses = s.view && s.view.houses;
  if (!houses) { card.hidden = true; return; }
  card.hidden = false;
  const box = $("#houses");
  box.replaceChildren();
  for (const p of s.players) {
    const h = houses[p];
    if (!h) continue;
    const row = el("div", { class: "house-row", "data-player": p }, el("span", { class: "pname" }, p));
    for (let i = 0; i < h.houses; i++) row.append(houseSvg([], true));
    if (h.strokes) row.append(houseSvg(h.marks));
    const score = 50 * h.houses + 5 * h.strokes + h.rest;
    row.append(el("span", { class: "muted" }, `${h.houses} house${h.houses === 1 ? "" : "s"} + ${5 * h.strokes}${h.rest ? ` + ${h.rest}` : ""} = ${score}`));
    box.append(row);
  }
}

const KIND_LABEL = { bid: "Bid", trump: "Trump", pass: "Pass", draw: "Draw", discard: "Discard", remove: "Remove", play: "Play", end_round: "End round" };
const CHIPS_SHOWN = 24;

function renderEntryKinds(s) {
  // the game's entry_kinds(): one group per kind, its legal values first as one-tap buttons
  const box = $("#entry-kinds");
  box.replaceChildren();
  for (const k of s.entry_kinds || []) {
    if (k.kind === "end_round") {
      const tricks = s.view && s.view.kind === "tricks";
      box.append(el("p", { class: "must" }, tricks ? "All tricks are played: check what each side took below and tap End hand."
        : "The round is over: enter the tiles left in each hand below and tap End round."));
      continue;
    }
    const group = el("div", { class: "kind-group", "data-kind": k.kind },
      el("div", { class: "kind-head" }, el("strong", {}, KIND_LABEL[k.kind] || k.kind), k.player ? el("span", { class: "muted" }, ` · ${k.player}`) : null,
        k.kind === "play" ? el("span", { class: "muted" }, " · legal now (or type a tile below)") : null));
    const row = el("div", { class: "row chips" });
    k.entries.slice(0, CHIPS_SHOWN).forEach((entry, i) => {
      const label = k.kind === "pass" ? `${entry.player} passes` : k.kind === "draw" && typeof k.values[i] === "number" ? `${entry.player} draws ${k.values[i]}` : String(k.values[i]);
      row.append(el("button", { class: "btn value", type: "button", "data-kind": k.kind, "data-value": String(k.values[i]),
        onclick: () => post("/api/submit", { entry }) }, label));
    });
    const left = k.entries.length - CHIPS_SHOWN + (k.more || 0);
    if (left > 0) row.append(el("span", { class: "muted" }, `and ${left} more: type it in the form below`));
    group.append(row);
    box.append(group);
  }
  const sel = $("#entry-kind");
  const kinds = (s.entry_kinds || []).map((k) => k.kind).filter((k) => k !== "play" && k !== "end_round");
  const first = (s.entry_kinds || []).find((k) => kinds.includes(k.kind));
  if (sel.dataset.kinds !== kinds.join(",") || sel.dataset.player !== String(first && first.player)) {
    const keep = sel.value;
    sel.dataset.kinds = kinds.join(",");
    sel.dataset.player = String(first && first.player);
    sel.replaceChildren(...kinds.map((k) => el("option", { value: k }, KIND_LABEL[k] || k)));
    if (kinds.includes(keep)) sel.value = keep;
    // the player who acts now, when the game says who
    if (first && first.player) $("#entry-form .player-select").value = first.player;
  }
  $("#entry-form").hidden = !kinds.length;
  // a play form only while plays are possible (not while bidding or naming trump)
  const all = (s.entry_kinds || []).map((k) => k.kind);
  $("#play-form").hidden = all.length > 0 && !all.includes("play") && !all.includes("end_round");
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
  renderTakenForm(s);
  renderEntryKinds(s);
}

// Forty-Two and Moon: a hand ends with what each side took ("taken": points in Forty-Two,
// tricks in Moon), prefilled with what the tricks gave: tap End hand after the last trick, or
// change it to end the hand early (a concession, or the table's ruling on a renege).
function renderTakenForm(s) {
  const v = s.view;
  const form = $("#taken-form");
  const tricks = !!(v && v.kind === "tricks");
  const open = tricks && !s.finished && ["play", "discard", "over"].includes(v.phase);
  $("#end-round-form").hidden = tricks;
  form.hidden = !open;
  if (!open) { form.dataset.key = ""; return; }
  // drawn again only when the hand moves on, so a value being typed is kept
  const key = [s.generation, s.round, v.phase, v.tricks_played, v.reneges.length, ...v.sides.map((x) => x.points)].join("|");
  if (form.dataset.key === key) return;
  form.dataset.key = key;
  const over = v.phase === "over";
  const who = s.game === "fortytwo" ? "team" : "player";
  $("#taken-head").textContent = over ? `End of hand: ${v.taken_unit} each ${who} took` : `End the hand early: ${v.taken_unit} each ${who} takes`;
  $("#taken-help").textContent = (over ? `All ${v.hand_tricks} tricks are played: the tricks gave these ${v.taken_unit}. `
    : `For a concession or the table's ruling on a renege: the ${v.taken_unit} each ${who} ends the hand with, summing to ${v.hand_total}. `) +
    (v.reneges.length ? "A renege was flagged this hand: the ruling may give a side less than its tricks won." : "Without a renege, no side gets less than it has won.");
  $("#taken-sides").replaceChildren(...v.sides.map((side) => el("label", {}, side.players.join(" & ") + " ",
    el("input", { type: "number", name: side.players[0], min: 0, max: v.hand_total, value: side.points, required: true, "data-side": side.players.join(",") }))));
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
    fullHistory = null;
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
  $("#undo-btn").addEventListener("click", async () => {
    const r = await post("/api/undo");
    if (r) toast(r.undone ? "Undone: " + r.undone.text : "Nothing to undo");
  });
  const amendDlg = $("#amend-dialog");
  $("#amend-cancel").addEventListener("click", () => amendDlg.close());
  $("#amend-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    let entry;
    try { entry = JSON.parse($("#amend-entry").value); } catch (err) { toast("The entry must be JSON, like {\"player\": \"Ann\", \"play\": \"5-3\"}: " + err.message, true); return; }
    const r = await post("/api/amend", { seq: parseInt(amendDlg.dataset.seq, 10), entry });
    if (r) { amendDlg.close(); fullHistory = null; toast("Changed: " + r.amended.text); }
  });
  $("#history-all").addEventListener("click", async () => {
    try {
      const r = await fetch("/api/history");
      if (!r.ok) return;
      fullHistory = (await r.json()).history;
    } catch (err) { toast("Could not load the history: " + err.message, true); return; }
    renderHistory(state);
  });
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
  $("#taken-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const taken = {};
    for (const inp of $("#taken-sides").querySelectorAll("input")) taken[inp.name] = parseInt(inp.value, 10);
    post("/api/submit", { entry: { end_round: { taken } } });
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
    const leave = leaveUnfinished("start a new game");
    if (leave === null) return;
    post("/api/new_game", { game, players, options, leave_unfinished: leave }).then((r) => { if (r) toast("New game started"); });
  });
  $("#rematch-btn").addEventListener("click", () => {
    const leave = leaveUnfinished("start a rematch");
    if (leave === null) return;
    post("/api/rematch", { leave_unfinished: leave }).then((r) => { if (r) toast("Rematch started"); });
  });
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
