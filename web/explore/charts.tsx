// Ranked table (sortable, CSV through the API) and the time series with its MOE band; missing
// years are gaps listed with their reason, and a change of the geography's definition is marked
// on the chart, in its text alternative, in a list and in the table.
import { useState } from 'preact/hooks';
import { cvOf, fmt, fmtMoe, reliability, type Cell } from './api.js';
import { missingText } from '../shared/missing.js';
import type { DefinitionChange } from './definitions.js';
import { constantDollarYear, dollarsNote, isDollars } from './dollars.js';

type SortKey = 'name' | 'estimate' | 'moe' | 'cv';

export function RankedTable({ cells, onSelect }: { cells: Cell[]; onSelect: (c: Cell) => void }) {
  const [sort, setSort] = useState<{ key: SortKey; desc: boolean }>({ key: 'estimate', desc: true });
  const unit = cells[0]?.unit ?? '';
  const val = (c: Cell): number | string | null =>
    sort.key === 'name' ? c.geo_name : sort.key === 'estimate' ? c.estimate : sort.key === 'moe' ? c.moe_numeric : cvOf(c);
  const rows = [...cells].sort((a, b) => {
    const x = val(a);
    const y = val(b);
    if (x === null) return 1; // nulls last in either direction
    if (y === null) return -1;
    const r = typeof x === 'string' ? x.localeCompare(String(y)) : x - (y as number);
    return sort.desc ? -r : r;
  });
  const head = (key: SortKey, label: string, num = true) => (
    <th scope="col" class={num ? 'num' : ''} aria-sort={sort.key === key ? (sort.desc ? 'descending' : 'ascending') : 'none'}>
      <button type="button" class="sort" onClick={() => setSort({ key, desc: sort.key === key ? !sort.desc : key !== 'name' })}>
        {label}
        <span aria-hidden="true">{sort.key === key ? (sort.desc ? ' ▼' : ' ▲') : ''}</span>
      </button>
    </th>
  );
  return (
    <div class="table-wrap tall" tabIndex={0} role="region" aria-label="Ranked table">
      <table data-testid="ranked">
        <thead>
          <tr>
            <th scope="col" class="num">
              Rank
            </th>
            {head('name', 'Geography', false)}
            {head('estimate', 'Estimate')}
            {head('moe', 'MOE (90%)')}
            {head('cv', 'CV')}
            <th scope="col">Reliability</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((c, i) => {
            const cv = cvOf(c);
            return (
              <tr key={c.geo_key}>
                <td class="num">{c.estimate === null ? '' : i + 1}</td>
                <th scope="row">
                  <button type="button" class="link" onClick={() => onSelect(c)}>
                    {c.geo_name}
                  </button>{' '}
                  <a class="small" href={`/profile/${c.geo_key}`}>
                    profile<span class="visually-hidden"> of {c.geo_name}</span>
                  </a>
                </th>
                {c.estimate === null ? (
                  // The reason in words, as the map's tooltip gives it (the code stays for scripts).
                  <td colSpan={4} class="reason" data-code={c.estimate_annotation?.code}>
                    {missingText(c)}
                  </td>
                ) : (
                  <>
                    <td class="num">{fmt(c.estimate, c.unit || unit)}</td>
                    <td class="num">{c.moe_numeric === null ? '—' : fmtMoe(c.moe_numeric, c.unit || unit)}</td>
                    <td class="num">{cv === null ? '—' : `${cv.toFixed(1)}%`}</td>
                    <td>{reliability(cv)}</td>
                  </>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

export function SeriesChart({ cells, label, changes = [] }: { cells: Cell[]; label: string; changes?: DefinitionChange[] }) {
  const W = 720;
  const H = 260;
  const pad = { l: 80, r: 16, t: 32, b: 28 };
  const years = cells.map((c) => c.vintage);
  const have = cells.filter((c) => c.estimate !== null);
  const unit = cells[0]?.unit ?? '';
  const changeAt = new Map(changes.map((d) => [d.vintage, d]));
  const span = `${years[0]}–${years[years.length - 1]}`;
  const dollars = isDollars(cells[0]);
  const constant = dollars ? constantDollarYear(cells) : null;
  const dollarsWords = !dollars
    ? ''
    : constant !== null
      ? `, in constant ${constant} dollars (restated with the CPI-U-RS)`
      : years.length > 1
        ? ', each year in its own year’s dollars (not adjusted for inflation between years)'
        : '';
  const table = (
    <div class="table-wrap" tabIndex={0} role="region" aria-label="Table of the series">
      <table data-testid="series-table">
        <caption class="visually-hidden">
          {label} for {cells[0]?.geo_name}, {span}
          {dollarsWords}
        </caption>
        <thead>
          <tr>
            <th scope="col">Year</th>
            <th scope="col" class="num">
              Estimate
            </th>
            <th scope="col" class="num">
              MOE (90%)
            </th>
            {dollars && <th scope="col">Dollars</th>}
            <th scope="col">Note</th>
          </tr>
        </thead>
        <tbody>
          {cells.map((c) => {
            const change = changeAt.get(c.vintage);
            const note = missingText(c) ?? '';
            return (
              <tr key={c.vintage} class={change ? 'def-row' : undefined}>
                <th scope="row">{c.vintage}</th>
                <td class="num">{fmt(c.estimate, unit)}</td>
                <td class="num">{c.moe_numeric === null ? '—' : fmtMoe(c.moe_numeric, unit)}</td>
                {dollars && <td class="nowrap">{c.estimate === null ? '' : dollarsNote(c)}</td>}
                <td>
                  {change && (
                    <strong class="def-note">
                      <span aria-hidden="true">◆ </span>
                      {change.text}
                    </strong>
                  )}
                  {change && note ? ' ' : ''}
                  {note}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
  const changeList = changes.length > 0 && (
    <div class="def-changes" data-testid="definition-changes">
      <h3 id="def-changes-title">Changes of geography definition</h3>
      <ul aria-labelledby="def-changes-title">
        {changes.map((d) => (
          <li key={d.vintage}>
            <span aria-hidden="true" class="def-mark">
              ◆
            </span>{' '}
            <strong>{d.vintage}:</strong> {d.text}
          </li>
        ))}
      </ul>
    </div>
  );
  if (have.length === 0)
    return (
      <figure class="series">
        <p>No values for these years (reasons in the table).</p>
        {changeList}
        {table}
      </figure>
    );
  const lo = Math.min(...have.map((c) => c.estimate! - (c.moe_numeric ?? 0)));
  const hi = Math.max(...have.map((c) => c.estimate! + (c.moe_numeric ?? 0)));
  const y0 = lo - (hi - lo) * 0.1;
  const y1 = hi + (hi - lo) * 0.1 || hi + 1;
  const x = (v: number) => pad.l + ((v - Math.min(...years)) / Math.max(1, Math.max(...years) - Math.min(...years))) * (W - pad.l - pad.r);
  const y = (v: number) => pad.t + (1 - (v - y0) / (y1 - y0)) * (H - pad.t - pad.b);
  // Runs of consecutive years with values: lines and bands break at gaps and at definition changes
  // (a line across one would join values of two different areas).
  const runs: Cell[][] = [];
  let run: Cell[] = [];
  for (const c of cells) {
    if (changeAt.has(c.vintage) && run.length) {
      runs.push(run);
      run = [];
    }
    if (c.estimate === null) {
      if (run.length) runs.push(run);
      run = [];
    } else run.push(c);
  }
  if (run.length) runs.push(run);
  // Percentages keep a decimal on the axis (14.5% and 15% must not both read "15%").
  const tickFmt = (t: number) => (unit === 'percent' ? fmt(t, unit) : fmt(Math.round(t), unit));
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((t) => y0 + t * (y1 - y0));
  const gaps = cells.filter((c) => c.estimate === null);
  // A definition marker sits halfway between the last year of the old definition and the first of the new.
  const markX = (v: number) => {
    const i = years.indexOf(v);
    return i > 0 ? (x(years[i - 1]!) + x(v)) / 2 : x(v);
  };
  const described = [
    `${label} for ${cells[0]?.geo_name}, ${span}${dollarsWords}, with 90% margins of error; values in the table below.`,
    ...changes.map((d) => `Marked: ${d.vintage}, ${d.text}`),
  ].join(' ');
  return (
    <figure class="series">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={described}>
        {ticks.map((t) => (
          <g key={t}>
            <line x1={pad.l} x2={W - pad.r} y1={y(t)} y2={y(t)} class="grid" />
            <text x={pad.l - 6} y={y(t) + 4} text-anchor="end" class="tick">
              {tickFmt(t)}
            </text>
          </g>
        ))}
        {years.map((v) => (
          <text key={v} x={x(v)} y={H - 8} text-anchor="middle" class="tick">
            {String(v).slice(2)}
          </text>
        ))}
        {runs.map((r, i) => (
          <g key={i}>
            <path
              class="band"
              d={`M${r.map((c) => `${x(c.vintage)},${y(c.estimate! + (c.moe_numeric ?? 0))}`).join('L')}L${[...r]
                .reverse()
                .map((c) => `${x(c.vintage)},${y(c.estimate! - (c.moe_numeric ?? 0))}`)
                .join('L')}Z`}
            />
            <path class="line" d={`M${r.map((c) => `${x(c.vintage)},${y(c.estimate!)}`).join('L')}`} />
            {r.map((c) => (
              <circle key={c.vintage} cx={x(c.vintage)} cy={y(c.estimate!)} r="3.5" class="dot" />
            ))}
          </g>
        ))}
        {gaps.map((c) => (
          <line key={c.vintage} x1={x(c.vintage)} x2={x(c.vintage)} y1={pad.t} y2={H - pad.b} class="gap" />
        ))}
        {changes.map((d, i) => (
          <g key={d.vintage} class="def" data-vintage={d.vintage}>
            <line x1={markX(d.vintage)} x2={markX(d.vintage)} y1={pad.t - 4} y2={H - pad.b} />
            <text
              x={markX(d.vintage)}
              y={11 + (i % 2) * 11}
              text-anchor={markX(d.vintage) > W - 140 ? 'end' : 'start'}
              dx={markX(d.vintage) > W - 140 ? -4 : 4}
              class="def-label"
            >
              ◆ {d.vintage}: new definition
            </text>
          </g>
        ))}
      </svg>
      <figcaption class="hint">
        Line: estimate. Band: 90% margin of error. Dashed lines: years without a value (reasons below).
        {constant !== null
          ? ` Dollars: every year restated in ${constant} dollars with the CPI-U-RS, the index the Census Bureau uses for ACS income comparisons; the MOE is scaled by the same factor.`
          : dollarsWords
            ? ' Dollars: each year in its own year’s dollars, as the Census Bureau publishes them (not adjusted for inflation).'
            : ''}
        {changes.length > 0 ? ' Solid orange lines (◆): the geography’s definition changes there; the line does not join across them.' : ''}
      </figcaption>
      {changeList}
      {table}
    </figure>
  );
}
