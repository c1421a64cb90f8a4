// The pure shaping of the Census Data API discovery documents (src/domain/census-api): what the
// HTTP tests on the real build cannot reach — levels the build does not hold yet, vintage runs,
// concept casing across the 2023 change, and code names the API does not have.
import { describe, expect, it } from 'vitest';
import { catalogDocument } from '../../../src/domain/census-api/discovery-catalog.js';
import { servedSummary, unknownDataset } from '../../../src/domain/census-api/discovery-errors.js';
import { geographyDocument } from '../../../src/domain/census-api/discovery-geography.js';
import { conceptOf, datasetIdentifier, type ServedDataset } from '../../../src/domain/census-api/discovery-served.js';
import { tableOfVariable, variableDocument, variablesDocument } from '../../../src/domain/census-api/discovery-variables.js';

const served = (
  dataset: 'acs1' | 'acs5',
  vintage: number,
  levels: ServedDataset['levels'] = ['state'],
  tables: string[] = [],
): ServedDataset => ({
  dataset,
  vintage,
  levels,
  tables,
});

describe('geographyDocument', () => {
  it('names every level as the Bureau does, with the nesting of the ones below a state', () => {
    const doc = geographyDocument(served('acs5', 2023, ['nation', 'state', 'county', 'metro', 'cd', 'tract', 'block_group']));
    expect(doc.fips.map((f) => [f.name, f.geoLevelDisplay])).toEqual([
      ['us', '010'],
      ['state', '040'],
      ['county', '050'],
      ['metropolitan statistical area/micropolitan statistical area', '310'],
      ['congressional district', '500'],
      ['tract', '140'],
      ['block group', '150'],
    ]);
    expect(doc.fips.find((f) => f.name === 'tract')).toMatchObject({ requires: ['state', 'county'], optionalWithWCFor: 'county' });
    expect(doc.fips.find((f) => f.name === 'us')).not.toHaveProperty('requires');
    expect(new Set(doc.fips.map((f) => f.referenceDate))).toEqual(new Set(['2023-01-01']));
  });
});

describe('the served-dataset summary in an unknown-dataset error', () => {
  it('joins runs of three or more consecutive vintages and lists the rest', () => {
    const list = [2005, 2006, 2007, 2009, 2010, 2012].map((v) => served('acs1', v)).concat([served('acs5', 2017), served('acs5', 2018)]);
    expect(servedSummary(list)).toBe('acs/acs1 2005–2007, 2009, 2010, 2012; acs/acs5 2017, 2018');
    expect(unknownDataset('2020/dec/pl', list)).toEqual({
      status: 404,
      body: "error: unknown/unsupported dataset '2020/dec/pl'. This service holds acs/acs1 2005–2007, 2009, 2010, 2012; acs/acs5 2017, 2018 (the list with links: /data.json)",
    });
  });
});

describe('names and concepts', () => {
  it('upper-cases concepts before 2023, as the API wrote them, and keeps the title from 2023', () => {
    expect(conceptOf('Median Household Income', 'B19013', 2022)).toBe('MEDIAN HOUSEHOLD INCOME');
    expect(conceptOf('Median Household Income', 'B19013', 2023)).toBe('Median Household Income');
    expect(conceptOf(null, 'B19013', 2018)).toBe('B19013');
  });

  it('knows the API dataset ids and the table of each suffix', () => {
    expect(datasetIdentifier('acs1', 2018)).toBe('ACSDT1Y2018');
    expect(datasetIdentifier('acs5', 2023)).toBe('ACSDT5Y2023');
    for (const code of ['B19013_001E', 'B19013_001M', 'B19013_001EA', 'B19013_001MA']) expect(tableOfVariable(code)).toBe('B19013');
    for (const code of ['B19013_001', 'B19013_001X', 'b19013_001E', 'DP05_0001E', 'B19013_001E.json'])
      expect(tableOfVariable(code)).toBeNull();
  });
});

describe('variable documents from metadata', () => {
  const meta = {
    columns: (t: string) =>
      t === 'B99171'
        ? [{ code: 'B99171_001E', label: 'Estimate!!Total', predicate_type: 'int' as const, has_moe: false }]
        : [{ code: 'B25010_001E', label: 'Average household size --!!Total:', predicate_type: null, has_moe: true }],
    table: () => ({ title: 'Average Household Size', universe: 'Occupied housing units' }),
  };

  it('prefixes shell labels with Estimate!!, omits an unknown predicateType, and names no margin where there is none', () => {
    const doc = variablesDocument(served('acs5', 2017, ['state'], ['B25010', 'B99171']), meta);
    expect(doc.variables.B25010_001E).toEqual({
      label: 'Estimate!!Average household size --!!Total:',
      concept: 'AVERAGE HOUSEHOLD SIZE',
      group: 'B25010',
      limit: 0,
      attributes: 'B25010_001EA,B25010_001M,B25010_001MA',
    });
    expect(doc.variables.B99171_001E!.attributes).toBe('B99171_001EA');
    const s = served('acs5', 2017, ['state'], ['B25010', 'B99171']);
    expect(variableDocument(s, meta, 'B99171_001M')).toBeNull();
    expect(variableDocument(s, meta, 'B25010_001M')).toMatchObject({
      label: 'Margin of Error!!Average household size --!!Total:',
      predicateOnly: true,
    });
    // A table the build does not hold is not described, whatever the metadata knows.
    expect(variableDocument(served('acs5', 2017, ['state'], ['B99171']), meta, 'B25010_001E')).toBeNull();
  });

  it('catalog entries give the 5-year period and point every link at the base', () => {
    const doc = catalogDocument([served('acs5', 2022, ['county'], ['B01003'])], {
      base: 'https://x.example/api',
      modified: '2026-11-27',
      documentation: 'https://x.example/api/openapi.json',
    });
    expect(doc.dataset[0]).toMatchObject({
      temporal: '2018/2022',
      identifier: 'https://x.example/api/data/id/ACSDT5Y2022',
      c_variablesLink: 'https://x.example/api/data/2022/acs/acs5/variables.json',
      distribution: [{ accessURL: 'https://x.example/api/data/2022/acs/acs5' }],
    });
  });
});
