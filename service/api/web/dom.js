// Small DOM helpers shared by the views.

import { sideName } from "./words.js";

export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== undefined && value !== null && value !== false) node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function statusLabel(status) {
  return { MATCH_STATUS_OPEN: "open", MATCH_STATUS_ACTIVE: "live", MATCH_STATUS_FINISHED: "finished",
    MATCH_STATUS_ABORTED: "aborted" }[status] || (status || "").replace("MATCH_STATUS_", "").toLowerCase();
}

export function resultText(result) {
  if (!result || !result.winner) return "";
  const points = result.points || {};
  const score = `${points.german ?? "?"}–${points.soviet ?? "?"}`;
  return result.winner === "draw" ? `Draw (${result.reason}), ${score}` : `${sideName(result.winner)} victory (${result.reason}), ${score}`;
}

// replaceChildren, leaving out null/undefined/false (optional parts of a view).
export function fill(node, ...children) {
  node.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

// A touch screen with no mouse: the page says "tap" there, and names no key.
export const touch = () => matchMedia("(hover: none) and (pointer: coarse)").matches;

// How the player last acted: "keyboard" after a key pressed outside a text field, "pointer" after a
// mouse, a pen or a finger. The page's words follow it: "tap" on a touch screen, else "choose" for the
// keyboard and "click" for a mouse.
let lastInput = "pointer";
addEventListener("keydown", (event) => {
  if (!(event.target instanceof Element && event.target.matches("input, textarea, select"))) lastInput = "keyboard";
}, true);
addEventListener("pointerdown", () => { lastInput = "pointer"; }, true);
export const keyboard = () => lastInput === "keyboard" && !touch();  // a touch screen's words stay "tap"
export const click = () => (touch() ? "tap" : keyboard() ? "choose" : "click");
export const clicked = () => ({ choose: "chose", tap: "tapped", click: "clicked" })[click()];
