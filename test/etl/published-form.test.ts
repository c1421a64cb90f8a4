import { describe, expect, it } from 'vitest';
import { fileForm, PartitionForm } from '../../etl/steps/observations/published-form.js';

const body = (rows: (string | null)[][]) => JSON.stringify(rows);

describe('fileForm', () => {
  it('keeps the table columns in the file order and only the cells the stored value does not give back', () => {
    const form = fileForm(
      body([
        ['GEO_ID', 'B01002_001E', 'B01002_001M', 'NAME', 'B01002_001EA', 'B01002_001MA', 'state'],
        ['0400000US06', '40.0', '0.1', 'California', null, null, '06'],
        ['0400000US48', '34.4', '0', 'Texas', null, '*****', '48'],
        ['0400000US72', '-666666666.0', '-222222222', 'Puerto Rico', '-', '**', '72'],
        ['0400000US11', '250001', '-333333333', 'District of Columbia', '250,000+', '***', '11'],
        ['0400000US01', null, null, 'Alabama', null, null, '01'],
      ]),
      'api/2009/acs/acs1/state/B01002.json',
    );
    expect(form.tables).toEqual([['B01002', 'GEO_ID 001E 001M NAME 001EA 001MA']]);
    expect(form.names).toContainEqual(['state:72', 'Puerto Rico']);
    expect(form.geoIds).toContainEqual(['state:06', '0400000US06']);
    expect(form.text).toEqual([
      ['state:06', 'B01002_001E', '40.0'], // stored 40
      ['state:48', 'B01002_001M', '0'], // stored null, controlled: rendered -555555555
      ['state:72', 'B01002_001E', '-666666666.0'], // stored null, not_computable
      ['state:11', 'B01002_001EA', '250,000+'], // the interval bound's text
    ]);
  });

  it('collects a partition’s files', () => {
    const p = new PartitionForm();
    p.add({
      tables: [['B19013', 'NAME 001E']],
      names: [['state:06', 'California']],
      geoIds: [],
      text: [['state:06', 'B19013_001E', '1.0']],
    });
    p.add({ tables: [['B01003', 'NAME 001E']], names: [['state:06', 'California']], geoIds: [], text: [] });
    expect(JSON.parse(p.json())).toEqual({
      tables: { B19013: 'NAME 001E', B01003: 'NAME 001E' },
      names: { 'state:06': 'California' },
      geoIds: {},
      text: { 'state:06': { B19013_001E: '1.0' } },
    });
  });

  it('lists every geography of a file without NAME (null), and a later file’s NAME replaces the null', () => {
    const bare = fileForm(
      body([
        ['B19013_001E', 'state'],
        ['1', '06'],
      ]),
      'api/2016/acs/acs1/state/B19013.json',
    );
    expect(bare.names).toEqual([['state:06', null]]);
    const p = new PartitionForm();
    p.add(bare);
    p.add({ tables: [['B01003', 'NAME 001E']], names: [['state:06', 'California']], geoIds: [], text: [] });
    p.add({ tables: [], names: [['state:06', null]], geoIds: [], text: [] });
    expect(JSON.parse(p.json()).names).toEqual({ 'state:06': 'California' });
  });
});
