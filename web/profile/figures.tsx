// One topic's headline figures: the place's value with its 90% MOE, the CV flag (over 30%), and
// the same figure for each parent with the mark /v1/compare gives for the difference. A null
// value says why (the annotation's meaning).
import { cvOf, fmt, type Cell } from '../explore/api.js';
import type { PlaceRef } from './load.js';
import { missingText, untestedWords } from '../shared/missing.js';

/** Decimals of a count-like figure as published: a Gini index has four, an average size two, a median age one. */
function decimalsOf(n: number): number {
  if (Number.isInteger(n)) return 0;
  const a = Math.abs(n);
  return a < 1 ? 4 : a < 10 ? 2 : 1;
}

/** The figure with its unit: a percent has one decimal, a count or dollars none, an average two. */
export function valueText(c: Cell): string {
  if (c.estimate === null) return '—';
  if (c.unit === 'dollar') return fmt(c.estimate, c.unit);
  if (c.unit === 'percent') return `${c.estimate.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 })}%`;
  const digits = decimalsOf(c.estimate);
  return c.estimate.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function moeText(c: Cell): string | null {
  if (c.moe_numeric === null) return null;
  // Percentage points with one decimal; a margin under 0.05 points keeps two significant digits.
  if (c.unit === 'percent')
    return `± ${c.moe_numeric.toLocaleString('en-US', c.moe_numeric < 0.05 ? { maximumSignificantDigits: 2 } : { maximumFractionDigits: 1 })} pp`;
  if (c.unit === 'dollar') return `± ${fmt(c.moe_numeric, 'dollar')}`;
  const digits = c.estimate === null ? 0 : decimalsOf(c.estimate);
  return `± ${c.moe_numeric.toLocaleString('en-US', { maximumFractionDigits: digits })}`;
}

/** Which part of a figure is missing (the value, or only its MOE) and why. */
export function reasonOf(c: Cell): string | null {
  return missingText(c);
}

/** `sameReasonAs`: the reason already shown in the row (the place's), said once. */
export function Value({ cell, sameReasonAs }: { cell: Cell; sameReasonAs?: string | null }) {
  const cv = cvOf(cell);
  const moe = moeText(cell);
  const reason = reasonOf(cell);
  return (
    <>
      <span class="figure" data-testid="estimate">
        {valueText(cell)}
      </span>{' '}
      {moe && (
        <span class="moe" data-testid="moe">
          {moe}
        </span>
      )}
      {cv !== null && cv > 30 && (
        <span class="flag" data-testid="cv-flag">
          {' '}
          ⚠ CV {cv.toFixed(0)}%: use with caution
        </span>
      )}
      {reason && (
        <span class="reason" data-testid="reason">
          {reason === sameReasonAs ? 'Same reason as the first column.' : reason}
        </span>
      )}
    </>
  );
}

/** The mark on a parent's figure: is the place's figure significantly above or below it? */
export function SignificanceMark({
  cell,
  placeName,
  own,
  parentName,
}: {
  cell: Cell;
  placeName: string;
  /** The place's own cell: when the pair is not tested, the reason may be its missing part. */
  own?: Cell;
  parentName?: string;
}) {
  const cmp = cell.comparison;
  if (!cmp) return null;
  if (cmp.significant === null)
    return (
      <span class="sig untested" data-testid="sig" data-sig="untested">
        not tested:{' '}
        {untestedWords([
          { name: parentName ?? cell.geo_name, cell },
          { name: placeName, cell: own },
        ])}
      </span>
    );
  if (!cmp.significant)
    return (
      <span class="sig same" data-testid="sig" data-sig="no">
        <span aria-hidden="true">≈ </span>no significant difference
      </span>
    );
  // difference = this parent − the place: a negative difference means the place is higher.
  const placeHigher = (cmp.difference ?? 0) < 0;
  return (
    <span class={`sig ${placeHigher ? 'up' : 'down'}`} data-testid="sig" data-sig={placeHigher ? 'higher' : 'lower'}>
      <span aria-hidden="true">{placeHigher ? '▲ ' : '▼ '}</span>
      {placeName} {placeHigher ? 'higher' : 'lower'} (significant at 90%)
    </span>
  );
}

export function FigureTable({
  id,
  title,
  variables,
  cells,
  place,
  parents,
  exploreHref,
}: {
  id: string;
  title: string;
  variables: string[];
  cells: Cell[];
  place: PlaceRef;
  parents: PlaceRef[];
  exploreHref: (variable: string) => string;
}) {
  const at = (variable: string, key: string) => cells.find((c) => c.variable === variable && c.geo_key === key);
  const shortName = place.name.replace(/,.*$/, '');
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={`${title}: figures`}>
      <table class="figures" data-testid={`figures-${id}`}>
        <caption class="visually-hidden">
          {title}: {place.name}
          {parents.length ? ` beside ${parents.map((p) => p.name).join(' and ')}` : ''}
        </caption>
        <thead>
          <tr>
            <th scope="col">Figure</th>
            <th scope="col" class="num">
              {place.name}
            </th>
            {parents.map((p) => (
              <th scope="col" class="num" key={p.geo_key}>
                <a href={`/profile/${p.geo_key}`}>{p.name}</a>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {variables.map((v) => {
            const own = at(v, place.geo_key);
            if (!own) return null;
            return (
              <tr key={v} data-variable={v}>
                <th scope="row">
                  {own.label}{' '}
                  <a class="explore-link" href={exploreHref(v)}>
                    Explore<span class="visually-hidden"> {own.label} on a map, in a table and over time</span>
                  </a>
                </th>
                <td class="num" data-geo={place.geo_key}>
                  <Value cell={own} />
                </td>
                {parents.map((p) => {
                  const c = at(v, p.geo_key);
                  return (
                    <td class="num" key={p.geo_key} data-geo={p.geo_key}>
                      {c ? (
                        <>
                          <Value cell={c} sameReasonAs={reasonOf(own)} />
                          <SignificanceMark cell={c} placeName={shortName} own={own} parentName={p.name.replace(/,.*$/, '')} />
                        </>
                      ) : (
                        '—'
                      )}
                    </td>
                  );
                })}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
