// The dataset registry's rules: what registration accepts, how vintages are checked (a built one
// the registry does not list is refused saying so) and what a build holds beyond it.
import { describe, expect, it } from 'vitest';
import {
  checkVintage,
  datasetKeys,
  otherDataset,
  parseDataset,
  referencePeriod,
  registerDataset,
  unregisteredPartitions,
  unregisterDataset,
  type DatasetSpec,
} from '../../src/domain/datasets.js';
import { AppError } from '../../src/domain/errors.js';

const extra: DatasetSpec = {
  key: 'extra',
  bureauPath: 'acs/extra',
  label: 'A dataset of this test only',
  shortLabel: 'Extra',
  description: 'Registered and removed by test/domain/datasets.test.ts.',
  periodYears: 3,
  identifierPrefix: 'EXTRA',
  vintages: [2012, 2010],
  levels: ['state'],
  populationThreshold: 20_000,
  sources: { shells: false, apiLabels: null, availabilityYears: [] },
  catalog: { title: 'Extra', estimates: 'Extra estimates' },
};

describe('dataset registry', () => {
  it('holds acs5 (the default) and acs1 by default', () => {
    expect(datasetKeys()).toEqual(['acs5', 'acs1']);
    expect(parseDataset(undefined)).toBe('acs5');
    expect(parseDataset(' ACS1 ')).toBe('acs1');
    expect(() => parseDataset('acs3')).toThrow(/Use acs5 \(ACS 5-year, the default\) or acs1 \(ACS 1-year\)/);
    expect(otherDataset('acs1')).toBe('acs5');
    expect(otherDataset('acs5')).toBe('acs1');
  });

  it('registers a dataset that then parses, checks vintages and describes periods, and removes it', () => {
    registerDataset(extra);
    try {
      expect(datasetKeys()).toEqual(['acs5', 'acs1', 'extra']);
      expect(parseDataset('extra')).toBe('extra');
      expect(checkVintage('extra', undefined)).toBe(2012);
      expect(referencePeriod('extra', 2012)).toBe('2010–2012');
      expect(() => checkVintage('extra', 2011)).toThrow(/extra: 2010–2012 except 2011/);
      expect(otherDataset('extra')).toBe('acs5');
    } finally {
      unregisterDataset('extra');
    }
    expect(datasetKeys()).toEqual(['acs5', 'acs1']);
  });

  it('refuses a key or Bureau path that is malformed or taken', () => {
    expect(() => registerDataset({ ...extra, key: 'acs1', bureauPath: 'acs/other' })).toThrow(/already registered/);
    expect(() => registerDataset({ ...extra, bureauPath: 'acs/acs5' })).toThrow(/is taken/);
    expect(() => registerDataset({ ...extra, bureauPath: 'dec/pl' })).toThrow(/acs\/<name>/);
    expect(() => registerDataset({ ...extra, key: 'Extra!' })).toThrow(/lower-case/);
    expect(() => unregisterDataset('acs5')).toThrow(/built in/);
  });

  it('says when a refused vintage is in the build but not in the registry', () => {
    const built = new Set(['acs1/2018/state', 'acs1/2025/state', 'acs1/2025/nation', 'acs7/2018/state']);
    expect(unregisteredPartitions(built)).toEqual(['acs1/2025/state', 'acs1/2025/nation', 'acs7/2018/state']);
    const err = (() => {
      try {
        checkVintage('acs1', 2025, built);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).message).toMatch(/holds acs1 2025, but the service's dataset registry does not list that vintage/);
    expect(() => checkVintage('acs1', 2020, built)).toThrow(/were not released as standard estimates/);
    expect(checkVintage('acs1', 2018, built)).toBe(2018);
  });
});
