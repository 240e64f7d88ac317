// The board: an SVG of the 24 points, their lines, pieces, marks and arrows.
// Drawing only: which moves exist is never decided here, the engine lists them.

const NS = "http://www.w3.org/2000/svg";
const FILES = "abcdefg";

// The points in the order of the position string's board field, rank by rank.
export const RANKS = [
  ["a7", "d7", "g7"],
  ["b6", "d6", "f6"],
  ["c5", "d5", "e5"],
  ["a4", "b4", "c4", "e4", "f4", "g4"],
  ["c3", "d3", "e3"],
  ["b2", "d2", "f2"],
  ["a1", "d1", "g1"],
];
export const POINTS = RANKS.flat();

// The drawn lines of the board: three squares, four connectors, and in twelve four diagonals.
const SEGMENTS = [
  ["a7", "g7"], ["g7", "g1"], ["g1", "a1"], ["a1", "a7"],
  ["b6", "f6"], ["f6", "f2"], ["f2", "b2"], ["b2", "b6"],
  ["c5", "e5"], ["e5", "e3"], ["e3", "c3"], ["c3", "c5"],
  ["d7", "d5"], ["a4", "c4"], ["e4", "g4"], ["d3", "d1"],
];
const DIAGONALS = [["a7", "c5"], ["g7", "e5"], ["a1", "c3"], ["g1", "e3"]];

const SIZE = 720, MARGIN = 74, STEP = (SIZE - 2 * MARGIN) / 6;

function el(name, attrs = {}, parent = null) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

// The parts of a move token: {from, to, remove} (notation only).
export function parseToken(tok) {
  const [mv, remove] = tok.split("x");
  const [a, b] = mv.split("-");
  return b === undefined ? { from: null, to: a, remove: remove || null } : { from: a, to: b, remove: remove || null };
}

// The board field of a position string as a map point -> "W" | "B".
export function piecesOf(fen) {
  const field = (fen || "").split(" ")[0].replace(/\//g, "");
  const out = {};
  POINTS.forEach((p, i) => {
    const c = field[i];
    if (c === "W" || c === "B") out[p] = c;
  });
  return out;
}

export class Board {
  constructor(svg, onClick) {
    this.svg = svg;
    this.onClick = onClick;
    this.flipped = false;
    this.twelve = false;
    svg.setAttribute("viewBox", `0 0 ${SIZE} ${SIZE}`);
    const defs = el("defs", {}, svg);
    defs.innerHTML = `
      <radialGradient id="gw" cx="35%" cy="30%" r="75%">
        <stop offset="0%" stop-color="#ffffff"/><stop offset="55%" stop-color="#f1ebe0"/><stop offset="100%" stop-color="#c9bfae"/>
      </radialGradient>
      <radialGradient id="gb" cx="35%" cy="30%" r="75%">
        <stop offset="0%" stop-color="#6b6f78"/><stop offset="50%" stop-color="#2b2e35"/><stop offset="100%" stop-color="#0d0e11"/>
      </radialGradient>
      <linearGradient id="wood" x1="0" y1="0" x2="1" y2="1">
        <stop offset="0%" stop-color="#e9c98f"/><stop offset="50%" stop-color="#ddb677"/><stop offset="100%" stop-color="#cfa468"/>
      </linearGradient>
      <filter id="shadow" x="-30%" y="-30%" width="160%" height="160%">
        <feDropShadow dx="2" dy="4" stdDeviation="3" flood-color="#000" flood-opacity="0.45"/>
      </filter>
      <marker id="arrowhead" markerWidth="4" markerHeight="4" refX="2.2" refY="2" orient="auto">
        <path d="M0,0 L4,2 L0,4 z" fill="context-stroke"/>
      </marker>`;
    this.bg = el("rect", { x: 8, y: 8, width: SIZE - 16, height: SIZE - 16, rx: 18, class: "board-bg" }, svg);
    this.gCoords = el("g", { class: "coords" }, svg);
    this.gLines = el("g", { class: "lines" }, svg);
    this.gMarks = el("g", { class: "marks" }, svg);
    this.gDots = el("g", { class: "dots" }, svg);
    this.gPieces = el("g", { class: "pieces" }, svg);
    this.gArrows = el("g", { class: "arrows" }, svg);
    this.gHints = el("g", { class: "hints" }, svg);
    this.gFocus = el("g", { class: "focus" }, svg);
    this.gHits = el("g", { class: "hits" }, svg);
    this.drawStatic();
  }

  xy(p) {
    const f = FILES.indexOf(p[0]), r = Number(p[1]) - 1;
    let x = MARGIN + f * STEP, y = MARGIN + (6 - r) * STEP;
    if (this.flipped) { x = SIZE - x; y = SIZE - y; }
    return [x, y];
  }

  setFlipped(f) { this.flipped = f; this.drawStatic(); }
  setTwelve(t) { if (t !== this.twelve) { this.twelve = t; this.drawStatic(); } }

  drawStatic() {
    for (const g of [this.gLines, this.gCoords, this.gHits]) g.innerHTML = "";
    const segs = this.twelve ? SEGMENTS.concat(DIAGONALS) : SEGMENTS;
    for (const [a, b] of segs) {
      const [x1, y1] = this.xy(a), [x2, y2] = this.xy(b);
      el("line", { x1, y1, x2, y2, class: "line" }, this.gLines);
    }
    for (const p of POINTS) {
      const [x, y] = this.xy(p);
      el("circle", { cx: x, cy: y, r: 9, class: "point" }, this.gLines);
      const hit = el("circle", { cx: x, cy: y, r: 44, class: "hit", "data-point": p }, this.gHits);
      hit.addEventListener("click", (ev) => { ev.stopPropagation(); this.onClick(p); });
      el("title", {}, hit).textContent = p;
    }
    for (let i = 0; i < 7; i++) {
      const file = FILES[i], rank = String(i + 1);
      const [x] = this.xy(file + "1");
      const [, y] = this.xy("a" + rank);
      const fy = this.flipped ? 34 : SIZE - 18;
      const rx = this.flipped ? SIZE - 24 : 24;
      el("text", { x, y: fy, class: "coord" }, this.gCoords).textContent = file;
      el("text", { x: rx, y: y + 6, class: "coord" }, this.gCoords).textContent = rank;
    }
    if (this.last) this.render(this.last);
  }

  // view: {fen, lastMove, mills, selected, targets, removable, pending, arrows:[{token, kind}]}
  render(view) {
    this.last = view;
    const pieces = piecesOf(view.fen);
    if (view.pending) {
      const t = parseToken(view.pending);
      const color = t.from ? pieces[t.from] : view.pendingColor;
      if (t.from) delete pieces[t.from];
      pieces[t.to] = color;
    }
    this.gMarks.innerHTML = "";
    this.gPieces.innerHTML = "";
    this.gDots.innerHTML = "";
    this.gArrows.innerHTML = "";
    const lm = view.lastMove ? parseToken(view.lastMove) : null;
    if (lm) {
      for (const p of [lm.from, lm.to].filter(Boolean)) {
        const [x, y] = this.xy(p);
        el("circle", { cx: x, cy: y, r: 40, class: "last-square" }, this.gMarks);
      }
      if (lm.from) this.arrow(lm.from, lm.to, "last-arrow", this.gMarks);
    }
    for (const p of view.mills || []) {
      const [x, y] = this.xy(p);
      el("circle", { cx: x, cy: y, r: 36, class: "mill-glow", "data-mill": p }, this.gMarks);
    }
    for (const [p, c] of Object.entries(pieces)) {
      const [x, y] = this.xy(p);
      const cls = ["piece", c === "W" ? "white" : "black"];
      if (view.selected === p) cls.push("selected");
      if ((view.removable || []).includes(p)) cls.push("removable");
      if (lm && lm.to === p) cls.push("last");
      el("circle", { cx: x, cy: y, r: 31, class: cls.join(" "), "data-piece": p, "data-color": c,
        fill: c === "W" ? "url(#gw)" : "url(#gb)", filter: "url(#shadow)" }, this.gPieces);
      el("circle", { cx: x, cy: y, r: 20, class: "piece-ring " + (c === "W" ? "white" : "black") }, this.gPieces);
    }
    if (lm && lm.remove) {
      const [x, y] = this.xy(lm.remove);
      const d = 14;
      el("path", { d: `M${x - d},${y - d} L${x + d},${y + d} M${x + d},${y - d} L${x - d},${y + d}`, class: "removed-mark" }, this.gMarks);
    }
    for (const p of view.targets || []) {
      const [x, y] = this.xy(p);
      el("circle", { cx: x, cy: y, r: 13, class: "target", "data-target": p }, this.gDots);
    }
    for (const p of view.removable || []) {
      const [x, y] = this.xy(p);
      el("circle", { cx: x, cy: y, r: 38, class: "remove-ring", "data-removable": p }, this.gDots);
    }
    if (view.puzzleHint) {
      const [x, y] = this.xy(view.puzzleHint);
      el("circle", { cx: x, cy: y, r: 40, class: "puzzle-hint", "data-puzzle-hint": view.puzzleHint }, this.gDots);
    }
    for (const a of view.arrows || []) {
      const t = parseToken(a.token);
      if (t.from) this.arrow(t.from, t.to, a.kind, this.gArrows);
      else {
        const [x, y] = this.xy(t.to);
        el("circle", { cx: x, cy: y, r: 22, class: a.kind + "-dot" }, this.gArrows);
      }
      if (t.remove) {
        const [x, y] = this.xy(t.remove);
        el("circle", { cx: x, cy: y, r: 36, class: a.kind + "-remove" }, this.gArrows);
      }
    }
    this.gHints.innerHTML = "";
    for (const h of view.hints || []) {
      const [x, y] = this.xy(h.p);
      const g = el("g", { class: `hint hint-${h.result} hint-${h.kind}`, "data-hint": h.p, "data-result": h.result,
        "data-source": h.source }, this.gHints);
      if (h.trap !== undefined) {
        g.classList.add("hint-trap");
        g.dataset.trap = String(h.trap);
      }
      // A trap's dot is larger: its label carries the percentage besides the draw's sign.
      const trap = h.trap !== undefined;
      if (h.kind === "place" || h.kind === "target") el("circle", { cx: x, cy: y, r: trap ? 21 : 17, class: "hint-dot" }, g);
      else el("circle", { cx: x, cy: y, r: 37, class: "hint-ring" }, g);
      if (h.text) {
        const ty = h.kind === "place" || h.kind === "target" ? y + (trap ? 5 : 6) : y + 52;
        el("text", { x, y: ty, class: "hint-text" }, g).textContent = h.text;
      }
    }
    this.hintAt = {};
    for (const h of view.hints || []) this.hintAt[h.p] = h;
    this.piecesAt = pieces;
    this.drawFocus();
    this.svg.dataset.fen = this.domFen(view.fen);
  }

  // The keyboard's focus ring over one point (null: none).
  setFocus(p) { this.focus = p; this.drawFocus(); }

  drawFocus() {
    this.gFocus.innerHTML = "";
    if (!this.focus) return;
    const [x, y] = this.xy(this.focus);
    el("circle", { cx: x, cy: y, r: 42, class: "focus-ring", "data-focus": this.focus }, this.gFocus);
  }

  // The point one step from `p` in a direction on the screen (dx, dy in -1..1), the nearest
  // point that lies that way; `p` itself when there is none.
  neighbour(p, dx, dy) {
    const [x0, y0] = this.xy(p);
    let best = p, bestD = Infinity;
    for (const q of POINTS) {
      if (q === p) continue;
      const [x, y] = this.xy(q);
      const ax = x - x0, ay = y - y0;
      const along = ax * dx + ay * dy;
      if (along <= 0) continue;
      const across = Math.abs(ax * dy - ay * dx);
      const d = along + 2.5 * across;
      if (d < bestD) { bestD = d; best = q; }
    }
    return best;
  }

  arrow(a, b, cls, parent) {
    const [x1, y1] = this.xy(a), [x2, y2] = this.xy(b);
    const dx = x2 - x1, dy = y2 - y1, len = Math.hypot(dx, dy) || 1;
    const s = 26, e = 40;
    el("line", { x1: x1 + dx / len * s, y1: y1 + dy / len * s, x2: x2 - dx / len * e, y2: y2 - dy / len * e,
      class: cls, "marker-end": "url(#arrowhead)" }, parent);
  }

  // The position string as drawn: the board field read back from the pieces on the SVG,
  // the other fields from the engine's string.
  domFen(fen) {
    const at = {};
    for (const c of this.gPieces.querySelectorAll("[data-piece]")) at[c.dataset.piece] = c.dataset.color;
    const field = RANKS.map((r) => r.map((p) => at[p] || ".").join("")).join("/");
    const rest = (fen || "").split(" ").slice(1).join(" ");
    return field + " " + rest;
  }
}
