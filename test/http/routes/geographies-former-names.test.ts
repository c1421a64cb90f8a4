// Former place names through HTTP (issue 34/37 §5): the names the build's own value files
// published in earlier vintages (the ACS 2017 acs5 metro files title 12420 "Austin-Round Rock,
// TX Metro Area", 31020 "Longview, WA Metro Area") find the place today, with a note that names
// the former title; a former name another place also bears answers with both as candidates.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../../support/service.js';

let svc: Service;
const get = (url: string) => svc.app.inject({ url, headers: { 'x-api-key': svc.keys.pro } });
const children = (name: string, extra = '') => get(`/v1/geographies/${encodeURIComponent(name)}/children?type=county${extra}`);

interface ChildrenBody {
  meta: {
    parent: { geo_key: string; name: string };
    notes: string[];
    name_note: string | null;
    former_name: { former_name: string; from: number; to: number | null; current_name: string; vintage: number; geo_key: string } | null;
  };
}

beforeAll(async () => {
  svc = await startService();
}, 120_000);
afterAll(() => svc?.close());

describe('former place names', () => {
  it.each(['Austin-Round Rock, TX', 'metro:Austin-Round Rock', 'Austin-Round Rock'])(
    '“%s” (the ACS 2017 title) is metro:12420 today, with a note naming the former title',
    async (name) => {
      const r = await children(name);
      expect(r.statusCode, r.body.slice(0, 300)).toBe(200);
      const body = r.json<ChildrenBody>();
      expect(body.meta.parent.geo_key).toBe('metro:12420');
      expect(body.meta.parent.name).toBe('Austin-Round Rock-San Marcos, TX Metro Area');
      expect(body.meta.name_note).toBe(
        '"Austin-Round Rock, TX" is the ACS 2017 title of metro:12420; in 2024 it is "Austin-Round Rock-San Marcos, TX".',
      );
      expect(body.meta.notes[0]).toBe(body.meta.name_note);
      // The same as fields, so a page can word it with names rather than the key (issue 37 §8).
      expect(body.meta.former_name).toEqual({
        former_name: 'Austin-Round Rock, TX',
        from: 2017,
        to: 2017,
        current_name: 'Austin-Round Rock-San Marcos, TX',
        vintage: 2024,
        geo_key: 'metro:12420',
      });
    },
  );

  it('the current title carries no former-name note (its earlier rows have the same title)', async () => {
    const r = await children('Austin-Round Rock-San Marcos, TX');
    expect(r.statusCode).toBe(200);
    expect(r.json<ChildrenBody>().meta.name_note).toBeNull();
    expect(r.json<ChildrenBody>().meta.former_name).toBeNull();
    // In 2017 the 2017 title is the current one: no note either.
    const then = await children('Austin-Round Rock, TX', '&vintage=2017');
    expect(then.json<ChildrenBody>().meta.name_note).toBeNull();
    expect(then.json<ChildrenBody>().meta.former_name).toBeNull();
  });

  it('a later title asked about an earlier vintage is noted the other way round (2023 title, ACS 2017)', async () => {
    const r = await children('Austin-Round Rock-San Marcos, TX', '&vintage=2017');
    expect(r.statusCode, r.body.slice(0, 300)).toBe(200);
    const meta = r.json<ChildrenBody>().meta;
    expect(meta.parent.geo_key).toBe('metro:12420');
    expect(meta.former_name).toEqual({
      former_name: 'Austin-Round Rock-San Marcos, TX',
      from: 2018,
      to: null,
      current_name: 'Austin-Round Rock, TX',
      vintage: 2017,
      geo_key: 'metro:12420',
    });
    expect(meta.name_note).toBe(
      '"Austin-Round Rock-San Marcos, TX" is the ACS 2018–present title of metro:12420; in 2017 it is "Austin-Round Rock, TX".',
    );
  });

  it('“Longview”, the title of metro:30980 and the 2017 title of metro:31020, answers with both', async () => {
    const r = await children('Longview');
    expect(r.statusCode).toBe(400);
    const body = r.json<{ type: string; detail: string; candidates: { key: string; name: string }[] }>();
    expect(body.type).toMatch(/ambiguous-geography-name$/);
    expect(body.candidates.map((c) => c.key).sort()).toEqual(['metro:30980', 'metro:31020']);
    expect(body.detail).toContain('Longview-Kelso, WA (metro:31020; "Longview, WA" in ACS 2017)');
    // With its state the former title is one place.
    const wa = await children('Longview, WA');
    expect(wa.statusCode).toBe(200);
    expect(wa.json<ChildrenBody>().meta.parent.geo_key).toBe('metro:31020');
    expect(wa.json<ChildrenBody>().meta.name_note).toContain('"Longview, WA" is the ACS 2017 title of metro:31020');
    expect(wa.json<ChildrenBody>().meta.former_name).toMatchObject({ former_name: 'Longview, WA', geo_key: 'metro:31020' });
  });

  it('GET /v1/geographies?parent= (MCP search_geographies) names a former name as the children operation does', async () => {
    const r = await get(`/v1/geographies?parent=${encodeURIComponent('Austin-Round Rock, TX')}&type=county`);
    expect(r.statusCode, r.body.slice(0, 300)).toBe(200);
    const body = r.json<ChildrenBody & { data: { geo_key: string }[] }>();
    expect(body.data.map((c) => c.geo_key)).toContain('county:48453');
    expect(body.meta.notes).toEqual([
      '"Austin-Round Rock, TX" is the ACS 2017 title of metro:12420; in 2024 it is "Austin-Round Rock-San Marcos, TX".',
    ]);
    expect(body.meta.former_name).toMatchObject({ former_name: 'Austin-Round Rock, TX', current_name: 'Austin-Round Rock-San Marcos, TX' });
    // A parent given by its key brings no note.
    const byKey = await get('/v1/geographies?parent=metro:12420&type=county');
    expect(byKey.json<ChildrenBody>().meta.former_name).toBeUndefined();
  });

  it('a former title in geo= finds the metro’s counties, with the note in meta.notes', async () => {
    const r = await get(
      `/v1/data?variables=B01003_001E&geo=${encodeURIComponent('county:Austin-Round Rock, TX')}&dataset=acs5&vintage=2023`,
    );
    expect(r.statusCode).toBe(200);
    const body = r.json<{ data: { geo_key: string }[]; meta: { notes: string[] } }>();
    expect(body.data.map((c) => c.geo_key)).toContain('county:48453');
    expect(body.meta.notes).toContain(
      '"Austin-Round Rock, TX" is the ACS 2017 title of metro:12420; in 2023 it is "Austin-Round Rock-San Marcos, TX".',
    );
  });
});
