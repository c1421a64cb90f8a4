// `in=` clauses joined by an encoded `+`: R's httr (and so tidycensus and censusapi) builds the
// query with curl::curl_escape, which sends `in=state:48+county:453` as `state%3A48%2Bcounty%3A453`.
// The query string is decoded once: a bare `+` arrives as a space, `%2B` as a literal `+`, and the
// Bureau's API takes either as the clause separator, so the three spellings must answer alike.
// The test build holds no tract values (../shared/census/README.md §1), so a tract query's answer
// is the Bureau-style "holds no values for the level 'tract'" (404) — the same for every spelling,
// and never the 400 "unknown/unsupported geography hierarchy" a misread `in=` gives.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCensusApiQuery } from '../../../src/domain/census-api/query.js';
import { parseQueryString } from '../../../src/http/query-string.js';
import { startService, type Service } from '../../support/service.js';

/** R with its curl package (httr's own encoder), when installed; the R part is skipped without it. */
function rCurlAvailable(): boolean {
  try {
    execFileSync('Rscript', ['-e', 'stopifnot(requireNamespace("curl", quietly = TRUE))'], { stdio: 'ignore', timeout: 60_000 });
    return true;
  } catch {
    return false;
  }
}

describe('in= with an encoded +', () => {
  it('reads state:48%2Bcounty:453 as the two clauses state:48 and county:453', () => {
    for (const raw of ['in=state:48%2Bcounty:453', 'in=state%3A48%2Bcounty%3A453', 'in=state:48+county:453', 'in=state:48%20county:453']) {
      const q = parseCensusApiQuery(parseQueryString(`get=NAME&for=tract:*&${raw}`));
      expect(q.geo.map((g) => g.raw), raw).toEqual(['tract:48453*']);
    }
    const bg = parseCensusApiQuery(parseQueryString('get=NAME&for=block%20group:*&in=state%3A48%2Bcounty%3A453%2Btract%3A001100'));
    expect(bg.geo.map((g) => g.raw)).toEqual(['block_group:48453001100*']);
  });

  let svc: Service;
  let base: string;
  beforeAll(async () => {
    svc = await startService();
    base = await svc.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await svc?.close();
  });

  async function ask(inParam: string) {
    const res = await fetch(`${base}/data/2022/acs/acs5?get=NAME,B01003_001E&for=tract:*&in=${inParam}&key=${svc.keys.pro}`);
    return { status: res.status, body: await res.text() };
  }

  it('answers the %2B spelling over a real port exactly as the space and bare + spellings', async () => {
    const space = await ask('state:48%20county:453');
    expect(space.status).toBe(404);
    expect(space.body).toMatch(/no acs5 2022 values for the level 'tract'/);
    expect(await ask('state:48+county:453')).toEqual(space);
    expect(await ask('state:48%2Bcounty:453')).toEqual(space);
    expect(await ask('state%3A48%2Bcounty%3A453')).toEqual(space);
    // A county query with one clause spelled the encoded way answers its values.
    const county = await fetch(`${base}/data/2022/acs/acs5?get=NAME,B01003_001E&for=county:453&in=state%3A48&key=${svc.keys.pro}`);
    expect(await county.json()).toEqual([
      ['NAME', 'B01003_001E', 'state', 'county'],
      ['Travis County, Texas', expect.stringMatching(/^\d+$/), '48', '453'],
    ]);
  });

  it.skipIf(!rCurlAvailable())("answers the query as R's curl package encodes and sends it", async () => {
    // httr::GET(url, query = list(`in` = "state:48+county:453")) encodes each value with
    // curl::curl_escape; the same encoder and the same HTTP stack (curl_fetch_memory) here.
    const script = [
      'args <- commandArgs(trailingOnly = TRUE)',
      'q <- c(get = "NAME,B01003_001E", `for` = "tract:*", `in` = "state:48+county:453", key = args[2])',
      'url <- paste0(args[1], "/data/2022/acs/acs5?", paste(names(q), curl::curl_escape(q), sep = "=", collapse = "&"))',
      'r <- curl::curl_fetch_memory(url)',
      'cat(url, "\\n", r$status_code, "\\n", rawToChar(r$content), sep = "")',
    ].join('\n');
    // Asynchronously: the server answering R runs on this process's event loop.
    const { stdout: out } = await promisify(execFile)('Rscript', ['-e', script, base, svc.keys.pro], { encoding: 'utf8', timeout: 60_000 });
    const [url, status, ...body] = out.split('\n');
    expect(url).toContain('in=state%3A48%2Bcounty%3A453');
    const space = await ask('state:48%20county:453');
    expect({ status: Number(status), body: body.join('\n') }).toEqual(space);
  });
});
