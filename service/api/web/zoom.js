// Zoom and pan of the map (its SVG viewBox): two fingers pinch and move it, one finger or the mouse
// drags it once zoomed in, ctrl+wheel (a touchpad's pinch) zooms, and the +, − and "whole map" buttons
// (and + and − on the focused map) do it for everyone else. A drag is never a click: the click that ends
// one is swallowed.

import { COUNTER_WIDTH } from "./board.js";

// The zoom at which a counter is a 44 px target (WCAG's target size), with a little room.
export const TARGET_ZOOM = 46 / COUNTER_WIDTH;

// `first()`: called once the box has its size, in the frame that first lays it out (before it is painted),
// to show the map as it should first be seen (it applies a zoom: one change of the viewBox, one more
// layout of the map in that frame); reading the size any earlier would make the browser lay the whole
// page out at once, out of turn.
export function zoomable(svg, board, first = null) {
  // the map point at the box's top left, CSS px per map unit, and whether the whole map is shown (kept
  // so when the box changes size, until someone zooms)
  const view = { x: 0, y: 0, scale: 0, fitted: true };
  const pointers = new Map();
  let gesture = null, dragged = false;

  const box = () => svg.getBoundingClientRect();
  // the box's size as of the last apply (a resize applies again): reading it anew after a viewBox change
  // would make the browser lay the page out again at once
  let size = null;
  const sized = () => size || box();

  function apply() {
    const b = sized();
    size = { width: b.width, height: b.height };
    if (!b.width || !b.height) return;
    const fit = Math.min(b.width / board.width, b.height / board.height) || 1;
    view.scale = view.fitted ? fit : Math.max(fit, Math.min(view.scale || fit, 4));
    const w = b.width / view.scale, h = b.height / view.scale;
    // keep the map in the box: centred on an axis it does not fill
    view.x = w >= board.width ? (board.width - w) / 2 : Math.max(0, Math.min(view.x, board.width - w));
    view.y = h >= board.height ? (board.height - h) / 2 : Math.max(0, Math.min(view.y, board.height - h));
    svg.setAttribute("viewBox", `${view.x.toFixed(1)} ${view.y.toFixed(1)} ${w.toFixed(1)} ${h.toFixed(1)}`);
    const zoomed = view.scale > fit * 1.02;
    svg.classList.toggle("zoomed", zoomed);
    svg.dataset.zoom = view.scale.toFixed(3);
  }

  // Zoom to `scale`, keeping the map point under the box point (px, py) where it is.
  function zoomAt(scale, px, py) {
    const mx = view.x + px / view.scale, my = view.y + py / view.scale;
    view.scale = scale;
    view.fitted = false;
    view.x = mx - px / scale;
    view.y = my - py / scale;
    apply();
  }

  // Centre the box on the map point (mx, my).
  function centreOn(mx, my) {
    const b = sized();
    view.x = mx - b.width / view.scale / 2;
    view.y = my - b.height / view.scale / 2;
    apply();
  }

  // Bring the map point (mx, my) into view with a margin, moving as little as possible.
  function reveal(mx, my, margin = 50) {
    const b = sized();
    const w = b.width / view.scale, h = b.height / view.scale;
    if (mx - margin < view.x) view.x = mx - margin; else if (mx + margin > view.x + w) view.x = mx + margin - w;
    if (my - margin < view.y) view.y = my - margin; else if (my + margin > view.y + h) view.y = my + margin - h;
    apply();
  }

  const local = (e) => { const b = box(); return [e.clientX - b.left, e.clientY - b.top]; };

  svg.addEventListener("pointerdown", (e) => {
    if (e.pointerType === "mouse" && e.button !== 0) return;
    if (e.isPrimary) pointers.clear();  // a new gesture: no finger of an old one is still down
    pointers.set(e.pointerId, local(e));
    dragged = false;
    gesture = null;
  });
  svg.addEventListener("pointermove", (e) => {
    if (!pointers.has(e.pointerId)) return;
    const before = [...pointers.values()];
    const at = local(e);
    pointers.set(e.pointerId, at);
    const now = [...pointers.values()];
    if (now.length >= 2) {  // pinch: the midpoint moves the map, the spread zooms it
      const [a, b] = now, [a0, b0] = before.length >= 2 ? before : now;
      const spread = Math.hypot(a[0] - b[0], a[1] - b[1]), spread0 = Math.hypot(a0[0] - b0[0], a0[1] - b0[1]) || spread;
      const mid = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2], mid0 = [(a0[0] + b0[0]) / 2, (a0[1] + b0[1]) / 2];
      gesture = "pinch";
      dragged = true;
      view.x -= (mid[0] - mid0[0]) / view.scale;
      view.y -= (mid[1] - mid0[1]) / view.scale;
      zoomAt(view.scale * (spread / spread0), mid[0], mid[1]);
      return;
    }
    if (gesture !== "pan" && !svg.classList.contains("zoomed")) return;  // the whole map shown: nothing to drag
    const start = before[0];
    if (gesture !== "pan" && Math.hypot(at[0] - start[0], at[1] - start[1]) < 8) return;  // a tap wobbles
    gesture = "pan";
    dragged = true;
    view.x -= (at[0] - start[0]) / view.scale;
    view.y -= (at[1] - start[1]) / view.scale;
    apply();
  });
  const up = (e) => { pointers.delete(e.pointerId); if (!pointers.size) gesture = null; };
  svg.addEventListener("pointerup", up);
  svg.addEventListener("pointercancel", up);
  svg.addEventListener("click", (e) => {  // the click that ends a drag or a pinch does nothing else
    if (dragged) { e.stopImmediatePropagation(); e.preventDefault(); dragged = false; }
  }, true);
  svg.addEventListener("wheel", (e) => {
    if (!e.ctrlKey) return;  // a plain wheel scrolls the page
    e.preventDefault();
    const [px, py] = local(e);
    zoomAt(view.scale * Math.exp(-e.deltaY / 300), px, py);
  }, { passive: false });
  new ResizeObserver(() => {
    size = null;
    if (first) { const then = first; first = null; then(); } else apply();
  }).observe(svg);

  return {
    get scale() { return view.scale; },
    // the scale at which the whole map fits the box
    get fitScale() { const b = sized(); return Math.min(b.width / board.width, b.height / board.height) || 1; },
    fit() { view.fitted = true; apply(); },
    zoomBy(factor) { const b = sized(); zoomAt(view.scale * factor, b.width / 2, b.height / 2); },
    // the zoom at which counters are 44 px targets, centred on (mx, my), where the map is shown smaller
    toTargets(mx, my) { view.fitted = false; if (view.scale < TARGET_ZOOM) view.scale = TARGET_ZOOM; centreOn(mx, my); },
    // whether the map point (mx, my) is in the box now
    shows(mx, my) {
      const b = sized();
      return mx >= view.x && my >= view.y && mx <= view.x + b.width / view.scale && my <= view.y + b.height / view.scale;
    },
    centreOn, reveal, apply,
  };
}
