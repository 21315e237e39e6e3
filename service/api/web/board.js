// The map as SVG, drawn from GetScenario's data and a GameState, with the conventions of
// clients/render.py: flat-topped hexes, odd columns half a hex higher; every hex a
// <polygon class="hex" data-hex="CCRR">, every unit a <g class="unit" data-unit data-hex data-side
// data-strength>, so tests (and people with dev tools) can read the board back.
//
// What never changes (terrain, rails, rivers, labels) is drawn once per map; a redraw changes only what
// changed: a city's owner, the counters that moved, turned or went, the marks of the moment.

export const SIZE = 36;                       // hex radius
export const HEIGHT = Math.sqrt(3) * SIZE;
const MARGIN = 14;
const EDGE = { SE: 0, S: 1, SW: 2, NW: 3, N: 4, NE: 5 };   // hexside k runs from corner k to corner k+1
const SIDE_FILL = { german: "#7ea6d8", soviet: "#c98f5c" };
const SIDE_FILL_HALF = { german: "#cfdff2", soviet: "#efd6bf" };
const SIDE_INK = { german: "#14365e", soviet: "#5a2a06" };
const SVG = "http://www.w3.org/2000/svg";
// A counter's size in map units: at a zoom of COUNTER_WIDTH / 44 or more, it is a 44 px target.
export const COUNTER_WIDTH = SIZE * 1.2;
const COUNTER_HEIGHT = SIZE * 0.98;

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
const pointsOf = (h) => h.corners.map(([x, y]) => `${f(x)},${f(y)}`).join(" ");

// The parts of the map that never change, computed once per scenario.
export function prepare(scenario) {
  const map = scenario.map;
  const hexes = map.hexes.map((h) => {
    const [x, y] = center(h.column, h.row);
    return { ...h, x, y, corners: corners(x, y) };
  });
  const byId = new Map(hexes.map((h) => [h.id, h]));
  const at = new Map(hexes.map((h) => [`${h.column},${h.row}`, h]));
  const counters = new Map(scenario.counters.map((c) => [c.id, c]));
  const width = 2 * MARGIN + SIZE * (1.5 * (map.columns - 1) + 2);
  const height = 2 * MARGIN + HEIGHT * (map.rows + 0.5);
  return { scenario, hexes, byId, at, counters, width, height };
}

// The hex the arrow key `key` leads to from `id` (null at the map's edge): up and down along the
// column, left and right to the next column's hex nearest in height (the same row on a tie, so that
// left then right comes back).
export function step(board, id, key) {
  const h = board.byId.get(id);
  if (!h) return null;
  const { column: c, row: r } = h;
  const cell = (column, row) => board.at.get(`${column},${row}`) || null;
  if (key === "ArrowUp") return cell(c, r - 1);
  if (key === "ArrowDown") return cell(c, r + 1);
  const next = key === "ArrowLeft" ? c - 1 : key === "ArrowRight" ? c + 1 : null;
  if (next === null) return null;
  return cell(next, r) || cell(next, next % 2 === 0 ? r - 1 : r + 1);
}

// What never changes, drawn as one image: the hexes' terrain, trees, rails, rivers, forts, set-up
// crosses, the hexes' ids and the cities' names (laying out some thousand SVG elements in the page was
// most of a first drawing's time; an image is laid out once, on its own). Its look is its own style.
const TERRAIN_STYLE = ".hex{stroke:#8c8577;stroke-width:1}.clear{fill:#f4eed7}.forest{fill:#b7d7a8}"
  + ".tree{fill:#5f8f50;opacity:.55}.rail{stroke:#333;stroke-width:2.2;stroke-dasharray:5 3}"
  + ".river{stroke:#3b7dd8;stroke-width:5;stroke-linecap:round}"
  + ".fort{fill:none;stroke:#8b5a2b;stroke-width:3.5;stroke-dasharray:5 3}.setup-cross{stroke:#14365e;stroke-width:1.6;opacity:.5}"
  + "text{font-family:'DejaVu Sans',system-ui,sans-serif;text-anchor:middle;paint-order:stroke;"
  + "stroke:#f4eed7;stroke-width:2.5px;stroke-linejoin:round}.hex-id{font-size:8px;fill:#7b7466}"
  + ".city-name{font-size:9px;font-weight:700;fill:#111}";

function terrainImage(board) {
  // one path per kind of thing (every clear hex, every tree, every rail…), not an element each: the image
  // is a document of its own, and its styling and layout grow with its elements (some thousand before)
  const shapes = { clear: [], forest: [], tree: [], rail: [], river: [], fort: [], "setup-cross": [] };
  const outline = (h) => `M${h.corners.map(([x, y]) => `${f(x)},${f(y)}`).join("L")}Z`;
  for (const h of board.hexes) {
    (shapes[h.terrain] || shapes.clear).push(outline(h));
    if (h.terrain === "forest") {
      for (const [dx, dy] of [[-12, 4], [10, 6], [-1, -6]]) shapes.tree.push(`M${f(h.x + dx)},${f(h.y + dy - 7)}l-5,9h10z`);
    }
    for (const direction of h.rail) {
      const angle = Math.PI / 3 * EDGE[direction] + Math.PI / 6;
      shapes.rail.push(`M${f(h.x)},${f(h.y)}L${f(h.x + (HEIGHT / 2) * Math.cos(angle))},${f(h.y + (HEIGHT / 2) * Math.sin(angle))}`);
    }
    for (const direction of h.river) {
      const k = EDGE[direction];
      const [a, b] = [h.corners[k], h.corners[(k + 1) % 6]];
      shapes.river.push(`M${f(a[0])},${f(a[1])}L${f(b[0])},${f(b[1])}`);
    }
    const r = SIZE * 0.8;
    if (h.fort) shapes.fort.push(`M${f(h.x - r)},${f(h.y)}a${f(r)},${f(r)} 0 1,0 ${f(2 * r)},0a${f(r)},${f(r)} 0 1,0 ${f(-2 * r)},0`);
    if (h.setup === "german" && !h.city) shapes["setup-cross"].push(`M${f(h.x + 18)},${f(h.y - 22)}h8m-4,-4v8`);
  }
  const out = [];
  for (const [kind, parts] of Object.entries(shapes)) {
    if (!parts.length) continue;
    const classes = kind === "clear" || kind === "forest" ? `hex ${kind}` : kind;
    out.push(`<path class="${classes}" d="${parts.join("")}"/>`);
  }
  for (const h of board.hexes) out.push(`<text class="hex-id" x="${f(h.x)}" y="${f(h.y - HEIGHT / 2 + 9)}">${h.id}</text>`);
  for (const h of board.hexes) {
    if (h.city) out.push(`<text class="city-name" x="${f(h.x)}" y="${f(h.y + HEIGHT / 2 - 2)}">${esc(h.city)}</text>`);
  }
  const [w, h] = [f(board.width), f(board.height)];
  const image = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">`
    + `<style>${TERRAIN_STYLE}</style>${out.join("")}</svg>`;
  // a blob, not a data: URL: the browser loads it in a task of its own, after the page's first drawing
  const url = URL.createObjectURL(new Blob([image], { type: "image/svg+xml" }));
  return `<image class="terrain" x="0" y="0" width="${w}" height="${h}" href="${url}"/>`;
}

// The map: its image, and over it each hex as a bare polygon (class "hex <terrain>", data-hex), what
// a click or a test finds.
function terrain(board, out) {
  out.push(terrainImage(board));
  out.push('<g class="hexes">');
  for (const h of board.hexes) out.push(`<polygon class="hex ${h.terrain}" data-hex="${h.id}" points="${pointsOf(h)}"/>`);
  out.push("</g>");
}

function cities(board, out) {
  out.push('<g class="cities">');
  for (const h of board.hexes) {
    if (!h.city) continue;
    const cy = h.y + HEIGHT / 2 - 15;
    if (h.capital) {
      out.push(`<path class="city capital" data-hex="${h.id}" data-control="" fill="#222" d="${star(h.x, cy, 9, 4)}"/>`);
    } else {
      out.push(`<circle class="city" data-hex="${h.id}" data-control="" cx="${f(h.x)}" cy="${f(cy)}" r="5.5" fill="#222"/>`);
    }
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

// A unit in words, as a screen reader says it: "XLVII Panzer Corps, German panzer, full strength 9-4, in 0901".
export function unitLabel(board, unit) {
  const c = board.counters.get(unit.id) || { side: "", type: "", full: "?", half: "?", ma: "?" };
  const name = c.name && c.name !== unit.id ? `${unit.id} (${c.name})` : unit.id;
  const full = unit.strength === "full";
  const side = c.side ? c.side[0].toUpperCase() + c.side.slice(1) : "";
  return `${name}, ${side} ${c.type}, ${full ? "full" : "half"} strength ${full ? c.full : c.half}-${c.ma}, in ${unit.hex}`;
}

// A counter's inside: the side's colour (paler at half strength, with a band saying so), the unit id,
// a NATO-style symbol (infantry: a cross; panzer and tank: an oval track), strength and movement.
function counterBody(board, unit) {
  const c = board.counters.get(unit.id) || { side: "", type: "infantry", full: "?", half: "?", ma: "?" };
  const full = unit.strength === "full";
  const w = COUNTER_WIDTH, h = COUNTER_HEIGHT;
  const fill = (full ? SIDE_FILL : SIDE_FILL_HALF)[c.side] || "#ddd";
  const ink = SIDE_INK[c.side] || "#111";
  const out = [`<rect class="counter" x="${f(-w / 2)}" y="${f(-h / 2)}" width="${f(w)}" height="${f(h)}" rx="3" fill="${fill}" stroke="${ink}"/>`];
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
  out.push(`<text class="unit-values" y="${f(h / 2 - 3)}" fill="${ink}">${full ? c.full : c.half}-${c.ma}</text>`);
  return out.join("");
}

const DEFS = '<defs><marker id="arrow" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="5" markerHeight="5" '
  + 'orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#b3261e"/></marker>'
  // "may go here": amber hatching, which no terrain has (forest is green)
  + '<pattern id="may-go" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
  + '<rect width="8" height="8" fill="#ffd54f" fill-opacity=".35"/><rect width="3" height="8" fill="#e65100" fill-opacity=".45"/></pattern></defs>';

// The layers of `svg` for `board`, built the first time (or when the map changes).
function layers(svg, board) {
  if (svg.typhoonBoard === board) return svg.typhoonLayers;
  if (!board.terrain) {
    const parts = [];
    terrain(board, parts);
    cities(board, parts);
    board.terrain = parts.join("");
  }
  svg.setAttribute("viewBox", `0 0 ${f(board.width)} ${f(board.height)}`);
  svg.innerHTML = `${DEFS}${board.terrain}<g class="marks"></g><g class="units"></g><g class="results"></g><g class="cursor-layer"></g>`;
  const cityNodes = new Map([...svg.querySelectorAll(".city")].map((node) => [node.dataset.hex, node]));
  svg.typhoonBoard = board;
  svg.typhoonLayers = {
    marks: svg.querySelector(".marks"), units: svg.querySelector(".units"), results: svg.querySelector(".results"),
    cursor: svg.querySelector(".cursor-layer"), cityNodes, unitNodes: new Map(), marksKey: "", resultsKey: "", cursorKey: "",
  };
  return svg.typhoonLayers;
}

function marksMarkup(board, state, marks) {
  const out = [];
  for (const id of marks.reachable || []) {
    const h = board.byId.get(id);
    if (h) out.push(`<polygon class="reachable" data-hex="${id}" points="${pointsOf(h)}"/>`);
  }
  if (marks.path && marks.path.length) {
    const points = marks.path.map((id) => board.byId.get(id)).filter(Boolean).map((h) => `${f(h.x)},${f(h.y)}`);
    out.push(`<polyline class="path" points="${points.join(" ")}"/>`);
  }
  const hexOf = new Map((state.units || []).map((u) => [u.id, u.hex]));
  const arrows = [...(marks.battles || []).map((b) => [b.hex, b.attackers, "battle-arrow"]),
    ...(marks.plan ? [[marks.plan.hex, marks.plan.attackers, "battle-arrow planned"]] : [])];
  for (const [hex, attackers, kind] of arrows) {
    const target = board.byId.get(hex);
    if (!target) continue;
    for (const attacker of attackers) {
      const source = board.byId.get(hexOf.get(attacker));
      if (source) {
        out.push(`<line class="${kind}" x1="${f(source.x)}" y1="${f(source.y)}" x2="${f((source.x + 2 * target.x) / 3)}" `
          + `y2="${f((source.y + 2 * target.y) / 3)}" marker-end="url(#arrow)"/>`);
      }
    }
  }
  return out.join("");
}

// The outcome of each battle resolved lately, on its hex: "DR 4".
function resultsMarkup(board, results) {
  return (results || []).map((r) => {
    const h = board.byId.get(r.hex);
    if (!h) return "";
    const text = `${r.result}${r.roll ? ` ${r.roll}` : ""}`;
    const w = 8 + text.length * 7;
    return `<g class="battle-result result-${esc(r.result)}" data-hex="${r.hex}" transform="translate(${f(h.x)},${f(h.y - HEIGHT / 2 + 2)})">`
      + `<rect x="${f(-w / 2)}" y="-1" width="${f(w)}" height="16" rx="8"/><text y="11.5">${esc(text)}</text></g>`;
  }).join("");
}

// Draw `state` (a GameState) into `svg`; `marks`: {reachable: Set of hex ids, selected: unit id,
// targets: Set of unit ids, attackers: Set of unit ids, movable: Set of unit ids, battles: [...],
// plan: {hex, attackers}, path: [hex ids], results: [{hex, result, roll}], cursor: hex id}.
// Only what differs from the last drawing changes. Returns the milliseconds it took (building and
// changing the elements; the browser's layout follows in the frame, with the rest of the page's).
export function draw(svg, board, state, marks = {}) {
  const started = performance.now();
  const layer = layers(svg, board);
  const control = state.city_control || {};
  for (const [hex, node] of layer.cityNodes) {
    const owner = control[hex] || "";
    if (node.dataset.control !== owner) {
      node.dataset.control = owner;
      node.setAttribute("fill", SIDE_FILL[owner] || "#222");
    }
  }
  const marksHtml = marksMarkup(board, state, marks);
  if (marksHtml !== layer.marksKey) { layer.marks.innerHTML = marksHtml; layer.marksKey = marksHtml; }
  const resultsHtml = resultsMarkup(board, marks.results);
  if (resultsHtml !== layer.resultsKey) { layer.results.innerHTML = resultsHtml; layer.resultsKey = resultsHtml; }
  const cursor = marks.cursor && board.byId.get(marks.cursor);
  const cursorHtml = cursor ? `<polygon class="cursor" data-hex="${cursor.id}" points="${pointsOf(cursor)}"/>` : "";
  if (cursorHtml !== layer.cursorKey) { layer.cursor.innerHTML = cursorHtml; layer.cursorKey = cursorHtml; }

  // in a stack, the units that can act (and the one selected) come last: on top, where a click finds them
  const movable = marks.movable || new Set(), targets = marks.targets || new Set(), attackers = marks.attackers || new Set();
  const rank = (unit) => (marks.selected === unit.id ? 2 : movable.has(unit.id) ? 1 : 0);
  const drawn = (state.units || []).filter((u) => board.byId.has(u.hex)).sort((a, b) => rank(a) - rank(b));
  const seen = new Map(), keep = new Set();
  const order = [];
  // counters new to the map are parsed together (the first drawing has them all: one parse, not forty)
  const fresh = drawn.filter((unit) => !layer.unitNodes.has(unit.id));
  if (fresh.length) {
    const holder = document.createElementNS(SVG, "g");
    holder.innerHTML = fresh.map((unit) => `<g data-unit="${esc(unit.id)}" role="img" data-strength="${esc(unit.strength)}" `
      + `data-side="${esc((board.counters.get(unit.id) || {}).side || "")}">${counterBody(board, unit)}</g>`).join("");
    for (const node of [...holder.children]) layer.unitNodes.set(node.dataset.unit, node);
  }
  for (const unit of drawn) {
    const h = board.byId.get(unit.hex);
    const stacked = seen.get(unit.hex) || 0;
    seen.set(unit.hex, stacked + 1);
    const classes = ["unit", marks.selected === unit.id ? "selected" : "", targets.has(unit.id) ? "target" : "",
      attackers.has(unit.id) ? "attacker" : "", movable.has(unit.id) ? "movable" : ""].filter(Boolean).join(" ");
    const node = layer.unitNodes.get(unit.id);
    if (node.dataset.strength !== unit.strength) {
      node.dataset.strength = unit.strength;
      node.dataset.side = (board.counters.get(unit.id) || {}).side || "";
      node.innerHTML = counterBody(board, unit);
    }
    const transform = `translate(${f(h.x + stacked * 6)},${f(h.y + stacked * 6)})`;
    if (node.getAttribute("transform") !== transform) node.setAttribute("transform", transform);
    if (node.dataset.hex !== unit.hex || node.dataset.labelled !== unit.strength) {
      node.dataset.hex = unit.hex;
      node.dataset.labelled = unit.strength;
      node.setAttribute("aria-label", unitLabel(board, unit));
    }
    if (node.getAttribute("class") !== classes) node.setAttribute("class", classes);
    keep.add(unit.id);
    order.push(node);
  }
  for (const [id, node] of layer.unitNodes) {
    if (!keep.has(id)) { node.remove(); layer.unitNodes.delete(id); }
  }
  const children = layer.units.children;
  if (children.length !== order.length || order.some((node, i) => children[i] !== node)) layer.units.append(...order);
  return performance.now() - started;  // our work: the browser lays it out with the rest of the page, once
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
