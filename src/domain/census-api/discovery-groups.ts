// /data/{vintage}/acs/{ds}/groups.json in the Bureau's shape:
//   {"groups": [{name, description, variables: "<base>/data/…/groups/B19013.json", "universe ": …}]}
// The universe key carries a trailing space because the Bureau's does, and clients read it so
// (e.g. `dplyr::select("universe ")`). Groups are the tables whose values this build holds.
import { accessUrl, conceptOf, type DiscoveryMetadata, type ServedDataset } from './discovery-served.js';

export interface GroupEntry {
  name: string;
  description: string;
  variables: string;
  'universe ': string;
}

export interface GroupsDocument {
  groups: GroupEntry[];
}

export function groupsDocument(served: ServedDataset, meta: DiscoveryMetadata, base: string): GroupsDocument {
  const root = accessUrl(base, served);
  return {
    groups: served.tables
      .filter((t) => meta.columns(t).length > 0)
      .map((t) => {
        const v = meta.table(t);
        return {
          name: t,
          description: conceptOf(v?.title ?? null, t, served.vintage),
          variables: `${root}/groups/${t}.json`,
          'universe ': v?.universe ?? '',
        };
      }),
  };
}
