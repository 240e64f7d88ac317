// The table explorer: the position in the URL, its answer from /api/v1/position, every legal
// move coloured on the board by its value for the side making it. The page knows no rules: the
// moves and the positions after them come from the server.

import { Board, parseToken } from "/board.js";

const $ = (id) => document.getElementById(id);
const state = { fen: null, variant: "nine", flying: true, answer: null, selected: null, pending: null, lastMove: null };
let board;

// The 100-ply rule's draws are draws on the board; the list names them.
const COLOUR = { "win": "win", "draw": "draw", "loss": "loss", "cursed-win": "draw", "blessed-loss": "draw", "unknown": "unknown" };
const WORDS = { "win": "win", "draw": "draw", "loss": "loss", "cursed-win": "draw (a win the 100-ply rule spoils)",
  "blessed-loss": "draw (a loss the 100-ply rule saves)", "unknown": "unknown (no table covers it)" };

function readUrl() {
  const q = new URLSearchParams(location.search);
  state.variant = q.get("variant") === "twelve" ? "twelve" : "nine";
  state.flying = q.get("flying") !== "false";
  state.fen = q.get("fen");
}

function query(fen) {
  const q = new URLSearchParams();
  if (fen) q.set("fen", fen);
  q.set("variant", state.variant);
  q.set("flying", String(state.flying));
  return q.toString();
}

function showError(msg) {
  $("error").hidden = !msg;
  $("error").textContent = msg || "";
}

async function load() {
  document.body.dataset.state = "loading";
  $("variant").value = state.variant;
  $("flying").checked = state.flying;
  state.selected = state.pending = null;
  const q = query(state.fen);
  $("api-link").href = "/api/v1/position?" + q;
  try {
    const r = await fetch("/api/v1/position?" + q);
    const j = await r.json();
    if (!r.ok) throw new Error(j.error || r.statusText);
    state.answer = j;
    state.fen = j.fen;
    showError(null);
    document.body.dataset.state = "ready";
  } catch (e) {
    state.answer = null;
    showError(String(e.message || e));
    document.body.dataset.state = "error";
  }
  render();
}

// The moves parsed once: token parts plus the answer's fields.
function moves() {
  return (state.answer ? state.answer.moves : []).map((m) => ({ ...m, ...parseToken(m.move) }));
}

const base = (m) => (m.from ? m.from + "-" + m.to : m.to);

// One hint a point: the first move of each group is the best, since the list is best first.
function hints() {
  const out = [], seen = new Set();
  const add = (p, m, kind) => {
    if (seen.has(p)) return;
    seen.add(p);
    out.push({ p, kind, result: COLOUR[m.category], source: "tables", text: m.plies != null ? String(m.plies) : "" });
  };
  for (const m of moves()) {
    if (state.pending) { if (base(m) === state.pending && m.remove) add(m.remove, m, "ring"); }
    else if (state.selected) { if (m.from === state.selected) add(m.to, m, "target"); }
    else if (m.from) add(m.from, m, "ring");
    else add(m.to, m, "place");
  }
  return out;
}

function render() {
  const a = state.answer;
  board.setTwelve(state.variant === "twelve");
  const side = a && a.side_to_move === "black" ? "B" : "W";
  board.render({ fen: a ? a.fen : (state.fen || ""), selected: state.selected, hints: hints(),
    pending: state.pending, pendingColor: side, lastMove: state.lastMove });
  $("fen").value = a ? a.fen : (state.fen || "");
  const v = $("verdict");
  v.dataset.category = a ? a.category : "";
  v.dataset.fen = a ? a.fen : "";
  if (a) {
    const who = a.side_to_move === "white" ? "White" : "Black";
    let text = `${who} to move (${a.phase}): ${WORDS[a.category]}`;
    if (a.plies != null) text += `, next mill in ${a.plies} plies`;
    if (a.game_over) text = `Game over: ${a.game_over.result} (${a.game_over.reason})`;
    v.textContent = text;
  } else v.textContent = "\u00a0";
  $("mainline").textContent = a && a.mainline.length ? a.mainline.join(" ") : "none";
  const list = $("moves");
  list.innerHTML = "";
  for (const m of a ? a.moves : []) {
    const li = document.createElement("li");
    li.className = m.category;
    li.dataset.move = m.move;
    li.dataset.category = m.category;
    li.textContent = m.move + " " + m.category + (m.plies != null ? " " + m.plies : "");
    li.title = WORDS[m.category];
    li.addEventListener("click", () => play(m));
    list.appendChild(li);
  }
}

function play(m) {
  state.lastMove = m.move;
  state.fen = m.fen;
  history.pushState({ lastMove: m.move }, "", "/?" + query(m.fen));
  load();
}

function click(p) {
  const ms = moves();
  const pick = (cands) => {
    if (!cands.length) return false;
    if (cands[0].remove) { state.pending = base(cands[0]); render(); } else play(cands[0]);
    return true;
  };
  if (state.pending) {
    const m = ms.find((m) => base(m) === state.pending && m.remove === p);
    if (m) return play(m);
    state.pending = null;
    return render();
  }
  if (state.selected) {
    if (pick(ms.filter((m) => m.from === state.selected && m.to === p))) return;
    state.selected = ms.some((m) => m.from === p) && p !== state.selected ? p : null;
    return render();
  }
  if (ms.some((m) => m.from === p)) { state.selected = p; return render(); }
  pick(ms.filter((m) => !m.from && m.to === p));
}

async function showServed() {
  try {
    const j = await (await fetch("/api/v1/info")).json();
    $("served").textContent = "tables: " + j.rule_sets.map((r) =>
      `${r.variant} ${r.flying ? "flying" : "no flying"} (${r.moving_subspaces}/${r.moving_subspaces_total} moving, ` +
      `${r.placing_sectors}/${r.placing_sectors_total} placing)`).join("; ");
  } catch (e) { $("served").textContent = ""; }
}

function init() {
  board = new Board($("board"), click);
  readUrl();
  $("variant").addEventListener("change", () => { state.variant = $("variant").value; state.fen = null; navigate(); });
  $("flying").addEventListener("change", () => { state.flying = $("flying").checked; navigate(); });
  $("start").addEventListener("click", () => { state.fen = null; navigate(); });
  $("back").addEventListener("click", () => history.back());
  $("fen-form").addEventListener("submit", (e) => { e.preventDefault(); state.fen = $("fen").value.trim() || null; navigate(); });
  window.addEventListener("popstate", (e) => { readUrl(); state.lastMove = e.state ? e.state.lastMove : null; load(); });
  showServed();
  load();
}

function navigate() {
  state.lastMove = null;
  history.pushState({}, "", "/?" + query(state.fen));
  load();
}

init();
