// WCAG 2 contrast of every visible text on the page (axe-core is not on the build's class path, and
// the build downloads nothing from npm, so the computation is done here). Returns the texts whose
// contrast is below 4.5:1 (3:1 for large text: 24 px, or 18.66 px bold), with what was measured.
// HTML text: its colour over its ancestors' background colours (blended by alpha); SVG text: its fill
// over the shapes under its centre (document.elementsFromPoint) and then the page.
(function () {
  function parse(c) {
    if (!c || c === 'none' || c === 'transparent') return null;
    const m = /rgba?\(([^)]+)\)/.exec(c);
    if (!m) return null;
    const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
    return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1};
  }
  function channel(v) {
    v /= 255;
    return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
  }
  function luminance(c) {
    return 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b);
  }
  function over(top, bottom) {
    const a = top.a;
    return {r: top.r * a + bottom.r * (1 - a), g: top.g * a + bottom.g * (1 - a), b: top.b * a + bottom.b * (1 - a), a: 1};
  }
  function ratio(fg, bg) {
    const l1 = luminance(fg), l2 = luminance(bg);
    return (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
  }
  function flatten(layers) {
    let bg = {r: 255, g: 255, b: 255, a: 1};
    for (let i = layers.length - 1; i >= 0; i--) bg = over(layers[i], bg);
    return bg;
  }
  function htmlBackground(el) {
    const layers = [];
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c.a > 0) {
        layers.push(c);
        if (c.a >= 1) break;
      }
    }
    return flatten(layers);
  }
  function svgBackground(el) {
    const box = el.getBoundingClientRect();
    const under = document.elementsFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    const layers = [];
    for (const e of under) {
      if (e === el || el.contains(e)) continue;
      const s = getComputedStyle(e);
      let c;
      if (e instanceof SVGElement && !(e instanceof SVGSVGElement)) {
        if (e.tagName === 'text' || e.tagName === 'g' || e.tagName === 'line') continue;
        c = parse(s.fill);
        if (c) c.a *= Number(s.fillOpacity || 1) * Number(s.opacity || 1);
      } else {
        c = parse(s.backgroundColor);
      }
      if (c && c.a > 0) {
        layers.push(c);
        if (c.a >= 1) break;
      }
    }
    return flatten(layers);
  }
  function hiddenByAncestor(el) {
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.visibility === 'hidden' || s.display === 'none' || Number(s.opacity) === 0) return true;
      // disabled controls are exempt from WCAG's contrast rule
      if (e.disabled) return true;
    }
    return false;
  }
  const failures = [];
  let checked = 0;
  for (const el of document.querySelectorAll('body *')) {
    const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    if (!own || el.closest('.visually-hidden, title, script, style, option, noscript')) continue;
    const rects = el.getClientRects();
    if (rects.length === 0 || hiddenByAncestor(el)) continue;
    if (el.closest('details:not([open])') && !el.closest('summary')) continue;
    const s = getComputedStyle(el);
    const isSvg = el instanceof SVGElement;
    const fgRaw = parse(isSvg ? s.fill : s.color);
    if (!fgRaw) continue;
    const bg = isSvg ? svgBackground(el) : htmlBackground(el);
    const fg = over(fgRaw, bg);
    const size = parseFloat(s.fontSize);
    const bold = Number(s.fontWeight) >= 700;
    const need = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
    const r = ratio(fg, bg);
    checked++;
    if (r + 1e-9 < need) {
      const rgb = c => `rgb(${Math.round(c.r)}, ${Math.round(c.g)}, ${Math.round(c.b)})`;
      failures.push(`${r.toFixed(2)}:1 < ${need}:1 for "${el.textContent.trim().slice(0, 40)}" <${el.tagName.toLowerCase()} class="${el.getAttribute('class') || ''}"> ${rgb(fg)} on ${rgb(bg)}`);
    }
  }
  return {checked, failures};
})();
