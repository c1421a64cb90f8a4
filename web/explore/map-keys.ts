// Arrow-key movement inside the map (its one Tab stop moves with the focus): an arrow goes to the
// nearest shape whose centre lies that way, favouring shapes straight ahead over ones off to the
// side; Home and End go to the first and last shape in the document's order.
const DIRECTIONS: Record<string, [number, number]> = {
  ArrowRight: [1, 0],
  ArrowLeft: [-1, 0],
  ArrowDown: [0, 1],
  ArrowUp: [0, -1],
};

// Centres in the SVG's own units, measured once per drawn path (the map's paths are not moved).
const centres = new WeakMap<SVGGraphicsElement, [number, number]>();
function centreOf(el: SVGGraphicsElement): [number, number] {
  let c = centres.get(el);
  if (!c) {
    const b = el.getBBox();
    c = [b.x + b.width / 2, b.y + b.height / 2];
    centres.set(el, c);
  }
  return c;
}

/** The shape an arrow key leads to from `from`, or null at the map's edge that way. */
export function neighbour(shapes: SVGGraphicsElement[], from: SVGGraphicsElement, key: string): SVGGraphicsElement | null {
  const d = DIRECTIONS[key];
  if (!d) return null;
  const [x0, y0] = centreOf(from);
  let best: SVGGraphicsElement | null = null;
  let bestScore = Infinity;
  for (const el of shapes) {
    if (el === from) continue;
    const [x, y] = centreOf(el);
    const along = (x - x0) * d[0] + (y - y0) * d[1];
    if (along <= 0.5) continue;
    const across = Math.abs((x - x0) * d[1] - (y - y0) * d[0]);
    const score = along + 2 * across;
    if (score < bestScore) {
      bestScore = score;
      best = el;
    }
  }
  return best;
}

/** Moves focus and the Tab stop for a key pressed on a shape; true when the key was the map's. */
export function moveFocus(svg: SVGSVGElement, target: Element, key: string): boolean {
  if (!(target instanceof SVGGraphicsElement) || !target.classList.contains('shape')) return false;
  const shapes = [...svg.querySelectorAll<SVGGraphicsElement>('path.shape')];
  const next =
    key === 'Home' ? shapes[0] : key === 'End' ? shapes.at(-1) : key in DIRECTIONS ? (neighbour(shapes, target, key) ?? target) : null;
  if (!next) return false;
  if (next !== target) {
    target.setAttribute('tabindex', '-1');
    next.setAttribute('tabindex', '0');
    next.focus();
  }
  return true;
}
