// The API reference at /docs: one server-rendered page built from this service's own OpenAPI
// document (/openapi.json), instead of Swagger UI. Swagger UI failed axe (unnamed buttons and
// selects, nested interactive controls, 54 low-contrast texts) and took 3.7–4.4 s to show; this
// page is plain HTML with the dashboard's stylesheet: no script, nothing external, readable on a
// phone. Each operation: method and path, summary, description, parameters and responses.
import { escapeHtml, page } from './dashboard/html.js';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Record<string, unknown>;
}

interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  operationId?: string;
  parameters?: Parameter[];
  security?: unknown[];
  responses?: Record<string, { description?: string }>;
  requestBody?: { description?: string; content?: Record<string, unknown> };
}

export interface OpenApiDocument {
  info?: { title?: string; version?: string; description?: string };
  paths?: Record<string, Record<string, Operation>>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Escaped text with the description's `code` spans as <code> and blank lines as paragraphs. */
function prose(s: string | undefined): string {
  if (!s) return '';
  return s
    .split(/\n{2,}/)
    .map((para) => `<p>${escapeHtml(para).replace(/`([^`]+)`/g, '<code>$1</code>')}</p>`)
    .join('\n');
}

/** A parameter's type in a few words: "string", "integer", "string or array of string". */
function typeOf(schema: Record<string, unknown> | undefined): string {
  if (!schema) return '';
  const any = (schema.anyOf ?? schema.oneOf) as Record<string, unknown>[] | undefined;
  if (any) return [...new Set(any.map(typeOf))].join(' or ');
  if (schema.type === 'array') return `array of ${typeOf(schema.items as Record<string, unknown>)}`;
  if (Array.isArray(schema.enum)) return `one of ${(schema.enum as unknown[]).map(String).join(', ')}`;
  return String(schema.type ?? '');
}

const anchor = (method: string, path: string) => `${method}-${path}`.replace(/[^A-Za-z0-9]+/g, '-').replace(/-+$/, '');

function operationHtml(method: string, path: string, op: Operation): string {
  const params = op.parameters ?? [];
  const rows = params
    .map(
      (p) =>
        `<tr><th scope="row"><code>${escapeHtml(p.name)}</code></th><td>${escapeHtml(p.in)}</td><td>${p.required ? 'yes' : 'no'}</td><td>${escapeHtml(typeOf(p.schema))}</td><td>${prose(p.description)}</td></tr>`,
    )
    .join('\n');
  const responses = Object.entries(op.responses ?? {})
    .map(([status, r]) => `<li><strong>${escapeHtml(status)}</strong> ${escapeHtml((r.description ?? '').split('\n')[0]!)}</li>`)
    .join('\n');
  const open = op.security && op.security.length === 0 ? '<p class="hint">No API key needed.</p>' : '';
  return `<article class="operation" id="${anchor(method, path)}" aria-labelledby="${anchor(method, path)}-title">
<h3 id="${anchor(method, path)}-title"><span class="method">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h3>
${op.summary ? `<p><strong>${escapeHtml(op.summary)}</strong></p>` : ''}
${open}
${prose(op.description)}
${
  op.requestBody
    ? `<h4>Request body</h4>${prose(op.requestBody.description)}<p>${Object.keys(op.requestBody.content ?? {})
        .map((t) => `<code>${escapeHtml(t)}</code>`)
        .join(', ')}</p>`
    : ''
}
${
  params.length
    ? `<h4>Parameters</h4>
<div class="table-wrap" tabindex="0" role="region" aria-label="Parameters of ${method.toUpperCase()} ${escapeHtml(path)}">
<table><thead><tr><th scope="col">Name</th><th scope="col">In</th><th scope="col">Required</th><th scope="col">Type</th><th scope="col">Description</th></tr></thead>
<tbody>${rows}</tbody></table></div>`
    : ''
}
${responses ? `<h4>Responses</h4><ul class="responses">${responses}</ul>` : ''}
</article>`;
}

/** The whole reference page from the OpenAPI document, grouped by each operation's first tag. */
export function renderReference(doc: OpenApiDocument): string {
  const groups = new Map<string, { method: string; path: string; op: Operation }[]>();
  for (const [path, item] of Object.entries(doc.paths ?? {}))
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const tag = op.tags?.[0] ?? 'other';
      if (!groups.has(tag)) groups.set(tag, []);
      groups.get(tag)!.push({ method, path, op });
    }
  const toc = [...groups]
    .map(
      ([tag, ops]) =>
        `<li>${escapeHtml(tag)}<ul>${ops.map((o) => `<li><a href="#${anchor(o.method, o.path)}">${o.method.toUpperCase()} ${escapeHtml(o.path)}</a></li>`).join('')}</ul></li>`,
    )
    .join('\n');
  const sections = [...groups]
    .map(
      ([tag, ops], i) =>
        `<section class="panel" aria-labelledby="tag-${i}"><h2 id="tag-${i}">${escapeHtml(tag)}</h2>\n${ops.map((o) => operationHtml(o.method, o.path, o.op)).join('\n')}</section>`,
    )
    .join('\n');
  const title = `${doc.info?.title ?? 'API'} API reference`;
  return page(
    title,
    `<a class="skip" href="#operations">Skip to the operations</a>
<main id="main" class="reference">
<h1>${escapeHtml(title)}</h1>
<p class="lead">Version ${escapeHtml(doc.info?.version ?? '')}. Every operation of this service, from its OpenAPI document (<a href="/openapi.json">/openapi.json</a>, for code generators and tools). Send your key as <code>X-API-Key</code>; get one on the <a href="/dashboard">dashboard</a>.</p>
<nav aria-label="Operations" class="toc"><ul>${toc}</ul></nav>
<div id="operations" tabindex="-1">${sections}</div>
</main>`,
  );
}
