// The comparison from /v1/compare: each geography against the first, with the answer in words
// and the MOE arithmetic behind it (the Census Bureau's test at 90%: the difference is
// significant when |difference| > √(MOE₁² + MOE₂²), i.e. |z| > 1.645).
import { fmt, fmtDiff, fmtMoe, type Cell } from './api.js';
import { untestedWords } from '../shared/missing.js';

const Z90 = 1.645;

/** Numbers in the arithmetic: enough digits to redo it by hand (two decimals below 100). */
function num(n: number, unit: string): string {
  const digits = Math.abs(n) < 100 ? 2 : 0;
  const s = new Intl.NumberFormat('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(Math.abs(n));
  return `${n < 0 ? '−' : ''}${unit === 'dollar' ? '$' : ''}${s}${unit === 'percent' ? '%' : ''}`;
}

/** A difference of percentages is in percentage points, not percent. */
function diffNum(n: number, unit: string): string {
  return unit === 'percent' ? `${num(n, '')} percentage points` : num(n, unit);
}

function Answer({ reference, c }: { reference: Cell; c: Cell }) {
  const cmp = c.comparison!;
  const unit = c.unit;
  if (cmp.significant === null || cmp.difference === null || cmp.difference_moe === null) {
    return (
      <li data-geo={c.geo_key}>
        <strong>
          {c.geo_name} vs {reference.geo_name}: not tested
        </strong>{' '}
        (
        {untestedWords([
          { name: c.geo_name, cell: c },
          { name: reference.geo_name, cell: reference },
        ])}
        ). Without both estimates and their margins of error there is no significance test.
      </li>
    );
  }
  const d = cmp.difference;
  const m = cmp.difference_moe;
  const z = Math.abs(d) / (m / Z90);
  return (
    <li data-geo={c.geo_key}>
      <strong>
        {c.geo_name} vs {reference.geo_name}:{' '}
        {cmp.significant
          ? 'the difference is statistically significant at the 90% confidence level.'
          : 'the difference is not statistically significant at the 90% confidence level (within the margins of error).'}
      </strong>
      <dl class="math">
        <dt>Difference</dt>
        <dd>
          {num(c.estimate!, unit)} − {num(reference.estimate!, unit)} = {diffNum(d, unit)}
        </dd>
        <dt>MOE of the difference</dt>
        <dd>
          √({num(c.moe_numeric!, '')}² + {num(reference.moe_numeric!, '')}²) = {diffNum(m, unit)}
        </dd>
        <dt>Test</dt>
        <dd>
          |{num(d, '')}| {cmp.significant ? '>' : '≤'} {num(m, '')}, so {cmp.significant ? 'significant' : 'not significant'} (z ={' '}
          {num(Math.abs(d), '')} ÷ ({num(m, '')} ÷ {Z90}) = {z.toFixed(2)} {z > Z90 ? '>' : '≤'} {Z90})
        </dd>
      </dl>
    </li>
  );
}

export function CompareTable({ cells }: { cells: Cell[] }) {
  const reference = cells.find((c) => !c.comparison) ?? cells[0]!;
  const others = cells.filter((c) => c.comparison);
  return (
    <>
      <div class="table-wrap" tabIndex={0} role="region" aria-label="Comparison table">
        <table data-testid="compare">
          <caption class="visually-hidden">Each geography compared with {reference.geo_name}</caption>
          <thead>
            <tr>
              <th scope="col">Geography</th>
              <th scope="col" class="num">
                Estimate
              </th>
              <th scope="col" class="num">
                MOE (90%)
              </th>
              <th scope="col" class="num">
                Difference from first
                {reference.unit === 'percent' && (
                  <>
                    {' '}
                    (<abbr title="percentage points">pp</abbr>)
                  </>
                )}
              </th>
              <th scope="col">Significant at 90%?</th>
            </tr>
          </thead>
          <tbody>
            {cells.map((c) => (
              <tr key={c.geo_key}>
                <th scope="row">{c.geo_name}</th>
                <td class="num">{fmt(c.estimate, c.unit)}</td>
                <td class="num">{c.moe_numeric === null ? '—' : fmtMoe(c.moe_numeric, c.unit)}</td>
                <td class="num">
                  {c.comparison
                    ? `${fmtDiff(c.comparison.difference, c.unit)} ± ${fmtDiff(c.comparison.difference_moe, c.unit)}`
                    : '(reference)'}
                </td>
                <td>
                  {!c.comparison
                    ? ''
                    : c.comparison.significant === null
                      ? `Not tested: ${untestedWords([
                          { name: c.geo_name, cell: c },
                          { name: reference.geo_name, cell: reference },
                        ])}`
                      : c.comparison.significant
                        ? 'Yes (90%)'
                        : 'No — within the margins of error'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {reference.unit === 'percent' && (
        <p class="hint" data-testid="pp-note">
          A difference of two percentages, and the margin of error of a percentage, is in percentage points (pp), not percent: 14.9% and
          12.8% differ by 2.1 pp.
        </p>
      )}
      {others.length > 0 && (
        <div class="answers" data-testid="compare-answers">
          <h3>Is the difference significant?</h3>
          <ul>
            {others.map((c) => (
              <Answer key={c.geo_key} reference={reference} c={c} />
            ))}
          </ul>
        </div>
      )}
    </>
  );
}
