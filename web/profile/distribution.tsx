// A census table whose lines are the parts of one whole (age by sex, households by income
// bracket), drawn as horizontal bars with the 90% MOE as whiskers, and the same numbers in a
// table beside it (the chart's text alternative).
import { cleanLabel, fmt, type Cell } from '../explore/api.js';
import { moeText, reasonOf } from './figures.js';

interface Row {
  label: string;
  /** One cell per series (Male, Female), or one for a one-series table. */
  cells: (Cell | undefined)[];
}

/**
 * The table's innermost lines as rows: a two-level table (sex › age) becomes one series per
 * first level; subtotals (the "Male" line, the "Total") are left out, the bars are the parts.
 */
export function rowsOf(cells: Cell[]): { series: string[]; rows: Row[] } {
  const parts = cells.map((c) => ({ c, path: cleanLabel(c.label).split(' › ') }));
  const depth = Math.max(0, ...parts.filter((p) => p.path[0] !== 'Total').map((p) => p.path.length));
  const leaves = parts.filter((p) => p.path.length === depth && p.path[0] !== 'Total');
  const series = depth === 2 ? [...new Set(leaves.map((p) => p.path[0]!))] : [''];
  const rows: Row[] = [];
  for (const p of leaves) {
    const label = p.path[depth - 1]!;
    let row = rows.find((r) => r.label === label);
    if (!row) rows.push((row = { label, cells: series.map(() => undefined) }));
    row.cells[depth === 2 ? series.indexOf(p.path[0]!) : 0] = p.c;
  }
  return { series, rows };
}

const COLORS = ['#2b6cb0', '#c05621'];

export function DistributionChart({ id, title, cells, placeName }: { id: string; title: string; cells: Cell[]; placeName: string }) {
  const { series, rows } = rowsOf(cells);
  if (rows.length === 0) return null;
  const nulls = rows.flatMap((r) => r.cells).filter((c) => c && c.estimate === null);
  const max = Math.max(1, ...rows.flatMap((r) => r.cells.map((c) => (c?.estimate ?? 0) + (c?.moe_numeric ?? 0))));
  const barH = series.length > 1 ? 8 : 12;
  const rowH = barH * series.length + 6;
  const W = 640;
  const left = 170;
  const plot = W - left - 16;
  const H = rows.length * rowH + 24;
  const x = (v: number) => left + (Math.max(0, v) / max) * plot;
  const unit = cells[0]?.unit ?? 'count';
  const caption = `${title}, ${placeName}${series.length > 1 ? ` (${series.join(' and ')})` : ''}: bars are estimates, whiskers the 90% margins of error.`;
  return (
    <figure class="distribution" data-testid={`dist-${id}`}>
      <figcaption>{caption}</figcaption>
      {nulls.length === rows.length * series.length ? (
        <p class="reason">{reasonOf(nulls[0]!)}</p>
      ) : (
        <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${caption} The table below gives every value.`}>
          {series.length > 1 &&
            series.map((s, i) => (
              <g key={s}>
                <rect x={left + i * 90} y={2} width={10} height={10} fill={COLORS[i]} />
                <text x={left + i * 90 + 14} y={11} class="legend">
                  {s}
                </text>
              </g>
            ))}
          {rows.map((r, ri) => {
            const y0 = 18 + ri * rowH;
            return (
              <g key={r.label}>
                <text x={left - 6} y={y0 + rowH / 2 + 3} text-anchor="end" class="tick">
                  {r.label}
                </text>
                {r.cells.map((c, si) => {
                  if (!c || c.estimate === null) return null;
                  const y = y0 + si * barH;
                  const m = c.moe_numeric;
                  return (
                    <g key={si}>
                      <rect x={left} y={y} width={x(c.estimate) - left} height={barH - 1} fill={COLORS[si % 2]} />
                      {m !== null && (
                        <path
                          class="whisker"
                          d={`M${x(c.estimate - m)},${y + barH / 2}H${x(c.estimate + m)}M${x(c.estimate - m)},${y + 1}v${barH - 3}M${x(c.estimate + m)},${y + 1}v${barH - 3}`}
                        />
                      )}
                    </g>
                  );
                })}
              </g>
            );
          })}
        </svg>
      )}
      <div class="table-wrap alt" tabIndex={0} role="region" aria-label={`Table: ${title}`}>
        <table data-testid={`dist-table-${id}`}>
          <caption class="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              <th scope="col">{series.length > 1 ? 'Group' : 'Bracket'}</th>
              {series.map((s) => (
                <th scope="col" class="num" key={s}>
                  {s || 'Estimate'} (± 90% MOE)
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.label}>
                <th scope="row">{r.label}</th>
                {r.cells.map((c, i) => (
                  <td class="num" key={i} data-variable={c?.variable}>
                    {c ? (c.estimate === null ? (reasonOf(c) ?? '—') : `${fmt(c.estimate, unit)} ${moeText(c) ?? ''}`.trim()) : '—'}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
