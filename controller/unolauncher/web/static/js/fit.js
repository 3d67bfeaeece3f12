// Words that do not fit their box: a banner, button or chip whose words (a longer language, a long name) are wider
// than the box is drawn smaller, down to 70 %; the banner, which has room for a second line, then wraps. Nothing is
// cut off with "…" while a smaller size shows it all (tests/web/test_languages.py measures every box). Layout stays
// app.css's: only the font size and, for the banner, the wrapping change, and only while the words would not fit.
//
//   keepFitting(document.body);   // once; then every re-render of a listed box is fitted again
const FIT = [
  ".brand-text", ".banner", ".actions .btn", "#pending-box .chips > *", ".pending-title", ".tile-value", ".tabs button",
  ".estop button", ".estop-state", ".press", ".catchable", ".seat-actions .btn", ".callout span",
].join(", ");
const SMALLEST = 0.7;

function fits(el) {
  return el.scrollWidth <= el.clientWidth + 1 && el.scrollHeight <= el.clientHeight + 1;
}

function shrink(el, base) {
  for (let scale = 0.95; scale >= SMALLEST - 0.001; scale -= 0.05) {
    el.style.fontSize = `${(base * scale).toFixed(1)}px`;
    if (fits(el)) return true;
  }
  return false;
}

export function fit(el) {
  el.style.fontSize = "";
  el.style.whiteSpace = "";
  el.style.lineHeight = "";
  el.style.height = "";
  el.style.maxHeight = "";
  if (!el.clientWidth || fits(el)) return;
  const style = getComputedStyle(el);
  const base = parseFloat(style.fontSize);
  if (shrink(el, base) || !el.matches(".banner")) return;
  // Two lines: the box grows to hold them (a banner of one line's height cut the second line off at 360 px, an
  // open stack's German words), never to a third (em: it follows the font size shrink() tries).
  const frame = ["paddingTop", "paddingBottom", "borderTopWidth", "borderBottomWidth"]
    .reduce((sum, side) => sum + parseFloat(style[side] || "0"), 0);
  el.style.whiteSpace = "normal";
  el.style.lineHeight = "1.15";
  el.style.height = "auto";
  el.style.maxHeight = `calc(2.3em + ${frame}px)`;
  shrink(el, base);
}

export function keepFitting(root) {
  const again = new Set();
  // A box whose width changes without new words (a button added to its row, a view shown, the phone turned) is
  // measured again; only a new width counts, so fitting (which changes the font, not the width) does not loop.
  const widths = new WeakMap();
  const resized = new ResizeObserver((entries) => {
    for (const { target } of entries) {
      if (widths.get(target) === target.clientWidth) continue;
      fit(target);
      widths.set(target, target.clientWidth);
    }
  });
  const watch = (el) => {
    if (!widths.has(el)) resized.observe(el);
    widths.set(el, el.clientWidth);
  };
  const flush = () => {
    for (const el of again) {
      if (!el.isConnected) continue;
      fit(el);
      watch(el);
    }
    again.clear();
  };
  const observer = new MutationObserver((records) => {
    for (const record of records) {
      const node = record.target.nodeType === Node.ELEMENT_NODE ? record.target : record.target.parentElement;
      if (!node) continue;
      const box = node.closest(FIT);
      if (box) again.add(box);
      for (const inner of node.querySelectorAll(FIT)) again.add(inner);
    }
    // At once: a MutationObserver runs before the browser paints, so a box is never shown cut off, not even for
    // one frame (a frame later, a slow phone showed — and the test measured — the cut banner).
    flush();
  });
  observer.observe(root, { subtree: true, childList: true, characterData: true });
  for (const el of root.querySelectorAll(FIT)) {
    fit(el);
    watch(el);
  }
}
