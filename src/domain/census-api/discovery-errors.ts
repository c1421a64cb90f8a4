// The answers of a discovery path that names nothing we serve, in the Bureau's convention: a
// status and a one-line plain-text body starting `error:` (what its clients match on), never a
// problem+json body — that stays on /v1.
import { datasetPath, type ServedDataset } from './discovery-served.js';

export interface DiscoveryError {
  status: 400 | 404;
  body: string;
}

/** `acs/acs1 2005–2015, 2017, 2018; acs/acs5 2017, 2022, 2023`: runs of consecutive vintages joined. */
export function servedSummary(served: ServedDataset[]): string {
  const byDataset = new Map<string, number[]>();
  for (const s of served) byDataset.set(s.dataset, [...(byDataset.get(s.dataset) ?? []), s.vintage]);
  return [...byDataset]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([d, vs]) => {
      const runs: string[] = [];
      const sorted = [...vs].sort((a, b) => a - b);
      for (let i = 0; i < sorted.length;) {
        let j = i;
        while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
        runs.push(j - i >= 2 ? `${sorted[i]}–${sorted[j]}` : sorted.slice(i, j + 1).join(', '));
        i = j + 1;
      }
      return `${datasetPath(d as ServedDataset['dataset'])} ${runs.join(', ')}`;
    })
    .join('; ');
}

export function unknownDataset(path: string, served: ServedDataset[]): DiscoveryError {
  return {
    status: 404,
    body: `error: unknown/unsupported dataset '${path}'. This service holds ${servedSummary(served)} (the list with links: /data.json)`,
  };
}

export const unknownVariable = (name: string): DiscoveryError => ({ status: 404, body: `error: unknown variable '${name}'` });

export const unknownGroup = (name: string): DiscoveryError => ({ status: 404, body: `error: unknown group '${name}'` });
