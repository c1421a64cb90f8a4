import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ANNOTATIONS, cleanCell, describeAnnotation } from '../../src/domain/annotations.js';
import { REPO_ROOT } from '../support/paths.js';

describe('annotations', () => {
  it('documents every code in docs/annotations.md', () => {
    const doc = fs.readFileSync(path.join(REPO_ROOT, 'docs/annotations.md'), 'utf8');
    // A row of the codes table, whatever the column padding the formatter chose.
    for (const code of Object.keys(ANNOTATIONS)) expect(doc, code).toMatch(new RegExp(`\\|\\s*\`${code}\`\\s*\\|`));
  });

  it.each([
    ['-666666666', null, 'E', null, 'not_computable'],
    ['-666666666.0', '-', 'E', null, 'not_computable'],
    ['-555555555', '*****', 'M', null, 'controlled'],
    // 2005–2009 spell the no-value MOEs as 0 beside the symbol: the same form as the jam values.
    ['0', '*****', 'M', null, 'controlled'],
    ['0', '***', 'M', null, 'moe_open_ended'],
    ['0.0', '**', 'M', null, 'moe_not_computable'],
    ['250001', '250,000+', 'E', 250001, 'top_coded'],
    ['2499', '2,500-', 'E', 2499, 'bottom_coded'],
    ['12', '*', 'M', 12, 'source_annotated'],
    ['-5', null, 'E', -5, null],
    [null, null, 'E', null, 'missing_in_source'],
  ] as const)('cleans %s (%s) in %s to %s / %s', (raw, ann, kind, value, code) => {
    expect(cleanCell(raw, ann, kind)).toEqual({ value, annotation: code });
  });

  it('rejects text that is not a number', () => {
    expect(cleanCell('N/A', null, 'E')).toBeUndefined();
  });

  it('describes known and unknown codes', () => {
    expect(describeAnnotation('controlled')).toMatchObject({ code: 'controlled', symbol: '*****' });
    expect(describeAnnotation(null)).toBeNull();
    expect(describeAnnotation('made_up')?.code).toBe('made_up');
  });
});
