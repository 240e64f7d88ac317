// The page: draws what the server reports (which in turn is what the engine reports) and
// turns clicks into requests. It knows no rules: moves are picked from the engine's list.

import { Board, parseToken, piecesOf } from "./board.js";

const $ = (id) => document.getElementById(id);
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
      banner("The connection to mill-gui was lost. Reload the page to start again.", "dead");
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

function handle(m) {
  switch (m.type) {
    case "hello": return onHello(m);
    case "state": return onState(m);
    case "info": return onInfo(m);
    case "preview": preview = m; return render();
    case "error": toast(m.message); app.dataset.lastError = m.message; return;
    case "engine_status":
      banner(m.message, m.status);
      logEngine(`[${m.status}] ${m.message}`);
      app.dataset.engineStatus = m.status;
      return;
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
      $("fatal").textContent = m.message;
      $("fatal").hidden = false;
      return;
  }
}

function onHello(m) {
  hello = m;
  $("engine-name").textContent = m.engine.name;
  $("engine-info").textContent = `${m.engine.name} · process ${m.engine.pid}` + (m.tables ? " · endgame tables on" : "");
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
    b.textContent = "Set";
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

const REASONS = {
  material: "the loser has fewer than three pieces",
  blocked: "the side to move cannot move",
  fullboard: "the board is full after the placing phase",
  threefold: "the same position occurred three times",
  hundredply: "100 plies without a mill",
  resign: "resignation",
  timeout: "loss on time",
};

function resultText(end) {
  return end.result === "1-0" ? "White wins" : end.result === "0-1" ? "Black wins" : "Draw";
}

function showResult(end) {
  const d = $("result-dialog");
  $("result-title").textContent = `${resultText(end)} · ${end.result}`;
  $("result-reason").textContent = REASONS[end.reason] ? `${end.reason}: ${REASONS[end.reason]}` : end.reason;
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
  if (k === 0) lines.length = Math.min(lines.length, Math.max(1, state ? state.multipv : 1));
  renderAnalysis();
  if (k === 0) renderBoard();
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
  if (!state) return;
  const L = legal();
  if (!L.length) { refuse(p, state.thinking ? "The engine is thinking…" : "No move to enter here."); return; }
  if (pending) {
    const m = L.find((x) => movePart(x.tok) === pending.move && x.remove === p);
    if (m) return sendMove(m.tok);
    pending = null;
    refuse(p, "Removal cancelled: choose the move again.");
    return render();
  }
  if (selected) {
    const c = L.filter((x) => x.from === selected && x.to === p);
    if (c.length) return choose(c);
    if (p === selected) { selected = null; return render(); }
    if (L.some((x) => x.from === p)) { selected = p; return render(); }
    selected = null;
    refuse(p, `${p} is not a legal target.`);
    return render();
  }
  const place = L.filter((x) => x.from === null && x.to === p);
  if (place.length) return choose(place);
  if (L.some((x) => x.from === p)) { selected = p; return render(); }
  refuse(p, `No legal move starts at ${p}.`);
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
  renderStatus();
  renderReview(state.review);
  const svg = $("board");
  svg.dataset.ply = String(state.cursor);
  svg.dataset.moves = state.moves.join(" ");
  svg.dataset.engineFen = state.fen;
  svg.dataset.legalCount = String(state.legal.length);
  $("preview-note").hidden = !preview;
  if (preview) $("preview-note").textContent = "Line: " + preview.moves.join(" ") + "  — click the board or press Esc to return";
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
    const best = lines[0];
    if (best && best.pv && best.pv.length && (state.analysis || state.thinking) && !pending) {
      view.arrows.push({ token: best.pv[0], kind: "best" });
    }
  }
  board.render(view);
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
    const name = state.players[s.i] === "engine" ? (hello ? hello.engine.name : "Engine") : "Human";
    s.el.querySelector(".swatch").className = "swatch " + (s.c === "W" ? "white" : "black");
    s.el.querySelector(".pname").textContent = `${s.c === "W" ? "White" : "Black"} · ${name}`;
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
    txt.textContent = `${s.hand} in hand · ${onBoard[s.c]} on board`;
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

const MARK_SYMBOL = { inaccuracy: "?!", mistake: "?", blunder: "??" };

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
        s.title = `${mk.kind}: ${mk.best} was better`;
      }
    }
    if (i + 1 === state.cursor) s.classList.add("current");
    s.onclick = () => send({ type: "goto", ply: i + 1 });
    row.appendChild(s);
    if (!white) num++;
    white = !white;
  });
  const cur = box.querySelector(".current");
  if (cur) cur.scrollIntoView({ block: "nearest" });
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
    $("search-stats").textContent = state.analysis ? "searching…" : "analysis off";
    setWdl(null);
    setEvalBar(null);
    return;
  }
  const text = fmtScore(best.score, best.white);
  evalEl.textContent = text;
  evalEl.dataset.depth = String(best.depth ?? 0);
  const nps = best.nps ? (best.nps >= 1e6 ? (best.nps / 1e6).toFixed(1) + " M" : Math.round(best.nps / 1e3) + " k") : "–";
  $("search-stats").textContent = `${best.source === "play" ? "engine's search · " : ""}depth ${best.depth ?? 0}/${best.seldepth ?? 0} · ${nps} nodes/s · ${(best.nodes ?? 0).toLocaleString("en")} nodes · tbhits ${best.tbhits ?? 0}`;
  let wdl = best.wdl;
  if (wdl && best.white === false) wdl = [wdl[2], wdl[1], wdl[0]];
  setWdl(wdl);
  const s = best.score;
  setEvalBar(s ? whiteCp(best.white === false ? { kind: s.kind, value: -s.value } : s) : null, text);
  lines.forEach((l, k) => {
    if (!l) return;
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
  $("wdl-text").textContent = w ? `White ${(a / 10).toFixed(1)}% · draw ${(b / 10).toFixed(1)}% · Black ${(c / 10).toFixed(1)}%` : "";
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
  const side = state.white_to_move ? "White" : "Black";
  if (preview) st.textContent = "Showing an analysis line.";
  else if (end && state.cursor === state.moves.length) st.textContent = `Game over: ${resultText(end)} (${end.reason}).`;
  else if (state.review) st.textContent = "Reviewing the game…";
  else if (state.thinking) st.textContent = `${side} (engine) is thinking…`;
  else if (pending) st.textContent = `Mill! Click a highlighted ${state.white_to_move ? "black" : "white"} piece to remove it.`;
  else if (state.legal.length) {
    const placing = state.legal.some((t) => !t.includes("-"));
    st.textContent = `${side} to move: ${placing ? "click a point to place a piece" : selected ? "click the target point" : "click a piece, then its target"}.`;
  } else if (state.paused) st.textContent = "The engine was stopped; press Engine move to let it play.";
  else if (state.cursor < state.moves.length) st.textContent = `${side} to move (stepping through the game).`;
  else st.textContent = `${side} to move.`;
}

function renderReview(r) {
  const bar = $("review-bar");
  if (!r) {
    if (bar.dataset.done) bar.style.width = "100%";
    if (state && state.marks) {
      const c = { inaccuracy: 0, mistake: 0, blunder: 0 };
      for (const m of state.marks) c[m.kind]++;
      $("review-summary").textContent = state.marks.length || bar.dataset.done ? `${c.inaccuracy} inaccuracies, ${c.mistake} mistakes, ${c.blunder} blunders` : "";
    }
    return;
  }
  const pct = r.total ? (100 * r.done) / r.total : 0;
  bar.style.width = pct.toFixed(1) + "%";
  bar.dataset.done = String(r.done);
  $("review-summary").textContent = `position ${r.done} of ${r.total}…`;
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
  document.querySelectorAll(".tabs button").forEach((b) => {
    b.onclick = () => {
      document.querySelectorAll(".tabs button").forEach((x) => x.classList.toggle("active", x === b));
      document.querySelectorAll(".tab").forEach((t) => { t.hidden = t.id !== "tab-" + b.dataset.tab; });
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
  $("multipv").onchange = () => { lines = []; if ($("analyse").checked) analyse(); };
  $("review-start").onclick = () => send({ type: "review", movetime: Math.round(Number($("review-time").value) * 1000) });
  $("review-stop").onclick = () => send({ type: "review_stop" });
  $("fen-set").onclick = () => send({ type: "set_fen", fen: $("fen-input").value });
  $("fen-copy").onclick = () => {
    $("fen-input").value = state ? state.fen : "";
    if (navigator.clipboard) navigator.clipboard.writeText($("fen-input").value).catch(() => {});
    toast("Position string copied", "info");
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
  setInterval(renderClocks, 100);
  connect();
}

setup();
