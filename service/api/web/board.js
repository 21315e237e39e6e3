// The map as SVG, drawn from GetScenario's data and a GameState, with the conventions of
// clients/render.py: flat-topped hexes, odd columns half a hex higher; every hex a
// <polygon class="hex" data-hex="CCRR">, every unit a <g class="unit" data-unit data-hex data-side
// data-strength>, so tests (and people with dev tools) can read the board back.

export const SIZE = 36;                       // hex radius
export const HEIGHT = Math.sqrt(3) * SIZE;
const MARGIN = 14;
const EDGE = { SE: 0, S: 1, SW: 2, NW: 3, N: 4, NE: 5 };   // hexside k runs from corner k to corner k+1
const SIDE_FILL = { german: "#7ea6d8", soviet: "#c98f5c" };
const SIDE_FILL_HALF = { german: "#cfdff2", soviet: "#efd6bf" };
const SIDE_INK = { german: "#14365e", soviet: "#5a2a06" };

export function center(column, row) {
  return [MARGIN + SIZE + (column - 1) * 1.5 * SIZE,
          MARGIN + HEIGHT / 2 + (row - 1) * HEIGHT + (column % 2 === 0 ? HEIGHT / 2 : 0)];
}

function corners(x, y) {
  const out = [];
  for (let k = 0; k < 6; k++) out.push([x + SIZE * Math.cos(Math.PI / 3 * k), y + SIZE * Math.sin(Math.PI / 3 * k)]);
  return out;
}

const f = (n) => n.toFixed(1);
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

// The parts of the map that never change, computed once per scenario (the drawing itself is redone
// on every redraw: that is what is timed).
export function prepare(scenario) {
  const map = scenario.map;
  const hexes = map.hexes.map((h) => {
    const [x, y] = center(h.column, h.row);
    return { ...h, x, y, corners: corners(x, y) };
  });
  const byId = new Map(hexes.map((h) => [h.id, h]));
  const counters = new Map(scenario.counters.map((c) => [c.id, c]));
  const width = 2 * MARGIN + SIZE * (1.5 * (map.columns - 1) + 2);
  const height = 2 * MARGIN + HEIGHT * (map.rows + 0.5);
  return { scenario, hexes, byId, counters, width, height };
}

function terrain(board, out) {
  out.push('<g class="terrain">');
  for (const h of board.hexes) {
    const points = h.corners.map(([x, y]) => `${f(x)},${f(y)}`).join(" ");
    out.push(`<polygon class="hex ${h.terrain}" data-hex="${h.id}" points="${points}"/>`);
    if (h.terrain === "forest") {
      for (const [dx, dy] of [[-12, 4], [10, 6], [-1, -6]]) {
        out.push(`<path class="tree" d="M${f(h.x + dx)},${f(h.y + dy - 7)}l-5,9h10z"/>`);
      }
    }
  }
  out.push("</g>");
  out.push('<g class="rails">');
  for (const h of board.hexes) {
    for (const direction of h.rail) {
      const k = EDGE[direction];
      const angle = Math.PI / 3 * k + Math.PI / 6;
      const ex = h.x + (HEIGHT / 2) * Math.cos(angle), ey = h.y + (HEIGHT / 2) * Math.sin(angle);
      out.push(`<line class="rail" x1="${f(h.x)}" y1="${f(h.y)}" x2="${f(ex)}" y2="${f(ey)}"/>`);
    }
  }
  out.push("</g>");
  out.push('<g class="rivers">');
  for (const h of board.hexes) {
    for (const direction of h.river) {
      const k = EDGE[direction];
      const [a, b] = [h.corners[k], h.corners[(k + 1) % 6]];
      out.push(`<line class="river" x1="${f(a[0])}" y1="${f(a[1])}" x2="${f(b[0])}" y2="${f(b[1])}"/>`);
    }
  }
  out.push("</g>");
  out.push('<g class="labels">');
  for (const h of board.hexes) {
    if (h.fort) out.push(`<circle class="fort" cx="${f(h.x)}" cy="${f(h.y)}" r="${f(SIZE * 0.8)}"/>`);
    out.push(`<text class="hex-id" x="${f(h.x)}" y="${f(h.y - HEIGHT / 2 + 9)}">${h.id}</text>`);
    if (h.setup === "german" && !h.city) {
      out.push(`<path class="setup-cross" d="M${f(h.x + 18)},${f(h.y - 22)}h8m-4,-4v8"/>`);
    }
  }
  out.push("</g>");
}

function cities(board, control, out) {
  out.push('<g class="cities">');
  for (const h of board.hexes) {
    if (!h.city) continue;
    const owner = control[h.id] || "";
    const cy = h.y + HEIGHT / 2 - 15;
    if (h.capital) {
      out.push(`<path class="city capital" data-hex="${h.id}" data-control="${owner}" fill="${SIDE_FILL[owner] || "#222"}" `
        + `d="${star(h.x, cy, 9, 4)}"/>`);
    } else {
      out.push(`<circle class="city" data-hex="${h.id}" data-control="${owner}" cx="${f(h.x)}" cy="${f(cy)}" r="5.5" `
        + `fill="${SIDE_FILL[owner] || "#222"}"/>`);
    }
    out.push(`<text class="city-name" x="${f(h.x)}" y="${f(h.y + HEIGHT / 2 - 2)}">${esc(h.city)}</text>`);
  }
  out.push("</g>");
}

function star(x, y, outer, inner) {
  const points = [];
  for (let i = 0; i < 10; i++) {
    const r = i % 2 ? inner : outer, a = -Math.PI / 2 + i * Math.PI / 5;
    points.push(`${f(x + r * Math.cos(a))},${f(y + r * Math.sin(a))}`);
  }
  return `M${points.join("L")}Z`;
}

// A label wider than `room` (a guess from its letters at the id's 8.5 px bold) is squeezed into it.
function fitted(label, room) {
  let width = 0;
  for (const c of label) width += /[-.ilI]/.test(c) ? 3.2 : /[A-Z0-9]/.test(c) ? 6.3 : 5.4;
  return width > room ? ` textLength="${f(room)}" lengthAdjust="spacingAndGlyphs"` : "";
}

// A counter: the side's colour (paler at half strength, with a band saying so), the unit id, a
// NATO-style symbol (infantry: a cross; panzer and tank: an oval track), strength and movement.
function counter(board, unit, x, y, classes) {
  const c = board.counters.get(unit.id) || { side: "", type: "infantry", full: "?", half: "?", ma: "?" };
  const full = unit.strength === "full";
  const w = SIZE * 1.2, h = SIZE * 0.98;
  const fill = (full ? SIDE_FILL : SIDE_FILL_HALF)[c.side] || "#ddd";
  const ink = SIDE_INK[c.side] || "#111";
  const out = [`<g class="unit ${classes}" data-unit="${esc(unit.id)}" data-hex="${unit.hex}" data-side="${c.side}" `
    + `data-strength="${unit.strength}" transform="translate(${f(x)},${f(y)})">`];
  out.push(`<rect class="counter" x="${f(-w / 2)}" y="${f(-h / 2)}" width="${f(w)}" height="${f(h)}" rx="3" fill="${fill}" stroke="${ink}"/>`);
  // the band runs down the right edge, clear of the centred id, symbol and values
  if (!full) out.push(`<rect class="half-band" x="${f(w / 2 - 4)}" y="${f(-h / 2)}" width="4" height="${f(h)}" fill="${ink}"/>`);
  out.push(`<text class="unit-id" y="${f(-h / 2 + 10)}" fill="${ink}"${fitted(unit.id, w - 6)}>${esc(unit.id)}</text>`);
  const sw = 16, sh = 10, sy = -4;
  out.push(`<rect class="symbol" x="${-sw / 2}" y="${sy}" width="${sw}" height="${sh}" stroke="${ink}"/>`);
  if (c.type === "infantry") {
    out.push(`<path class="symbol" d="M${-sw / 2},${sy}l${sw},${sh}m0,${-sh}l${-sw},${sh}" stroke="${ink}"/>`);
  } else {
    out.push(`<rect class="symbol" x="-5.5" y="${sy + 2.5}" width="11" height="5" rx="2.5" stroke="${ink}"/>`);
  }
  const strength = full ? c.full : c.half;
  out.push(`<text class="unit-values" y="${f(h / 2 - 3)}" fill="${ink}">${strength}-${c.ma}</text>`);
  out.push("</g>");
  return out.join("");
}

// Draw the whole map for `state` (a GameState) into `svg`; `marks`: {reachable: Set of hex ids,
// selected: unit id, targets: Set of unit ids, attackers: Set of unit ids, battles: [...], path: [hex ids]}.
// Returns the milliseconds it took (building the markup, the browser parsing it and laying it out).
export function draw(svg, board, state, marks = {}) {
  const started = performance.now();
  if (!board.terrain) {  // the markup of what never changes is built once; the browser still redraws it all
    const parts = [];
    terrain(board, parts);
    board.terrain = parts.join("");
  }
  const out = [board.terrain];
  cities(board, state.city_control || {}, out);
  out.push('<g class="marks">');
  for (const id of marks.reachable || []) {
    const h = board.byId.get(id);
    if (h) out.push(`<polygon class="reachable" data-hex="${id}" points="${h.corners.map(([x, y]) => `${f(x)},${f(y)}`).join(" ")}"/>`);
  }
  if (marks.path && marks.path.length) {
    const points = marks.path.map((id) => board.byId.get(id)).filter(Boolean).map((h) => `${f(h.x)},${f(h.y)}`);
    out.push(`<polyline class="path" points="${points.join(" ")}"/>`);
  }
  for (const battle of marks.battles || []) {
    const target = board.byId.get(battle.hex);
    if (!target) continue;
    for (const attacker of battle.attackers) {
      const from = (state.units || []).find((u) => u.id === attacker);
      const source = from && board.byId.get(from.hex);
      if (source) {
        out.push(`<line class="battle-arrow" x1="${f(source.x)}" y1="${f(source.y)}" x2="${f((source.x + 2 * target.x) / 3)}" `
          + `y2="${f((source.y + 2 * target.y) / 3)}" marker-end="url(#arrow)"/>`);
      }
    }
  }
  out.push("</g>");
  out.push('<g class="units">');
  const seen = new Map();
  // in a stack, the units that can act (and the one selected) come last: on top, where a click finds them
  const movable = marks.movable || new Set();
  const rank = (unit) => (marks.selected === unit.id ? 2 : movable.has(unit.id) ? 1 : 0);
  const drawn = (state.units || []).slice().sort((a, b) => rank(a) - rank(b));
  for (const unit of drawn) {
    const h = board.byId.get(unit.hex);
    if (!h) continue;
    const stacked = seen.get(unit.hex) || 0;
    seen.set(unit.hex, stacked + 1);
    const classes = [marks.selected === unit.id ? "selected" : "", (marks.targets || new Set()).has(unit.id) ? "target" : "",
      (marks.attackers || new Set()).has(unit.id) ? "attacker" : "", movable.has(unit.id) ? "movable" : ""]
      .filter(Boolean).join(" ");
    out.push(counter(board, unit, h.x + stacked * 6, h.y + stacked * 6, classes));
  }
  out.push("</g>");
  svg.setAttribute("viewBox", `0 0 ${f(board.width)} ${f(board.height)}`);
  svg.innerHTML = '<defs><marker id="arrow" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="5" markerHeight="5" '
    + 'orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#b3261e"/></marker></defs>' + out.join("");
  svg.getBBox();  // lay it out now, so the time includes the browser's work, not just ours
  return performance.now() - started;
}

// The hex id under a click, from the element hit (hexes, marks and units all carry data-hex).
export function hexAt(target) {
  const element = target.closest("[data-hex]");
  return element ? element.getAttribute("data-hex") : null;
}

export function unitAt(target) {
  const element = target.closest(".unit");
  return element ? element.getAttribute("data-unit") : null;
}
