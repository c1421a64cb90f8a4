// The query-string parser of the app. An empty value (`?vintage=`, `?search=`) means the parameter
// is absent, as HTML forms and careless clients send it (docs/api.md): it is dropped here, once,
// so no schema has to remember it and a required parameter sent empty reads as `missing`.
import { parse } from 'node:querystring';

export type ParsedQuery = Record<string, string | string[]>;

export function parseQueryString(raw: string): ParsedQuery {
  const out: ParsedQuery = {};
  for (const [name, value] of Object.entries(parse(raw))) {
    if (value === undefined) continue;
    const values = (Array.isArray(value) ? value : [value]).filter((v) => v.trim() !== '');
    if (values.length === 0) continue;
    out[name] = values.length === 1 ? values[0]! : values;
  }
  return out;
}
