import { describe, expect, it } from 'vitest';
import { provenanceOf } from '../../etl/provenance.js';

describe('provenanceOf', () => {
  it('names the Census Data API request an API body answers', () => {
    expect(provenanceOf('api/2017/acs/acs5/metro/B19013.json.gz')).toBe(
      'https://api.census.gov/data/2017/acs/acs5?get=group(B19013)&for=metropolitan%20statistical%20area/micropolitan%20statistical%20area:*',
    );
  });

  it('names the metadata document a cached label file is (etl/sources/api-metadata.ts)', () => {
    expect(provenanceOf('api/2023/acs/acs5/groups/B19013.json.gz')).toBe('https://api.census.gov/data/2023/acs/acs5/groups/B19013.json');
    expect(provenanceOf('api/2009/acs/acs5/variables.json.gz')).toBe('https://api.census.gov/data/2009/acs/acs5/variables.json');
  });

  it("takes reference files from the online mode's list, downloadable or not", () => {
    expect(provenanceOf('geo/state.txt')).toBe('https://www2.census.gov/geo/docs/reference/state.txt');
    expect(provenanceOf('geo/cenpop/2020/tract.csv.gz')).toBe(
      'https://www2.census.gov/geo/docs/reference/cenpop2020/tract/CenPop2020_Mean_TR.txt',
    );
    expect(provenanceOf('geo/cd118/tract2020_to_cd118.csv.gz')).toMatch(/^not published on census\.gov: /);
  });
});
