// The page: draws what the server reports (which in turn is what the engine reports) and
// turns clicks into requests. It knows no rules: moves are picked from the engine's list.

import { Board, parseToken, piecesOf } from "./board.js";

const $ = (id) => document.getElementById(id);

// ---------- languages ----------

const LANGS = ["en", "it", "fr", "de", "ru"];
let EN = {};
let TR = {};

// The text of a key in the chosen language ({name} filled from `vars`), English when missing.
function t(key, vars = {}) {
  let s = TR[key] ?? EN[key] ?? key;
  for (const [k, v] of Object.entries(vars)) s = s.split("{" + k + "}").join(String(v));
  return s;
}

// On a touch screen the texts say "tap" where a mouse's say "click": the keys with a
// touch wording, used when the device's main pointer is coarse or a finger (or a pen) was
// the last to touch the page.
const TAP = { st_remove: "st_remove_tap", st_place: "st_place_tap", st_target: "st_target_tap", st_pick: "st_pick_tap",
  line_help: "line_help_tap", line_label: "line_label_tap" };
let touch = window.matchMedia ? window.matchMedia("(pointer: coarse)").matches : false;

// t() in the wording of the device in hand.
function tc(key, vars = {}) {
  return t(touch && TAP[key] ? TAP[key] : key, vars);
}

function pickLang() {
  let saved = null;
  try { saved = localStorage.getItem("mill-lang"); } catch { /* private mode */ }
  if (LANGS.includes(saved)) return saved;
  for (const l of navigator.languages || [navigator.language || "en"]) {
    const c = String(l).slice(0, 2).toLowerCase();
    if (LANGS.includes(c)) return c;
  }
  return "en";
}

async function fetchLang(code) {
  const r = await fetch(`/lang/${code}.json`);
  if (!r.ok) throw new Error(`language ${code}: ${r.status}`);
  return r.json();
}

async function setLang(code) {
  if (!LANGS.includes(code)) code = "en";
  TR = code === "en" ? EN : await fetchLang(code);
  document.documentElement.lang = code;
  app.dataset.lang = code;
  $("lang").value = code;
  try { localStorage.setItem("mill-lang", code); } catch { /* private mode */ }
  staticTexts();
  for (const e of document.querySelectorAll("[data-i18n-title]")) {
    e.title = t(e.dataset.i18nTitle);
    e.setAttribute("aria-label", e.title);
  }
  renderRules();
  if (lastFatal) $("fatal").textContent = serverText(lastFatal);
  if (lastBanner && $("banner").dataset.kind === lastBanner.status) banner(serverText(lastBanner), lastBanner.status);
  if (hello) setupLevels(hello);
  if (state) render();
}

function staticTexts() {
  for (const e of document.querySelectorAll("[data-i18n]")) e.textContent = tc(e.dataset.i18n);
}

// A pointer pressed on the page says what is in hand: a finger, a pen or a mouse.
function onPointerKind(ev) {
  const now = ev.pointerType === "touch" || ev.pointerType === "pen";
  if (now === touch) return;
  touch = now;
  app.dataset.touch = String(touch);
  staticTexts();
  if (state) render();
}

function renderRules() {
  const box = $("tab-rules");
  box.innerHTML = "";
  for (const [kind, text] of t("rules")) {
    const e = document.createElement(kind === "h" ? "h3" : "p");
    e.textContent = text;
    box.appendChild(e);
  }
}
const app = $("app");
let ws = null;
let state = null;
let hello = null;
let selected = null;     // a point whose piece is picked up
let pending = null;      // a move waiting for its removal: {move, color, removable}
let preview = null;      // a line shown on the board
let lines = [];          // analysis lines by MultiPV index
let linesKey = "";
let stateAt = 0;
let shownResult = "";
let awaiting = null;     // timing of a move entered here
let refusedCount = 0;
let board = null;
let queued = null;       // a point clicked before the engine was ready: played once it is
let focusPoint = null;   // the keyboard's focus ring
window.millLatency = [];

function send(obj) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(obj));
}

function toast(text, kind = "error") {
  const t = $("toast");
  t.textContent = text;
  t.className = "toast " + kind;
  t.hidden = false;
  t.dataset.text = text;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, 4000);
}

function logEngine(text) {
  const l = $("engine-log");
  l.textContent = (l.textContent + text + "\n").split("\n").slice(-60).join("\n");
}

function connect() {
  ws = new WebSocket(`ws://${location.host}/ws`);
  ws.onmessage = (ev) => {
    let m;
    try { m = JSON.parse(ev.data); } catch { return; }
    handle(m);
  };
  ws.onclose = () => {
    if (app.dataset.status !== "fatal") {
      app.dataset.status = "disconnected";
      banner(t("lost_connection"), "dead");
    }
  };
}

function banner(text, kind) {
  const b = $("banner");
  b.textContent = text;
  b.className = "banner " + kind;
  b.dataset.kind = kind;
  b.hidden = !text;
}

// A server text (a refusal, the engine's failure) in the page's language where the language
// files have its key, its cause translated the same way; else the server's English.
function serverText(m) {
  if (!m.key || EN[m.key] === undefined) return m.message;
  const vars = { ...(m.vars || {}) };
  if (m.cause) vars.cause = serverText(m.cause);
  return t(m.key, vars);
}

let lastBanner = null;   // the engine's last status message, shown again in a new language
let lastFatal = null;

function handle(m) {
  switch (m.type) {
    case "hello": return onHello(m);
    case "state": return onState(m);
    case "info": return onInfo(m);
    case "preview": preview = m; return render();
    case "error": {
      // The server's text in the page's language where the language files have its key.
      toast(serverText(m));
      app.dataset.lastError = m.message;
      app.dataset.lastErrorKey = m.key || "";
      return;
    }
    case "engine_status": {
      let text;
      if (m.status === "starting") {
        text = t(m.stage === "tables" ? "getting_ready_tables" : "getting_ready");
        banner(text, m.status);
        $("status").textContent = text;
      } else {
        lastBanner = m;
        text = serverText(m);
        banner(text, m.status);
      }
      logEngine(`[${m.status}] ${text}`);
      app.dataset.engineStatus = m.status;
      return;
    }
    case "engine_says": return logEngine(m.text);
    case "review_progress": return renderReview(m);
    case "pgn": {
      $("pgn-text").value = m.text;
      const a = $("pgn-download");
      a.href = URL.createObjectURL(new Blob([m.text], { type: "application/x-chess-pgn" }));
      a.hidden = false;
      return;
    }
    case "fatal":
      app.dataset.status = "fatal";
      lastFatal = m;
      $("fatal").textContent = serverText(m);
      $("fatal").hidden = false;
      return;
  }
}

function onHello(m) {
  hello = m;
  if ($("banner").dataset.kind === "starting") banner("", "");
  delete $("engine-name").dataset.i18n;
  setupLevels(m);
  $("engine-name").textContent = m.engine.name;
  $("engine-info").textContent = t("engine_info", { name: m.engine.name, pid: m.engine.pid }) + (m.tables ? " · " + t("tables_on") : "");
  const v = $("variant");
  for (const o of [...v.options]) o.disabled = !m.variants.includes(o.value);
  $("flying").disabled = !m.flying_option;
  const box = $("options");
  box.innerHTML = "";
  for (const o of m.options) box.appendChild(optionControl(o));
}

function optionControl(o) {
  const row = document.createElement("div");
  row.className = "row option";
  const label = document.createElement("label");
  label.textContent = o.name + " ";
  row.appendChild(label);
  let input;
  const setBtn = () => {
    const b = document.createElement("button");
    b.textContent = t("set");
    b.onclick = () => send({ type: "set_option", name: o.name, value: String(input.type === "checkbox" ? input.checked : input.value) });
    row.appendChild(b);
  };
  if (o.kind === "spin") {
    input = document.createElement("input");
    input.type = "number";
    input.value = o.default ?? "";
    if (o.min != null) input.min = o.min;
    if (o.max != null) input.max = o.max;
    label.appendChild(input);
    setBtn();
  } else if (o.kind === "check") {
    input = document.createElement("input");
    input.type = "checkbox";
    input.checked = o.default === "true";
    input.onchange = () => send({ type: "set_option", name: o.name, value: String(input.checked) });
    label.appendChild(input);
  } else if (o.kind === "combo") {
    input = document.createElement("select");
    for (const v of o.vars) {
      const op = document.createElement("option");
      op.textContent = v;
      if (v === o.default) op.selected = true;
      input.appendChild(op);
    }
    input.onchange = () => send({ type: "set_option", name: o.name, value: input.value });
    label.appendChild(input);
  } else if (o.kind === "button") {
    const b = document.createElement("button");
    b.textContent = o.name;
    b.onclick = () => send({ type: "set_option", name: o.name, value: null });
    row.innerHTML = "";
    row.appendChild(b);
  }
  if (input) input.dataset.option = o.name;
  return row;
}

function onState(m) {
  const prev = state;
  state = m;
  stateAt = performance.now();
  selected = null;
  pending = null;
  if (!m.preview) preview = null;
  const key = m.fen + "|" + m.cursor + "|" + m.moves.length;
  if (key !== linesKey) { lines = []; linesKey = key; }
  // Controls follow the server's settings.
  $("variant").value = m.variant;
  $("flying").checked = m.flying;
  $("white-player").value = m.players[0];
  $("black-player").value = m.players[1];
  $("analyse").checked = m.analysis;
  render();
  // A click made while the engine was getting ready is taken now.
  if (queued && !prev) {
    const p = queued;
    queued = null;
    delete app.dataset.queued;
    onPoint(p);
  }
  announce(prev, m);
  // Timing of a move entered on this page: drawn, and the engine's answer drawn.
  if (awaiting) {
    const a = awaiting;
    requestAnimationFrame(() => {
      const now = performance.now();
      if (!a.humanDrawn && m.moves.length >= a.ply) {
        a.humanDrawn = now - a.t0;
        app.dataset.moveDrawnMs = a.humanDrawn.toFixed(1);
      }
      if (m.moves.length >= a.ply + 1 && m.last_think_ms != null && awaiting === a) {
        const total = now - a.t0;
        const rec = { total, think: m.last_think_ms, overhead: total - m.last_think_ms, human: a.humanDrawn };
        window.millLatency.push(rec);
        app.dataset.latency = JSON.stringify(window.millLatency.slice(-200));
        awaiting = null;
      }
      // No answer to wait for (two humans, or the game ended with this move).
      if (awaiting === a && !m.thinking && m.moves.length === a.ply && m.legal.length) awaiting = null;
    });
  }
  if (m.end && m.cursor === m.moves.length) {
    const rk = m.start_fen + "|" + m.moves.join(" ") + "|" + m.end.result + m.end.reason;
    if (rk !== shownResult && (!prev || prev.moves.length !== m.moves.length || !prev.end || prev.end.result !== m.end.result)) {
      shownResult = rk;
      showResult(m.end);
    }
  }
}

const REASONS = { material: "r_material", blocked: "r_blocked", fullboard: "r_fullboard", threefold: "r_threefold",
  hundredply: "r_hundredply", resign: "r_resign", timeout: "r_timeout" };
const reasonText = (r) => (REASONS[r] ? t(REASONS[r]) : r);

function resultText(end) {
  return t(end.result === "1-0" ? "white_wins" : end.result === "0-1" ? "black_wins" : "draw");
}

function showResult(end) {
  const d = $("result-dialog");
  $("result-title").textContent = `${resultText(end)} · ${end.result}`;
  $("result-reason").textContent = reasonText(end.reason);
  d.dataset.result = end.result;
  d.dataset.reason = end.reason;
  if (!d.open) d.showModal();
}

function onInfo(m) {
  const i = m.info;
  const k = (i.multipv || 1) - 1;
  if (i.pv.length === 0 && i.depth === 0) { lines[k] = { ...i, white: m.white_to_move, source: m.source }; renderAnalysis(); return; }
  if (!i.pv.length) return;
  lines[k] = { ...i, white: m.white_to_move, source: m.source };
  const estimating = state && state.hints && state.hints.source === "search";
  if (k === 0 && !estimating) lines.length = Math.min(lines.length, Math.max(1, state ? state.multipv : 1));
  renderAnalysis();
  if (k === 0 || (state && state.hints && state.hints.source === "search")) { renderBoard(); renderHintsNote(); }
}

// ---------- input ----------

function legal() {
  return (state && !preview ? state.legal : []).map((t) => ({ tok: t, ...parseToken(t) }));
}

function movePart(tok) { return tok.split("x")[0]; }

function refuse(p, why) {
  refusedCount++;
  app.dataset.refused = String(refusedCount);
  app.dataset.refusedPoint = p;
  const hit = document.querySelector(`[data-point="${p}"]`);
  if (hit) { hit.classList.remove("refused"); void hit.getBBox(); hit.classList.add("refused"); }
  if (why) $("status").textContent = why;
}

function onPoint(p) {
  if (preview) { send({ type: "preview_end" }); preview = null; render(); return; }
  if (!state) {
    queued = p;
    app.dataset.queued = p;
    $("status").textContent = t("ready_click_kept", { p });
    return;
  }
  const L = legal();
  if (!L.length) { refuse(p, t(state.thinking ? "refuse_thinking" : "refuse_none")); return; }
  if (pending) {
    const m = L.find((x) => movePart(x.tok) === pending.move && x.remove === p);
    if (m) return sendMove(m.tok);
    pending = null;
    refuse(p, t("refuse_removal"));
    return render();
  }
  if (selected) {
    const c = L.filter((x) => x.from === selected && x.to === p);
    if (c.length) return choose(c);
    if (p === selected) { selected = null; return render(); }
    if (L.some((x) => x.from === p)) { selected = p; return render(); }
    selected = null;
    refuse(p, t("refuse_target", { p }));
    return render();
  }
  const place = L.filter((x) => x.from === null && x.to === p);
  if (place.length) return choose(place);
  if (L.some((x) => x.from === p)) { selected = p; return render(); }
  refuse(p, t("refuse_start", { p }));
}

function choose(c) {
  if (c.length === 1 && !c[0].remove) return sendMove(c[0].tok);
  const pieces = piecesOf(state.fen);
  const color = state.white_to_move ? "W" : "B";
  pending = { move: movePart(c[0].tok), color, removable: c.map((x) => x.remove).filter(Boolean) };
  void pieces;
  selected = null;
  render();
}

function sendMove(tok) {
  awaiting = { t0: performance.now(), ply: state.cursor + 1 };
  selected = null;
  pending = null;
  send({ type: "move", token: tok });
}

// ---------- drawing ----------

function fmtScore(s, whiteToMove) {
  if (!s) return "–";
  let { kind, value } = s;
  if (whiteToMove === false) value = -value;
  // protocol.md, Scores: cp beyond 19000 is the endgame tables' verdict, not an evaluation.
  if (kind === "cp" && Math.abs(value) >= 19000) return value > 0 ? "TB win" : "TB loss";
  if (kind === "cp") return (value >= 0 ? "+" : "−") + (Math.abs(value) / 100).toFixed(2);
  return (value >= 0 ? "M" : "−M") + Math.abs(value);
}

function whiteCp(s) {
  if (!s) return null;
  if (s.kind === "cp") return Math.max(-1000, Math.min(1000, s.value));
  return s.value > 0 ? 1000 : s.value < 0 ? -1000 : 0;
}

function render() {
  if (!state) return;
  app.dataset.status = state.preview ? "preview" : state.review ? "review" : state.thinking ? "thinking"
    : (state.end && state.cursor === state.moves.length) ? "over" : state.legal.length ? "your-move" : "waiting";
  renderBoard();
  renderCards();
  renderMoves();
  renderGraph();
  renderAnalysis();
  renderPuzzle();
  renderStatus();
  renderReview(state.review);
  renderHintsNote();
  for (const h of document.querySelectorAll(".hints-toggle")) h.checked = !!state.hints;
  const svg = $("board");
  svg.dataset.ply = String(state.cursor);
  svg.dataset.moves = state.moves.join(" ");
  svg.dataset.engineFen = state.fen;
  svg.dataset.legalCount = String(state.legal.length);
  $("preview-note").hidden = !preview;
  if (preview) $("preview-note").textContent = tc("line_label", { moves: preview.moves.join(" ") });
}

function renderBoard() {
  board.setTwelve(state.variant === "twelve");
  const view = { fen: state.fen, lastMove: state.last_move, mills: state.mills, arrows: [] };
  if (preview) {
    view.fen = preview.fen;
    view.mills = preview.mills;
    view.lastMove = preview.moves[preview.moves.length - 1];
    view.arrows = [{ token: preview.moves[0], kind: "pv-first" }];
  } else {
    const L = legal();
    if (selected) {
      view.selected = selected;
      view.targets = [...new Set(L.filter((x) => x.from === selected).map((x) => x.to))];
    } else if (pending) {
      view.pending = pending.move;
      view.pendingColor = pending.color;
      view.removable = pending.removable;
    }
    view.hints = hintView(L);
    const pz = state.puzzle && state.puzzle.current;
    if (pz && pz.hint && state.cursor === 0) view.puzzleHint = pz.hint;
    const best = lines[0];
    if (best && best.pv && best.pv.length && (state.analysis || state.thinking) && !pending) {
      view.arrows.push({ token: best.pv[0], kind: "best" });
    }
  }
  board.render(view);
  labelPoints(view);
}

// ---------- hints ----------

// A value's order: a faster win first, a slower loss last; estimates by their score. Among
// draws the likelier trap first, so a point that stands for several moves shows its best trap.
function hintRank(v) {
  if (v.est !== undefined) return v.est;
  const d = v.plies || 0;
  return v.result === "win" ? 1e6 - d : v.result === "loss" ? -1e6 + d : (v.expected ?? 0.5) - 0.5;
}

// How often the modelled opponent goes wrong after a trap, in percent: a draw's expected score
// above ½ is all from the replies that lose, each worth 1 instead of ½.
function trapPercent(expected) {
  return Math.round(Math.min(1, Math.max(0, (expected - 0.5) * 2)) * 100);
}

// Every legal move's value, as the engine gave it: exact (tables) or estimated (search).
function moveValues() {
  const H = state && state.hints;
  if (!H) return null;
  const out = {};
  if (H.source === "tables") {
    for (const m of H.moves) {
      const t = m.result === "win" ? "W" : m.result === "loss" ? "L" : "=";
      const v = { result: m.result, plies: m.plies, source: "tables", text: t + (m.plies ? m.plies : "") };
      if (typeof m.expected === "number") v.expected = m.expected;
      // The server decides what a trap is (its threshold); the page only shows it.
      if (m.trap === true && m.result === "draw" && v.expected !== undefined) {
        v.trap = trapPercent(v.expected);
        // The amber says "draw": the label's room goes to the percentage.
        v.text = v.trap + "%";
      }
      out[m.move] = v;
    }
  } else if (H.source === "search") {
    for (const l of lines) {
      if (!l || !l.pv || !l.pv.length || !l.score || l.source !== "analysis") continue;
      const { kind, value } = l.score;
      let v;
      if (kind === "mate" || Math.abs(value) >= 19000) {
        const win = value > 0;
        v = { result: win ? "win" : "loss", est: win ? 1e6 - Math.abs(value) : -1e6 + Math.abs(value), text: win ? "W?" : "L?" };
      } else {
        const r = value >= 100 ? "est-good" : value <= -100 ? "est-bad" : "est-even";
        v = { result: r, est: value, text: (value >= 0 ? "+" : "−") + (Math.abs(value) / 100).toFixed(1) };
      }
      out[l.pv[0]] = { ...v, source: "estimate" };
    }
  }
  return out;
}

// What the board marks: empty points (placing), movable pieces, a picked piece's targets,
// the pieces a mill may remove; each with the best value of the moves it stands for.
function hintView(L) {
  const vals = moveValues();
  if (!vals || !L.length) return [];
  const best = (toks) => {
    let b = null;
    for (const t of toks) if (vals[t] && (!b || hintRank(vals[t]) > hintRank(b))) b = vals[t];
    return b;
  };
  const out = [];
  const push = (p, kind, v) => { if (v) out.push({ p, kind, result: v.result, text: v.text, source: v.source, trap: v.trap }); };
  const group = (list, key) => {
    const g = {};
    for (const x of list) (g[key(x)] = g[key(x)] || []).push(x.tok);
    return g;
  };
  if (pending) {
    for (const r of pending.removable) push(r, "remove", vals[pending.move + "x" + r]);
  } else if (selected) {
    for (const [to, toks] of Object.entries(group(L.filter((x) => x.from === selected), (x) => x.to))) push(to, "target", best(toks));
  } else {
    for (const [to, toks] of Object.entries(group(L.filter((x) => x.from === null), (x) => x.to))) push(to, "place", best(toks));
    for (const [from, toks] of Object.entries(group(L.filter((x) => x.from !== null), (x) => x.from))) push(from, "piece", best(toks));
  }
  return out;
}

const RESULT_WORD = { win: "a_wins", draw: "a_draws", loss: "a_loses", "est-good": "a_good", "est-even": "a_even", "est-bad": "a_bad" };

function renderHintsNote() {
  const n = $("hints-note");
  const H = state.hints;
  n.dataset.source = H ? H.source : "";
  if (!H) { n.textContent = ""; return; }
  const side = t(state.white_to_move ? "white" : "black");
  n.textContent = "";
  if (!state.legal.length) { n.textContent = t("hints_your_move"); return; }
  const span = (cls, text) => { const e = document.createElement("span"); e.className = cls; e.textContent = text; n.appendChild(e); };
  if (H.source === "tables") {
    span("exact", t("hints_exact"));
    n.appendChild(document.createTextNode(" " + t("hints_exact_text", { side })));
    // The trap's colour is new to the board: the legend names it, where the engine gives the
    // scores that make traps (not a table server).
    if (H.moves.some((m) => typeof m.expected === "number")) {
      const lg = document.createElement("span");
      lg.className = "hint-legend";
      for (const [cls, key] of [["win", "a_wins"], ["draw", "a_draws"], ["trap", "legend_trap"], ["loss", "a_loses"]]) {
        const e = document.createElement("span");
        e.className = "legend-" + cls;
        e.dataset.legend = cls;
        e.textContent = t(key);
        lg.appendChild(e);
      }
      n.appendChild(lg);
    }
  } else {
    const got = lines.filter((l) => l && l.source === "analysis").length;
    const WHY = { loading: "why_loading", notables: "why_notables", unsupported: "why_unsupported", server: "why_server" };
    const why = t(WHY[H.why] || "why_uncovered");
    const depth = lines[0] && lines[0].depth ? t("depth_n", { n: lines[0].depth }) : "";
    if (got) {
      span("est", t("hints_est"));
      n.appendChild(document.createTextNode(" " + t("hints_est_text", { why, depth })));
    } else {
      span("est", t("hints_solving"));
      n.appendChild(document.createTextNode(` (${why})`));
    }
  }
}

// ---------- keyboard and screen readers ----------

function labelPoints(view) {
  const pieces = board.piecesAt || {};
  for (const hit of document.querySelectorAll("#board [data-point]")) {
    const p = hit.dataset.point;
    const c = pieces[p];
    let label = `${p}, ${t(c === "W" ? "a_white_piece" : c === "B" ? "a_black_piece" : "a_empty")}`;
    if (view.selected === p) label += ", " + t("a_picked");
    if ((view.targets || []).includes(p)) label += ", " + t("a_target");
    if ((view.removable || []).includes(p)) label += ", " + t("a_removable");
    const h = board.hintAt && board.hintAt[p];
    let tip = p;
    if (h) {
      let word = t(RESULT_WORD[h.result] || h.result);
      if (h.trap !== undefined) word += ", " + t("a_trap", { pct: h.trap });
      label += ", " + word;
      tip += ": " + word;
    }
    const title = hit.querySelector("title");
    if (title) title.textContent = tip;
    hit.setAttribute("aria-label", label);
    hit.setAttribute("role", "button");
    hit.id = "pt-" + p;
  }
  if (focusPoint) $("board").setAttribute("aria-activedescendant", "pt-" + focusPoint);
}

function announce(prev, m) {
  if (!prev || m.moves.length === prev.moves.length || m.cursor !== m.moves.length || !m.last_move) return;
  const side = t(m.white_to_move ? "black" : "white");
  $("board-live").textContent = t("a_played", { side, move: m.last_move });
}

function onBoardKey(ev) {
  const dirs = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };
  if (dirs[ev.key]) {
    ev.preventDefault();
    ev.stopPropagation();
    focusPoint = focusPoint ? board.neighbour(focusPoint, ...dirs[ev.key]) : "d7";
  } else if (ev.key === "Enter" || ev.key === " ") {
    ev.preventDefault();
    ev.stopPropagation();
    if (!focusPoint) focusPoint = "d7";
    else onPoint(focusPoint);
  } else return;
  board.setFocus(focusPoint);
  $("board").dataset.focus = focusPoint;
  if (state) labelPoints(board.last || {});
  const hit = document.getElementById("pt-" + focusPoint);
  $("board-live").textContent = hit ? hit.getAttribute("aria-label") : focusPoint;
}

// ---------- levels ----------

function setupLevels(m) {
  const sel = $("level");
  const elo = m.options.find((o) => o.name.toLowerCase() === "uci_elo");
  const limit = m.options.find((o) => o.name.toLowerCase() === "uci_limitstrength");
  const was = sel.value;
  sel.innerHTML = "";
  const full = document.createElement("option");
  full.value = "full";
  full.textContent = t(m.tables ? "level_full_tables" : "level_full");
  sel.appendChild(full);
  sel.disabled = !(elo && limit);
  if (!elo || !limit) return;
  for (const e of [900, 1200, 1500, 1800, 2100]) {
    if (e < (elo.min ?? 0) || e >= (elo.max ?? 0)) continue;
    const o = document.createElement("option");
    o.value = String(e);
    o.textContent = t("level_elo", { elo: e });
    sel.appendChild(o);
  }
  if ([...sel.options].some((o) => o.value === was)) sel.value = was;
  sel.onchange = () => {
    if (sel.value === "full") send({ type: "set_option", name: limit.name, value: "false" });
    else {
      send({ type: "set_option", name: elo.name, value: sel.value });
      send({ type: "set_option", name: limit.name, value: "true" });
    }
  };
}

function fmtClock(ms) {
  ms = Math.max(0, ms);
  const s = ms / 1000;
  if (s < 10) return s.toFixed(1);
  const m = Math.floor(s / 60), r = Math.floor(s % 60);
  return `${m}:${String(r).padStart(2, "0")}`;
}

function renderCards() {
  const f = (state.fen || "").split(" ");
  const pieces = piecesOf(state.fen);
  const onBoard = { W: 0, B: 0 };
  for (const c of Object.values(pieces)) onBoard[c]++;
  const flipped = board.flipped;
  const sides = [
    { el: $(flipped ? "card-top" : "card-bottom"), c: "W", i: 0, hand: Number(f[2] || 0) },
    { el: $(flipped ? "card-bottom" : "card-top"), c: "B", i: 1, hand: Number(f[3] || 0) },
  ];
  for (const s of sides) {
    const name = state.players[s.i] === "engine" ? (hello ? hello.engine.name : t("engine")) : t("human");
    s.el.querySelector(".swatch").className = "swatch " + (s.c === "W" ? "white" : "black");
    s.el.querySelector(".pname").textContent = `${t(s.c === "W" ? "white" : "black")} · ${name}`;
    const hand = s.el.querySelector(".hand");
    hand.innerHTML = "";
    const dots = document.createElement("span");
    dots.className = "hand-dots";
    for (let k = 0; k < Math.min(s.hand, 12); k++) {
      const d = document.createElement("i");
      d.className = s.c === "W" ? "white" : "black";
      dots.appendChild(d);
    }
    hand.appendChild(dots);
    const txt = document.createElement("span");
    txt.className = "hand-text";
    txt.textContent = t("in_hand", { n: s.hand, m: onBoard[s.c] });
    hand.appendChild(txt);
    s.el.dataset.hand = String(s.hand);
    const toMove = (s.c === "W") === state.white_to_move && !(state.end && state.cursor === state.moves.length);
    s.el.classList.toggle("to-move", toMove);
  }
  renderClocks();
}

function renderClocks() {
  if (!state) return;
  const clockOn = state.limit.kind === "clock";
  const flipped = board.flipped;
  for (const [id, side] of [[flipped ? "card-top" : "card-bottom", "white"], [flipped ? "card-bottom" : "card-top", "black"]]) {
    const c = $(id).querySelector(".clock");
    c.hidden = !clockOn;
    if (!clockOn) continue;
    let ms = state.clocks[side];
    if (state.clocks.running === side) ms -= performance.now() - stateAt;
    c.textContent = fmtClock(ms);
    c.classList.toggle("running", state.clocks.running === side);
    c.classList.toggle("low", ms < 10000);
  }
}

const MARK_SYMBOL = { inaccuracy: "?!", mistake: "?", blunder: "??", lost: "✗", kept: "✓" };

function renderMoves() {
  const box = $("moves");
  box.innerHTML = "";
  const f = state.start_fen.split(" ");
  let white = f[1] !== "b";
  let num = Number(f[5] || 1);
  const marks = {};
  for (const mk of state.marks) marks[mk.ply] = mk;
  let row = null;
  const newRow = () => {
    row = document.createElement("div");
    row.className = "move-row";
    const n = document.createElement("span");
    n.className = "num";
    n.textContent = num + ".";
    row.appendChild(n);
    box.appendChild(row);
  };
  state.moves.forEach((m, i) => {
    if (white || !row) {
      newRow();
      if (!white) { const e = document.createElement("span"); e.className = "mv empty"; e.textContent = "…"; row.appendChild(e); }
    }
    const s = document.createElement("span");
    s.className = "mv";
    s.dataset.ply = String(i + 1);
    s.textContent = m;
    const mk = marks[i];
    if (mk) {
      s.classList.add(mk.kind);
      const sym = document.createElement("b");
      sym.textContent = MARK_SYMBOL[mk.kind];
      s.appendChild(sym);
      if (mk.best) {
        const b = document.createElement("small");
        b.textContent = " best " + mk.best;
        s.appendChild(b);
        s.title = mk.kind === "lost" ? t("changed_result", { best: mk.best }) : t("mark_better", { best: mk.best });
      }
    }
    if (i + 1 === state.cursor) s.classList.add("current");
    s.onclick = () => send({ type: "goto", ply: i + 1 });
    row.appendChild(s);
    if (!white) num++;
    white = !white;
  });
  const cur = box.querySelector(".current");
  // Only the list scrolls (on a phone, the page must not jump away from the board).
  if (cur) {
    const r = cur.getBoundingClientRect(), b = box.getBoundingClientRect();
    if (r.top < b.top || r.bottom > b.bottom) box.scrollTop += r.top - b.top - b.height / 2;
  }
  const end = state.end;
  $("game-result").textContent = end ? `${end.result} (${end.reason})` : "";
  $("game-result").dataset.result = end ? end.result : "";
}

function renderGraph() {
  const g = $("graph");
  const n = state.moves.length;
  const W = 400, H = 90, mid = H / 2;
  const x = (i) => (n === 0 ? 0 : (i / n) * W);
  const y = (v) => mid - (v / 1000) * (mid - 4);
  let pts = [];
  state.evals.forEach((e, i) => { const v = whiteCp(e); if (v !== null) pts.push([x(i), y(v), i]); });
  let html = `<rect x="0" y="0" width="${W}" height="${H}" class="g-bg"/><line x1="0" x2="${W}" y1="${mid}" y2="${mid}" class="g-axis"/>`;
  if (pts.length) {
    const poly = pts.map((p) => `${p[0].toFixed(1)},${p[1].toFixed(1)}`).join(" ");
    html += `<polygon class="g-area" points="${pts[0][0].toFixed(1)},${mid} ${poly} ${pts[pts.length - 1][0].toFixed(1)},${mid}"/>`;
    html += `<polyline class="g-line" points="${poly}"/>`;
    if (pts.length < 40) for (const p of pts) html += `<circle class="g-dot" cx="${p[0].toFixed(1)}" cy="${p[1].toFixed(1)}" r="2"/>`;
  }
  for (const mk of state.marks) {
    if (mk.kind === "kept") continue;
    const e = state.evals[mk.ply + 1];
    const v = whiteCp(e) ?? 0;
    html += `<circle class="g-mark ${mk.kind}" cx="${x(mk.ply + 1)}" cy="${y(v)}" r="3.5" data-ply="${mk.ply + 1}"/>`;
  }
  html += `<line class="g-cursor" x1="${x(state.cursor)}" x2="${x(state.cursor)}" y1="0" y2="${H}"/>`;
  g.innerHTML = html;
  g.dataset.points = String(pts.length);
  g.onclick = (ev) => {
    const r = g.getBoundingClientRect();
    const ply = Math.round(((ev.clientX - r.left) / r.width) * n);
    send({ type: "goto", ply });
  };
}

function renderAnalysis() {
  if (!state) return;
  const best = lines[0];
  const evalEl = $("eval");
  const ol = $("pv-lines");
  ol.innerHTML = "";
  if (!best) {
    evalEl.textContent = state.analysis ? "…" : "–";
    $("search-stats").textContent = t(state.analysis ? "searching" : "analysis_off");
    setWdl(null);
    setEvalBar(null);
    return;
  }
  const text = fmtScore(best.score, best.white);
  evalEl.textContent = text;
  evalEl.dataset.depth = String(best.depth ?? 0);
  const nps = best.nps ? (best.nps >= 1e6 ? (best.nps / 1e6).toFixed(1) + " M" : Math.round(best.nps / 1e3) + " k") : "–";
  $("search-stats").textContent = (best.source === "play" ? t("engines_search") + " · " : "") + t("stats", { d: best.depth ?? 0, sd: best.seldepth ?? 0, nps, nodes: (best.nodes ?? 0).toLocaleString("en"), tb: best.tbhits ?? 0 });
  let wdl = best.wdl;
  if (wdl && best.white === false) wdl = [wdl[2], wdl[1], wdl[0]];
  setWdl(wdl);
  const s = best.score;
  setEvalBar(s ? whiteCp(best.white === false ? { kind: s.kind, value: -s.value } : s) : null, text);
  lines.forEach((l, k) => {
    if (!l || k >= state.multipv) return;
    const li = document.createElement("li");
    li.dataset.multipv = String(k + 1);
    const sc = document.createElement("span");
    sc.className = "pv-score";
    sc.textContent = fmtScore(l.score, l.white);
    li.appendChild(sc);
    const mv = document.createElement("span");
    mv.className = "pv-moves";
    mv.textContent = l.pv.join(" ");
    li.appendChild(mv);
    if (l.pv.length) li.onclick = () => send({ type: "preview", moves: l.pv.slice(0, 64) });
    ol.appendChild(li);
  });
}

function setWdl(w) {
  const el = $("wdl");
  const [a, b, c] = w || [0, 1000, 0];
  el.querySelector(".w").style.width = a / 10 + "%";
  el.querySelector(".d").style.width = b / 10 + "%";
  el.querySelector(".l").style.width = c / 10 + "%";
  el.dataset.wdl = w ? w.join(" ") : "";
  $("wdl-text").textContent = w ? t("wdl_text", { w: (a / 10).toFixed(1), d: (b / 10).toFixed(1), l: (c / 10).toFixed(1) }) : "";
}

function setEvalBar(cp, text) {
  const fill = $("evalfill");
  const frac = cp === null ? 0.5 : 0.5 + 0.5 * Math.tanh(cp / 400);
  fill.style.height = (frac * 100).toFixed(1) + "%";
  $("evalbar").classList.toggle("flipped", board.flipped);
  $("evalbar-text").textContent = cp === null ? "" : text;
}

function renderStatus() {
  const st = $("status");
  const end = state.end;
  const side = t(state.white_to_move ? "white" : "black");
  const pz = state.puzzle && state.puzzle.current;
  if (preview) st.textContent = t("st_preview");
  // In a puzzle the line under the board says what to find, then how it went (on a phone the
  // tab's own text is below the board).
  else if (pz && state.cursor === 0 && pz.status === "solving" && !selected && !pending) st.textContent = $("puzzle-task").textContent;
  else if (pz && pz.status !== "solving") st.textContent = $("puzzle-verdict").textContent;
  else if (end && state.cursor === state.moves.length) st.textContent = t("st_over", { result: resultText(end), reason: reasonText(end.reason) });
  else if (state.review) st.textContent = t("st_review");
  else if (state.thinking) st.textContent = t("st_thinking", { side });
  else if (pending) st.textContent = tc("st_remove");
  else if (state.legal.length) {
    const placing = state.legal.some((tok) => !tok.includes("-"));
    st.textContent = tc(placing ? "st_place" : selected ? "st_target" : "st_pick", { side });
  } else if (state.paused) st.textContent = t("st_paused");
  else if (state.cursor < state.moves.length) st.textContent = t("st_stepping", { side });
  else st.textContent = t("st_to_move", { side });
}

// "White kept the value in 31 of 33 moves": the proven marks counted for each side.
function proofSummary() {
  const whiteFirst = state.start_fen.split(" ")[1] !== "b";
  const n = { W: [0, 0], B: [0, 0] };
  for (const m of state.marks) {
    if (m.kind !== "kept" && m.kind !== "lost") continue;
    const side = (m.ply % 2 === 0) === whiteFirst ? "W" : "B";
    n[side][1]++;
    if (m.kind === "kept") n[side][0]++;
  }
  const part = (side, [k, total]) => total ? t("proof_side", { side, k, t: total }) : "";
  const text = [part(t("white"), n.W), part(t("black"), n.B)].filter(Boolean).join("; ") + ".";
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function renderReview(r) {
  const bar = $("review-bar");
  if (!r) {
    if (bar.dataset.done) bar.style.width = "100%";
    if (state && state.marks) {
      const c = { inaccuracy: 0, mistake: 0, blunder: 0, lost: 0, kept: 0 };
      for (const m of state.marks) c[m.kind]++;
      let text = state.marks.length || bar.dataset.done ? t("review_counts", { i: c.inaccuracy, m: c.mistake, b: c.blunder }) : "";
      if (c.lost + c.kept) text = proofSummary() + (c.inaccuracy + c.mistake + c.blunder ? " " + t("proof_search", { text }) : "");
      $("review-summary").textContent = text;
    }
    return;
  }
  const pct = r.total ? (100 * r.done) / r.total : 0;
  bar.style.width = pct.toFixed(1) + "%";
  bar.dataset.done = String(r.done);
  $("review-summary").textContent = t("review_position", { done: r.done, total: r.total });
}

// ---------- puzzles ----------

const GRADES = { easy: "pz_easy", medium: "pz_medium", hard: "pz_hard" };

// The Puzzles tab: the task, the verdict after the move, the streak.
function renderPuzzle() {
  const P = state.puzzle || { total: 0 };
  const c = P.current;
  const tab = $("tab-puzzles");
  $("puzzle-none").hidden = P.total > 0;
  $("puzzle-box").hidden = !P.total;
  tab.dataset.status = c ? c.status : "none";
  tab.dataset.streak = String(P.streak || 0);
  tab.dataset.solved = String(P.solved || 0);
  $("puzzle-streak").textContent = P.tried ? t("pz_streak", { streak: P.streak, best: P.best, solved: P.solved, tried: P.tried }) : "";
  if (!c) {
    for (const id of ["puzzle-title", "puzzle-grade", "puzzle-task", "puzzle-verdict"]) $(id).textContent = "";
    for (const id of ["puzzle-hint", "puzzle-line", "puzzle-retry"]) $(id).disabled = true;
    $("puzzle-next").textContent = t("pz_start");
    return;
  }
  tab.dataset.id = String(c.id);
  $("puzzle-next").textContent = t("pz_next");
  $("puzzle-title").textContent = t("pz_title", { id: c.id, total: P.total });
  $("puzzle-grade").textContent = t(GRADES[c.grade] || "pz_medium");
  $("puzzle-grade").dataset.grade = c.grade;
  const side = t(c.side === "white" ? "white" : "black");
  $("puzzle-task").textContent = t(c.value === "win" ? "pz_task_win" : "pz_task_draw", { side, fails: c.fails, legal: c.legal });
  const v = $("puzzle-verdict");
  v.dataset.kind = c.status;
  if (c.status === "solved") {
    v.textContent = t("pz_solved", { move: c.solution }) + (c.plies ? " " + t("pz_plies", { plies: c.plies }) : "");
  } else if (c.status === "failed") {
    v.textContent = c.reply ? t("pz_failed", { move: c.tried, reply: c.reply, solution: c.solution })
      : t("pz_failed_end", { move: c.tried, solution: c.solution });
  } else v.textContent = c.hint ? t("pz_hint_at", { p: c.hint }) : "";
  $("puzzle-hint").disabled = c.status !== "solving" || !!c.hint;
  $("puzzle-line").disabled = c.status === "solving";
  $("puzzle-retry").disabled = c.status === "solving";
}

// ---------- controls ----------

function limitRequest() {
  const kind = $("limit-kind").value;
  if (kind === "movetime") return { kind, ms: Math.round(Number($("movetime").value) * 1000) };
  if (kind === "depth") return { kind, depth: Math.round(Number($("depth").value)) };
  return { kind, base_ms: Math.round(Number($("clock-min").value) * 60000), inc_ms: Math.round(Number($("clock-inc").value) * 1000) };
}

function setup() {
  board = new Board($("board"), onPoint);
  app.dataset.touch = String(touch);
  document.addEventListener("pointerdown", onPointerKind, true);
  document.querySelectorAll(".tabs button").forEach((b) => {
    b.onclick = () => {
      document.querySelectorAll(".tabs button").forEach((x) => x.classList.toggle("active", x === b));
      document.querySelectorAll(".tab").forEach((t) => { t.hidden = t.id !== "tab-" + b.dataset.tab; });
      // The first visit to Puzzles shows one at once.
      if (b.dataset.tab === "puzzles" && state && state.puzzle && state.puzzle.total && !state.puzzle.current) send({ type: "puzzle_start", id: null });
    };
  });
  $("new-game").onclick = () => send({ type: "new_game", variant: $("variant").value, flying: $("flying").checked });
  $("result-new").onclick = () => { $("result-dialog").close(); $("new-game").click(); };
  $("result-close").onclick = () => $("result-dialog").close();
  const players = () => send({ type: "set_players", white: $("white-player").value, black: $("black-player").value });
  $("white-player").onchange = players;
  $("black-player").onchange = players;
  $("limit-kind").onchange = () => {
    for (const k of ["movetime", "clock", "depth"]) $("limit-" + k).hidden = $("limit-kind").value !== k;
  };
  $("set-limit").onclick = () => send({ type: "set_limit", limit: limitRequest() });
  $("takeback").onclick = () => send({ type: "takeback" });
  $("resign").onclick = () => send({ type: "resign" });
  $("go").onclick = () => send({ type: "go" });
  $("flip").onclick = () => { board.setFlipped(!board.flipped); $("board").dataset.flipped = String(board.flipped); render(); };
  const analyse = () => send({ type: "analyse", on: $("analyse").checked, multipv: Number($("multipv").value) });
  $("analyse").onchange = analyse;
  for (const h of document.querySelectorAll(".hints-toggle")) h.onchange = () => send({ type: "hints", on: h.checked });
  $("board").addEventListener("keydown", onBoardKey);
  $("multipv").onchange = () => { lines = []; if ($("analyse").checked) analyse(); };
  $("review-start").onclick = () => send({ type: "review", movetime: Math.round(Number($("review-time").value) * 1000) });
  $("review-stop").onclick = () => send({ type: "review_stop" });
  $("puzzle-next").onclick = () => send({ type: "puzzle_start", id: null });
  $("puzzle-retry").onclick = () => { const c = state && state.puzzle.current; if (c) send({ type: "puzzle_start", id: c.id }); };
  $("puzzle-hint").onclick = () => send({ type: "puzzle_hint" });
  $("puzzle-line").onclick = () => send({ type: "puzzle_line" });
  $("fen-set").onclick = () => send({ type: "set_fen", fen: $("fen-input").value });
  $("fen-copy").onclick = () => {
    $("fen-input").value = state ? state.fen : "";
    if (navigator.clipboard) navigator.clipboard.writeText($("fen-input").value).catch(() => {});
    toast(t("copied"), "info");
  };
  $("pgn-load").onclick = () => send({ type: "load_pgn", text: $("pgn-text").value });
  $("pgn-export").onclick = () => send({ type: "export_pgn" });
  $("jsonl-load").onclick = () => send({ type: "load_jsonl", line: $("jsonl-text").value });
  const nav = (d) => { if (state) send({ type: "goto", ply: Math.max(0, Math.min(state.moves.length, d(state.cursor, state.moves.length))) }); };
  $("nav-first").onclick = () => nav(() => 0);
  $("nav-back").onclick = () => nav((c) => c - 1);
  $("nav-forward").onclick = () => nav((c) => c + 1);
  $("nav-last").onclick = () => nav((c, n) => n);
  document.addEventListener("keydown", (ev) => {
    const t = ev.target;
    if (t && t.closest && t.closest("input, textarea, select")) return;
    if (ev.key === "Escape") {
      if (preview) { send({ type: "preview_end" }); preview = null; }
      selected = null; pending = null; render();
    } else if (ev.key === "ArrowLeft") $("nav-back").click();
    else if (ev.key === "ArrowRight") $("nav-forward").click();
    else if (ev.key === "Home") $("nav-first").click();
    else if (ev.key === "End") $("nav-last").click();
  });
  $("lang").onchange = () => setLang($("lang").value);
  setInterval(renderClocks, 100);
  fetchLang("en")
    .then((en) => { EN = en; return setLang(pickLang()); })
    .catch((e) => console.error(e))
    .finally(connect);
}

setup();
