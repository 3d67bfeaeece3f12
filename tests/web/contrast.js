() => {
  const parse = (c) => { const m = c.match(/rgba?\(([^)]+)\)/); if (!m) return null; const p = m[1].split(/[ ,\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const lum = ([r, g, b]) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const blend = (top, under) => { const a = top[3]; return [0, 1, 2].map((i) => top[i] * a + under[i] * (1 - a)).concat(1); };
  const backgrounds = (el) => {
    // The colours behind el: its own and its ancestors' backgrounds, blended; a gradient counts with every stop.
    // A card's glyph sits on the card's white oval (the card's ::before), not on the card's colour.
    if (el.classList.contains("card-glyph")) return [parse(getComputedStyle(el.parentElement, "::before").backgroundColor)];
    const layers = [];
    for (let n = el; n; n = n.parentElement) {
      const cs = getComputedStyle(n);
      const stops = (cs.backgroundImage.match(/rgba?\([^)]+\)/g) || []).map(parse);
      const col = parse(cs.backgroundColor);
      if (stops.length) { layers.push(stops); if (stops.every((s) => s[3] >= 1)) break; }
      if (col && col[3] > 0) { layers.push([col]); if (col[3] >= 1) break; }
    }
    let result = [[255, 255, 255, 1]];
    for (const layer of layers.reverse()) result = layer.flatMap((c) => result.map((u) => blend(c, u)));
    return result;
  };
  const bad = [];
  let checked = 0;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const seen = new Set();
  while (walker.nextNode()) {
    const t = walker.currentNode;
    if (!t.textContent.trim()) continue;
    const el = t.parentElement;
    if (seen.has(el)) continue;
    seen.add(el);
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height || r.bottom < 0 || r.top > innerHeight) continue;
    if (el.closest(":disabled, [aria-hidden=true], [hidden]")) continue; // inactive controls are exempt (WCAG 1.4.3)
    const cs = getComputedStyle(el);
    if (cs.visibility === "hidden" || Number(cs.opacity) === 0) continue;
    let op = 1; for (let n = el; n; n = n.parentElement) op *= Number(getComputedStyle(n).opacity);
    if (op < 0.99) continue; // animating (a blink) or faded on purpose: not steady text
    const fg = parse(cs.color);
    const worst = Math.min(...backgrounds(el).map((b) => ratio(fg[3] < 1 ? blend(fg, b) : fg, b)));
    checked += 1;
    if (worst < 4.5) bad.push(`${(el.id || el.className || el.tagName)}: "${el.textContent.trim().slice(0, 24)}" ${worst.toFixed(2)}`);
  }
  return { checked, bad };
}
