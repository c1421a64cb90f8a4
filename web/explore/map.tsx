// The choropleth: SVG paths projected with d3-geo (Albers USA, Alaska and Hawaii inset), five
// quantile classes of a colour-blind-safe blue ramp, estimates with CV over 30% hatched, nulls
// grey with their reason. The map is one Tab stop (a roving tabindex: thousands of county shapes
// must not each be a Tab stop); inside it the arrow keys move to the nearest shape that way, Home
// and End to the first and last, Enter picks. Hover or focus shows estimate, MOE, CV and any
// annotation. Shift+click or Shift+Enter puts a shape in the reader's custom region (outlined). The time from data arrival to the drawn map is measured and shown.
import type { Feature, FeatureCollection, Geometry } from 'geojson';
import { geoAlbersUsa, geoConicEqualArea, geoPath, type GeoProjection } from 'd3-geo';
import { Component } from 'preact';
import { useLayoutEffect, useMemo, useState } from 'preact/hooks';
import { cvOf, fmt, fmtMoe, type Cell } from './api.js';
import { missingText } from '../shared/missing.js';
import { moveFocus } from './map-keys.js';

export const RAMP = ['#eff3ff', '#bdd7e7', '#6baed6', '#3182bd', '#08519c'];
const NULL_FILL = '#d4d4d4';
const W = 960;
const H = 560;

export type Shapes = FeatureCollection<Geometry, { geo_key: string; name: string }> & {
  /** What the boundaries lack (`gaps`: e.g. states without a tract file), as /v1/boundaries says. */
  boundary?: { gaps?: string[] };
};

type Feat = Feature<Geometry, { geo_key: string; name: string }>;

/** Lon/lat corners of every feature's box: a cheap stand-in for the shapes when fitting the view. */
function corners(features: Feat[]): [number, number][] {
  const out: [number, number][] = [];
  const walk = (c: unknown, box: number[]) => {
    if (typeof (c as number[])[0] === 'number') {
      const [x, y] = c as number[];
      if (x! < box[0]!) box[0] = x!;
      if (y! < box[1]!) box[1] = y!;
      if (x! > box[2]!) box[2] = x!;
      if (y! > box[3]!) box[3] = y!;
    } else for (const d of c as unknown[]) walk(d, box);
  };
  for (const f of features) {
    const box = [Infinity, Infinity, -Infinity, -Infinity];
    const g = f.geometry as { coordinates?: unknown };
    if (g?.coordinates) walk(g.coordinates, box);
    if (box[0] !== Infinity) out.push([box[0]!, box[1]!], [box[2]!, box[3]!]);
  }
  return out;
}

/**
 * Albers USA (Alaska and Hawaii as insets) without its per-point multiplexing: geoAlbersUsa
 * sends every point through all three projections and clips; here each feature goes through
 * the one projection of its state, once, with adaptive resampling off. Same constants as
 * d3-geo's albersUsa; the view is fitted on the features' bounding-box corners.
 */
function usPathFor(features: Feat[]): (f: Feat) => string | null {
  const fit = geoAlbersUsa().fitSize([W, H], { type: 'MultiPoint', coordinates: corners(features) });
  const k = fit.scale();
  const [x, y] = fit.translate();
  const lower48 = geoConicEqualArea().parallels([29.5, 45.5]).rotate([96, 0]).center([-0.6, 38.7]).scale(k).translate([x, y]).precision(0);
  const alaska = geoConicEqualArea()
    .rotate([154, 0])
    .center([-2, 58.5])
    .parallels([55, 65])
    .scale(k * 0.35)
    .translate([x - 0.307 * k, y + 0.201 * k])
    .precision(0);
  const hawaii = geoConicEqualArea()
    .rotate([157, 0])
    .center([-3, 19.9])
    .parallels([8, 18])
    .scale(k)
    .translate([x - 0.205 * k, y + 0.212 * k])
    .precision(0);
  const paths = new Map<GeoProjection, ReturnType<typeof geoPath>>([lower48, alaska, hawaii].map((p) => [p, geoPath(p).digits(1)]));
  return (f) => {
    const st = f.properties.geo_key.slice(f.properties.geo_key.indexOf(':') + 1, f.properties.geo_key.indexOf(':') + 3);
    if (st === '72' || st === '60' || st === '66' || st === '69' || st === '78') return null; // outside Albers USA, as in d3
    const proj = st === '02' ? alaska : st === '15' ? hawaii : lower48;
    return paths.get(proj)!(f) || null;
  };
}

function quantileBreaks(values: number[]): number[] {
  const v = [...values].sort((a, b) => a - b);
  if (v.length === 0) return [];
  return [1, 2, 3, 4].map((i) => v[Math.min(v.length - 1, Math.floor((i * v.length) / 5))]!);
}

function classOf(x: number, breaks: number[]): number {
  let i = 0;
  while (i < breaks.length && x >= breaks[i]!) i++;
  return i;
}

type Item = { f: Feature<Geometry, { geo_key: string; name: string }>; d: string; cell: Cell };

/** The shapes themselves, re-rendered only when the data or selection changes (not on hover). */
class PathLayer extends Component<{
  items: Item[];
  breaks: number[];
  unit: string;
  selected?: string;
  /** Keys of the places in the reader's custom region (outlined). */
  members: Set<string>;
  onFocusShape: (e: Event) => void;
  onBlurShape: () => void;
}> {
  override shouldComponentUpdate(next: PathLayer['props']): boolean {
    return next.items !== this.props.items || next.selected !== this.props.selected || next.members !== this.props.members;
  }
  /** The one shape in the Tab order: the selected one when drawn, else the first. */
  entry(): string | undefined {
    const { items, selected } = this.props;
    return items.some((x) => x.cell.geo_key === selected) ? selected : items[0]?.cell.geo_key;
  }
  override componentDidUpdate() {
    // Arrow keys move the Tab stop in the DOM directly (re-rendering thousands of paths per key
    // press is too slow); after a render only the entry shape keeps it.
    const entry = this.entry();
    for (const el of (this.base as Element).querySelectorAll('path.shape[tabindex="0"]'))
      if ((el as SVGPathElement).dataset.geo !== entry) el.setAttribute('tabindex', '-1');
    (this.base as Element).querySelector(`path.shape[data-geo="${entry}"]`)?.setAttribute('tabindex', '0');
  }
  override render() {
    const { items, breaks, unit, selected, members } = this.props;
    const entry = this.entry();
    return (
      <g>
        {items.map(({ f, d, cell }) => {
          const c = cvOf(cell);
          const fill = cell.estimate === null ? NULL_FILL : RAMP[classOf(cell.estimate, breaks)]!;
          const inRegion = members.has(cell.geo_key);
          const label = `${f.properties.name}${inRegion ? ' (in the region)' : ''}: ${cell.estimate === null ? `${missingText(cell)}` : `${fmt(cell.estimate, unit)} ${fmtMoe(cell.moe_numeric, unit)}`}`;
          return [
            <path
              key={f.properties.geo_key}
              d={d}
              fill={fill}
              class={`shape${selected === cell.geo_key ? ' selected' : ''}${inRegion ? ' in-region' : ''}`}
              // Lower case: on SVG elements preact sets the attribute as written, and SVG's is `tabindex`.
              tabindex={cell.geo_key === entry ? 0 : -1}
              role="button"
              aria-label={label}
              data-geo={cell.geo_key}
              onFocus={this.props.onFocusShape}
              onBlur={this.props.onBlurShape}
            />,
            c !== null && c > 30 ? (
              <path key={`${f.properties.geo_key}-h`} d={d} fill="url(#hatch)" class="hatch" aria-hidden="true" />
            ) : null,
          ];
        })}
      </g>
    );
  }
}

export function ChoroplethMap({
  shapes,
  cells,
  arrivedAt,
  selected,
  onSelect,
  members,
  onToggleMember,
  label,
}: {
  shapes: Shapes;
  cells: Cell[];
  arrivedAt: number;
  selected?: string;
  onSelect: (c: Cell) => void;
  members: Set<string>;
  /** Shift+click or Shift+Enter: the shape joins or leaves the custom region. */
  onToggleMember: (c: Cell) => void;
  /** The variable as a person reads it (not the raw census label). */
  label: string;
}) {
  const [hover, setHover] = useState<{ cell?: Cell; name: string; x: number; y: number }>();
  const [renderMs, setRenderMs] = useState<number>();
  const byKey = useMemo(() => new Map(cells.map((c) => [c.geo_key, c])), [cells]);
  const drawn = useMemo(() => {
    const t0 = performance.now();
    const features = shapes.features.filter((f) => byKey.has(f.properties.geo_key));
    const path = usPathFor(features);
    const items = features
      .map((f: Feature<Geometry, { geo_key: string; name: string }>) => ({ f, d: path(f), cell: byKey.get(f.properties.geo_key)! }))
      .filter((x): x is Item => !!x.d);
    // Classes from the drawn shapes only: Puerto Rico (outside Albers USA) would otherwise set the
    // lowest class of a map it is not on. Its value stays in the table, and the legend says so.
    const drawnKeys = new Set(items.map((x) => x.cell.geo_key));
    const values = items.map((x) => x.cell.estimate).filter((v): v is number => v !== null);
    const breaks = quantileBreaks(values);
    const undrawn = cells.filter((c) => !drawnKeys.has(c.geo_key));
    (window as unknown as { __exploreProjectMs?: number }).__exploreProjectMs = Math.round(performance.now() - t0);
    return { items, breaks, values, undrawn };
  }, [shapes, cells]);

  useLayoutEffect(() => {
    // After the DOM is committed and painted once: data arrival → visible map.
    requestAnimationFrame(() => {
      const ms = Math.round(performance.now() - arrivedAt);
      setRenderMs(ms);
      (window as unknown as { __exploreMapMs?: number }).__exploreMapMs = ms;
    });
  }, [drawn, arrivedAt]);

  const unit = cells[0]?.unit ?? '';
  const { breaks } = drawn;
  const lows = [Math.min(...drawn.values), ...breaks];
  // Outside the map: Puerto Rico and the island areas (Albers USA has no place for them).
  const offMap = drawn.undrawn.filter((c) => /^[a-z_]+:(72|60|66|69|78)/.test(c.geo_key));
  // One set of listeners on the <svg> for all shapes (thousands of counties).
  const delegate = (f: (cell: Cell, t: SVGPathElement) => void) => (e: Event) => {
    const t = e.target as SVGPathElement;
    const cell = t.dataset?.geo ? byKey.get(t.dataset.geo) : undefined;
    if (cell) f(cell, t);
  };
  const names = useMemo(() => new Map(shapes.features.map((f) => [f.properties.geo_key, f.properties.name])), [shapes]);
  const show = (cell: Cell, t: SVGPathElement) => {
    const name = names.get(cell.geo_key) ?? cell.geo_name;
    const box = t.getBoundingClientRect();
    const host = t.ownerSVGElement!.getBoundingClientRect();
    setHover({ cell, name, x: box.left - host.left + box.width / 2, y: box.top - host.top });
  };
  const onFocusShape = delegate(show);
  const hide = () => setHover(undefined);
  const cv = hover?.cell ? cvOf(hover.cell) : null;
  return (
    <div class="map-wrap">
      <svg
        viewBox={`0 0 ${W} ${H}`}
        class="map"
        onMouseOver={delegate(show)}
        onMouseOut={() => setHover(undefined)}
        onClick={(e) => delegate((cell) => (e.shiftKey || e.ctrlKey || e.metaKey ? onToggleMember(cell) : onSelect(cell)))(e)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' || e.key === ' ') {
            e.preventDefault();
            delegate((cell) => (e.shiftKey ? onToggleMember(cell) : onSelect(cell)))(e);
          } else if (moveFocus(e.currentTarget as SVGSVGElement, e.target as Element, e.key)) e.preventDefault();
        }}
        role="group"
        aria-label={`Map of ${label}: one Tab stop; arrow keys move between shapes, Enter picks one, Shift+Enter adds it to or removes it from the region; the table below has the same values`}
      >
        <defs>
          <pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
            <line x1="0" y1="0" x2="0" y2="6" stroke="#1b1f24" stroke-width="1.5" />
          </pattern>
        </defs>
        <PathLayer
          items={drawn.items}
          breaks={breaks}
          unit={unit}
          selected={selected}
          members={members}
          onFocusShape={onFocusShape}
          onBlurShape={hide}
        />
      </svg>
      {hover && (
        <div class="tooltip" role="status" style={{ left: `${(hover.x / W) * 100}%`, top: `${hover.y}px` }} data-testid="tooltip">
          <strong>{hover.name}</strong>
          {hover.cell?.estimate === null ? (
            <div>{missingText(hover.cell)}</div>
          ) : (
            <>
              <div>Estimate: {fmt(hover.cell?.estimate, unit)}</div>
              <div>
                MOE (90%):{' '}
                {hover.cell?.moe_numeric === null
                  ? `— (${hover.cell ? missingText(hover.cell) : 'not available'})`
                  : fmtMoe(hover.cell?.moe_numeric, unit)}
              </div>
              <div>
                CV: {cv === null ? '—' : `${cv.toFixed(1)}%`}
                {cv !== null && cv > 30 ? ' — unreliable (hatched)' : ''}
              </div>
            </>
          )}
        </div>
      )}
      <ul class="legend" aria-label="Legend">
        {(breaks.length ? RAMP : []).map((color, i) => (
          <li key={color}>
            <span class="swatch" style={{ background: color }} />
            {i < lows.length ? `${fmt(lows[i]!, unit)}${i < breaks.length ? ` – ${fmt(breaks[i]!, unit)}` : ' and more'}` : ''}
          </li>
        ))}
        <li>
          <span class="swatch hatched" /> CV over 30% (unreliable)
        </li>
        <li>
          <span class="swatch" style={{ background: NULL_FILL }} /> No value (reason on hover)
        </li>
      </ul>
      {drawn.items.length === 0 && cells.length > 0 && (
        <p class="notice" data-testid="map-no-shapes">
          None of the {cells.length.toLocaleString('en-US')} geographies in the data has a shape in the boundaries the API returned
          {shapes.features.length === 0
            ? ' (it returned none for this area)'
            : ` (${shapes.features.length.toLocaleString('en-US')} shapes of other areas or definitions)`}
          ; their values are in the table below.
          {(shapes.boundary?.gaps ?? []).length > 0 && (
            <span data-testid="map-gaps"> What the boundaries lack, as the API says: {shapes.boundary!.gaps!.join('; ')}.</span>
          )}
        </p>
      )}
      {offMap.length > 0 && (
        <p class="hint" data-testid="off-map">
          Not on this map and not in its colour classes:{' '}
          {offMap.length === 1 ? offMap[0]!.geo_name : `${offMap.length} areas of Puerto Rico and the island areas`} (outside the map’s
          Albers USA projection); {offMap.length === 1 ? 'its value is' : 'their values are'} in the table below.
        </p>
      )}
      <p class="hint" data-testid="render-ms" data-ms={renderMs}>
        {drawn.items.length.toLocaleString('en-US')} shapes{renderMs !== undefined ? `, drawn ${renderMs} ms after the data arrived` : ''}.
        Keyboard: Tab reaches the map once; the arrow keys move between shapes, Home and End go to the first and last, Enter picks.
        Shift+click or Shift+Enter adds a shape to the region (or removes it).
      </p>
    </div>
  );
}
