// An API error as the page shows it: the problem's title and detail, and for a plan gate the
// link to the plan the API names (its upgrade_url and required_plan), never a blank section.
import { ApiError } from '../explore/api.js';

const planName = (p: unknown) => (typeof p === 'string' && p ? `${p[0]!.toUpperCase()}${p.slice(1)} ` : '');

export function Problem({ error }: { error: unknown }) {
  if (error instanceof ApiError) {
    const p = error.problem;
    return (
      <div class={`notice ${p.status === 403 ? 'warning' : 'error'}`} role="alert">
        <strong>{p.title ?? 'Request failed'}.</strong> {p.detail}{' '}
        {p.upgrade_url && <a href={p.upgrade_url}>See the {planName(p.required_plan)}plan</a>}
      </div>
    );
  }
  return (
    <div class="notice error" role="alert">
      {String(error instanceof Error ? error.message : error)}
    </div>
  );
}
