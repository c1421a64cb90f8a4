// The readable half of every tool result. Agents pass this text to the model, so it states what a
// careful analyst would: each value with its margin of error, whose value it is, which survey and
// period, why a value is missing, and the hint when there is one. The full data is always in
// structuredContent; the text is capped so a 2,000-tract wildcard does not flood the context.
import type { AnnotationInfo } from '../domain/annotations.js';
import { datasetKeys, datasetSpec, isDatasetKey } from '../domain/datasets.js';
import type { Topic } from '../store/catalog.js';
import type { TableSummary } from '../store/census-tables.js';
import { datasetParamDescription } from '../verbs/dataset-schemas.js';
import type { GeographyView } from '../verbs/geo-support.js';
import type { GeocodeData } from '../verbs/geocode.js';
import type { DatasetSummary, VariableSearchItem } from '../verbs/catalog.js';
import type { ComparedCell } from '../verbs/compare-geographies.js';
import type { ObservationCell } from '../verbs/observations/engine.js';
import type { CellChange } from '../verbs/observations/change.js';
import type { CoverageRow } from '../verbs/get-coverage.js';
import type { VerbResult } from '../context/verb-context.js';

const datasetName = (key: string) => (isDatasetKey(key) ? `${datasetSpec(key).shortLabel} estimates` : key);

/** Value lines shown before "… N more in structuredContent". */
export const MAX_TEXT_LINES = 60;

function num(n: number, maxDigits: number): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: maxDigits });
}

/** An estimate in its unit: "$75,277", "12.3%", "1978", "39,557,045". */
function formatValue(n: number, unit: string | null): string {
  switch (unit) {
    case 'dollar':
      return `${n < 0 ? '−' : ''}$${num(Math.abs(n), 0)}`;
    case 'percent':
      return `${num(n, 1)}%`;
    case 'year':
      return String(Math.round(n));
    default:
      return num(n, 2);
  }
}

/** A margin of error (or difference) in the estimate's unit; percentages move in points. */
function formatMoe(n: number, unit: string | null): string {
  switch (unit) {
    case 'dollar':
      return `$${num(n, 0)}`;
    case 'percent':
      return `${num(n, 1)} pts`;
    case 'year':
      return num(n, 0);
    default:
      return num(n, 2);
  }
}

/** "$75,277 ± $317", "no value [no_data_loaded]", "$250,001 [top_coded] (no MOE: moe_open_ended)". */
export function formatCell(
  c: Pick<ObservationCell, 'estimate' | 'moe_numeric' | 'estimate_annotation' | 'moe_annotation' | 'unit'>,
  seen: Map<string, AnnotationInfo>,
): string {
  const note = (a: AnnotationInfo | null) => {
    if (a) seen.set(a.code, a);
    return a ? ` [${a.code}]` : '';
  };
  if (c.estimate === null) return `no value${note(c.estimate_annotation)}`;
  let s = formatValue(c.estimate, c.unit);
  if (c.moe_numeric !== null) s += ` ± ${formatMoe(c.moe_numeric, c.unit)}`;
  s += note(c.estimate_annotation);
  if (c.moe_numeric === null) {
    const m = c.moe_annotation;
    if (m && m.code !== c.estimate_annotation?.code) s += ` (no margin of error${note(m)})`;
    else if (!m) s += ' (no margin of error published)';
  }
  return s;
}

function annotationsSection(seen: Map<string, AnnotationInfo>): string[] {
  if (seen.size === 0) return [];
  return ['', 'Annotations:', ...[...seen.values()].map((a) => `- ${a.code}${a.symbol ? ` (${a.symbol})` : ''}: ${a.meaning}`)];
}

/** First line of every MCP answer from a SYNTHETIC benchmark build. */
const SYNTHETIC_LINE = 'SYNTHETIC DATA: random values generated for benchmarking, not Census Bureau figures.';

function sourceLine(meta: VerbResult<unknown>['meta']): string[] {
  const src = meta?.source;
  if (!src) return [];
  const period = src.reference_period ? ` (reference period ${src.reference_period})` : '';
  const lines = [
    // A SYNTHETIC benchmark build says so before anything else.
    ...(meta?.synthetic === true ? [SYNTHETIC_LINE] : []),
    `${datasetName(src.dataset)}, vintage ${src.vintage_year}${period}. Source: ${src.census_program}. Margins of error are at the 90% confidence level.`,
  ];
  if (typeof meta?.geography_definitions === 'string') lines.push(meta.geography_definitions);
  return lines;
}

function tail(meta: VerbResult<unknown>['meta']): string[] {
  const out: string[] = [];
  const d = meta?.dollars as { target_year: number; index: string; release: string } | undefined;
  if (d) {
    out.push(
      `Dollars: dollar values are restated in ${d.target_year} dollars with the ${d.index} (${d.release}); each adjusted cell's factor is in structuredContent (dollars). Other units are as published.`,
    );
  }
  // The definitions sentence is already in the heading; notes may repeat it.
  if (Array.isArray(meta?.notes)) for (const n of meta.notes) if (n !== meta?.geography_definitions) out.push(`Note: ${String(n)}`);
  if (meta?.hint) out.push(`Hint: ${meta.hint}`);
  return out.length ? ['', ...out] : [];
}

function capped(lines: string[], total: number, unit: string): string[] {
  if (lines.length <= MAX_TEXT_LINES) return lines;
  return [
    ...lines.slice(0, MAX_TEXT_LINES),
    `… ${lines.length - MAX_TEXT_LINES} more ${unit} (all ${total} are in structuredContent.data).`,
  ];
}

const varLabel = (c: ObservationCell) => `${c.label} [${c.census_code ?? c.variable}]`;
const geoLabel = (c: ObservationCell) => `${c.geo_name} (${c.geo_key})`;

export function renderData(r: VerbResult<ObservationCell[]>): string {
  const seen = new Map<string, AnnotationInfo>();
  const lines: string[] = [];
  let lastGeo: string | null = null;
  // The verb returns cells grouped by geography; one heading per geography.
  const body: string[] = [];
  for (const c of r.data) {
    if (c.geo_key !== lastGeo) {
      body.push(`${geoLabel(c)}:`);
      lastGeo = c.geo_key;
    }
    body.push(`  ${varLabel(c)}: ${formatCell(c, seen)}`);
  }
  lines.push(...sourceLine(r.meta), '', ...capped(body, r.data.length, 'lines'));
  if (r.data.length === 0) lines.push('No values.');
  return [...lines, ...annotationsSection(seen), ...tail(r.meta)].join('\n');
}

export function renderCompare(r: VerbResult<ComparedCell[]>): string {
  const seen = new Map<string, AnnotationInfo>();
  const body: string[] = [];
  let lastVar: string | null = null;
  for (const c of r.data) {
    if (c.variable !== lastVar) {
      body.push(`${varLabel(c)}:`);
      lastVar = c.variable;
    }
    let line = `  ${geoLabel(c)}: ${formatCell(c, seen)}`;
    const k = c.comparison;
    if (!k) line += ' (reference)';
    else if (k.difference === null) line += ' — difference not computable (a value is missing)';
    else {
      const sign = k.difference > 0 ? '+' : k.difference < 0 ? '−' : '±';
      const diff = `${sign}${formatMoe(Math.abs(k.difference), c.unit)}`;
      const moe = k.difference_moe === null ? '' : ` ± ${formatMoe(k.difference_moe, c.unit)}`;
      const verdict =
        k.significant === null
          ? `not tested (${k.not_tested_reason ?? 'no margin of error'})`
          : k.significant
            ? 'statistically significant at 90%'
            : 'not statistically significant at 90%';
      line += ` — difference vs ${k.reference_geo_key}: ${diff}${moe}, ${verdict}`;
    }
    line += changeSuffix(c);
    body.push(line);
  }
  return [...sourceLine(r.meta), '', ...capped(body, r.data.length, 'lines'), ...annotationsSection(seen), ...tail(r.meta)].join('\n');
}

/** compare_to: the change from the base vintage and the verdict, after the value. */
function changeSuffix(c: ObservationCell & { change?: CellChange }): string {
  const k = c.change;
  if (k === undefined) return '';
  if (k === null) return ' (base year)';
  if (k.difference === null) return ` — change vs ${k.base_vintage} not computable (${k.not_tested_reason ?? 'a value is missing'})`;
  const sign = k.difference > 0 ? '+' : k.difference < 0 ? '−' : '±';
  const moe = k.difference_moe === null ? '' : ` ± ${formatMoe(k.difference_moe, c.unit)}`;
  const pct = k.percent_change === null ? '' : ` (${k.percent_change >= 0 ? '+' : '−'}${num(Math.abs(k.percent_change), 1)}%)`;
  const verdict =
    k.significant === null
      ? `not tested (${k.not_tested_reason})`
      : k.significant
        ? 'statistically significant at 90%'
        : 'not statistically significant at 90%';
  return ` — change vs ${k.base_vintage}: ${sign}${formatMoe(Math.abs(k.difference), c.unit)}${moe}${pct}, ${verdict}`;
}

export function renderTimeseries(r: VerbResult<ObservationCell[]>): string {
  const seen = new Map<string, AnnotationInfo>();
  const body: string[] = [];
  let last: string | null = null;
  for (const c of r.data) {
    const series = `${c.variable}|${c.geo_key}`;
    if (series !== last) {
      body.push(`${varLabel(c)} — ${geoLabel(c)}:`);
      last = series;
    }
    body.push(`  ${c.vintage}: ${formatCell(c, seen)}${changeSuffix(c as ObservationCell & { change?: CellChange })}`);
  }
  const src = r.meta?.source;
  const head = src
    ? [
        ...(r.meta?.synthetic === true ? [SYNTHETIC_LINE] : []),
        `${datasetName(src.dataset)}, vintages ${src.reference_period ?? ''}${Array.isArray(r.meta?.vintages) ? ` (${(r.meta.vintages as number[]).join(', ')})` : ''}. Source: ${src.census_program}. Margins of error are at the 90% confidence level.`,
      ]
    : [];
  if (typeof r.meta?.geography_definitions === 'string') head.push(r.meta.geography_definitions);
  return [...head, '', ...capped(body, r.data.length, 'lines'), ...annotationsSection(seen), ...tail(r.meta)].join('\n');
}

function pageLine(r: VerbResult<unknown[]>, what: string): string {
  const p = r.page;
  const total = p?.total ?? r.data.length;
  if (!p || total === 0) return `${total} ${what}.`;
  const more = p.offset + r.data.length < total ? ` Next page: call again with offset ${p.offset + p.limit}.` : '';
  return `${total} ${what}; showing ${r.data.length ? `${p.offset + 1}–${p.offset + r.data.length}` : 'none'}.${more}`;
}

/**
 * The same census code on the Census-API-compatible endpoint, for agents helping someone whose code
 * already speaks the Bureau's API: `/data/{vintage}/acs/acs1?get=B19013_001E&for=…`.
 */
function censusApiForm(code: string, datasets: string[]): string {
  const paths = [...new Set((datasets.length ? datasets : datasetKeys()).map((d) => datasetSpec(d).bureauPath))].sort();
  const path =
    paths.length === 1 ? paths[0] : `${paths[0]!.split('/')[0]}/{${paths.map((p) => p.split('/').slice(1).join('/')).join('|')}}`;
  return `Census API form: /data/{vintage}/${path}?get=${code}&for=…`;
}

/** get_coverage: one line per dataset and vintage, "2018: 21 of 36 variables with values". */
export function renderCoverage(r: VerbResult<CoverageRow[]>): string {
  const m = r.meta ?? {};
  const head = [
    ...(m.synthetic === true ? [SYNTHETIC_LINE] : []),
    `${String(m.name ?? '')} (${String(m.geo_key ?? '')}). ${String(m.counted ?? '')}`,
  ];
  const body: string[] = [];
  let dataset: string | null = null;
  for (const row of r.data) {
    if (row.dataset !== dataset) body.push(`${datasetName(row.dataset)}:`);
    dataset = row.dataset;
    body.push(
      `  ${row.vintage}: ${row.with_values} of ${row.variables} variables with values${row.loaded ? '' : ' (not loaded in this deployment)'}`,
    );
  }
  const unpublished = m.not_published as Record<string, string[]> | undefined;
  const notPublished = Object.entries(unpublished ?? {}).map(([d, names]) => `Not published in ${d} in any vintage: ${names.join(', ')}.`);
  return [...head, '', ...body, ...notPublished, ...tail(m)].join('\n');
}

export function renderVariables(r: VerbResult<VariableSearchItem[]>): string {
  const lines = [pageLine(r, r.page?.total === 1 ? 'variable matches' : 'variables match')];
  for (const v of r.data) {
    if (v.kind === 'census_code') {
      const years = datasetKeys()
        .filter((d) => v.availability?.[d]?.length)
        .map((d) => `${d} ${v.availability![d]!.join(', ')}`)
        .join('; ');
      const datasets = datasetKeys().filter((d) => v.availability?.[d]?.length);
      lines.push(
        `- ${v.census_code} (census code as published; table ${v.table_id}${v.table_title ? ` "${v.table_title}"` : ''}): ${v.label} — published in ${years}; ${censusApiForm(v.census_code!, datasets)}`,
      );
      continue;
    }
    const codes = v.matched_census_codes?.length
      ? `; matched census codes: ${v.matched_census_codes.map((m) => `${m.code} (${m.vintages.join(', ')})`).join('; ')}`
      : '';
    const compat = v.census_code ? `; ${censusApiForm(v.census_code, [])}` : '';
    lines.push(
      `- ${v.api_name}: ${v.label} [${v.census_code ?? 'derived'}] (${v.unit}${v.topic ? `, topic ${v.topic.topic_key}` : ''}${codes})${compat}`,
    );
  }
  const tables = (r.meta?.matching_tables ?? []) as TableSummary[];
  if (tables.length) {
    lines.push('', 'Detailed Tables that match (ask for a whole table with variables "B19013*"):');
    for (const t of tables) lines.push(`- ${t.table_id}: ${t.title ?? '(no title)'}${t.universe ? ` — universe: ${t.universe}` : ''}`);
  }
  lines.push(
    '',
    'Use the api_name (catalog variable), census code (as published that year) or table* in the variables argument of get_census_data, compare_geographies or get_timeseries.',
    "A census code also works unchanged in the Census Data API's own query language on this service's compatible endpoint (the Census API form above; get=group(B19013) for a whole table), so existing Census API code can be pointed here.",
  );
  return [...lines, ...tail(r.meta)].join('\n');
}

export function renderGeographies(r: VerbResult<GeographyView[]>): string {
  const lines = [pageLine(r, r.page?.total === 1 ? 'geography' : 'geographies')];
  for (const g of r.data) {
    const pop = g.population !== null ? `, population ${num(g.population, 0)}` : '';
    const valid = `${g.valid_from}–${g.valid_to ?? ''}`;
    lines.push(`- ${g.geo_key}: ${g.name} (${g.type}${pop}; valid for vintages ${valid})`);
  }
  lines.push('', 'Use the geo_key in the geo argument of the data tools.');
  return [...lines, ...tail(r.meta)].join('\n');
}

export function renderTopics(r: VerbResult<(Topic & { variable_count: number })[]>): string {
  const lines = [`${r.data.length} topics:`];
  for (const t of r.data) lines.push(`${'  '.repeat(t.depth)}- ${t.topic_key}: ${t.label} (${t.variable_count} variables)`);
  lines.push('', 'Pass a topic_key as topic to search_variables to browse its variables.');
  return lines.join('\n');
}

export function renderDatasets(r: VerbResult<DatasetSummary[]>): string {
  const lines = [`${r.data.length} datasets:`];
  for (const d of r.data) {
    lines.push(
      `- ${d.dataset}: ${d.label}. Vintages ${d.vintages.join(', ') || 'none'}; default ${d.default_vintage ?? 'none'}; ${d.variable_count} variables.`,
    );
  }
  lines.push('', `Datasets: ${datasetParamDescription()}.`);
  return lines.join('\n');
}

type Geographies = NonNullable<Extract<GeocodeData, { geographies: unknown }>['geographies']>;

function geographyLines(g: Geographies | null): string[] {
  if (!g) return [];
  return Object.entries(g).map(([level, a]) => {
    if (a.key === null) return `  ${level}: none (${(a as { reason: string }).reason})`;
    const m = a as { key: string; name: string; method: string; approximate: boolean; boundary_vintage: string };
    return `  ${level}: ${m.name ? `${m.name} ` : ''}(${m.key})${m.approximate ? ', approximate' : ''} [${m.method}, boundaries ${m.boundary_vintage}]`;
  });
}

export function renderGeocode(r: VerbResult<GeocodeData>): string {
  const d = r.data;
  const lines: string[] = [];
  if ('lat' in d.input) {
    lines.push(`Point ${d.input.lat}, ${d.input.lng}: ${d.status}${d.reason ? ` (${d.reason})` : ''}.`);
  } else {
    const a = d as Extract<GeocodeData, { parsed: unknown }>;
    lines.push(`Address "${a.input.address}": ${a.status}${a.reason ? ` (${a.reason})` : ''}.`);
    if (a.match)
      lines.push(`Matched ${a.match.matched_address} at ${a.match.coordinates.lat}, ${a.match.coordinates.lng} (${a.match.quality}).`);
    if (a.status === 'ambiguous') for (const c of a.candidates.slice(0, 10)) lines.push(`- candidate: ${c.matched_address} (${c.quality})`);
  }
  const geo = geographyLines(d.geographies);
  if (geo.length) lines.push('Containing geographies:', ...geo, '', 'Use these keys in the geo argument of the data tools.');
  return [...lines, ...tail(r.meta)].join('\n');
}
