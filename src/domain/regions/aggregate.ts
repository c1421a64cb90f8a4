// The value of a count for a region: the sum of its members' published estimates, with the MOE of
// a sum, √ΣMOE² (moeSum: "Understanding and Using American Community Survey Data: What All Data
// Users Need to Know", 2020, ch. 8 "Calculating Measures of Error for Derived Estimates",
// aggregating data across geographic areas; ACS General Handbook 2018, ch. 8, the same). The
// formula treats the members as independent samples, which they are not, so the MOE is an
// approximation (docs/moe.md).
import type { Cell } from '../formula.js';
import { moeSum, type Estimate } from '../moe.js';

export interface MemberCell extends Cell {
  geo_key: string;
}

/** Why a region's value is null: the members whose own value is null, each with its reason. */
export interface MissingMembers {
  members: { geo_key: string; reason: string | null }[];
}

export interface RegionCell {
  cell: Cell;
  /** Set when the aggregate is null because members have no value. */
  missing: MissingMembers | null;
}

/**
 * Annotation of an aggregate some of whose members have no value: the members' own reason when
 * they all share it (every tract `no_data_loaded`), else `region_member_missing`.
 */
function sharedReason(reasons: (string | null)[]): string {
  const first = reasons[0] ?? null;
  return first !== null && reasons.every((r) => r === first) ? first : 'region_member_missing';
}

/**
 * Sum the members' cells of one additive estimate. A member with a null estimate makes the
 * aggregate null (a sum without it is not the region's), naming the members. A controlled
 * member (MOE published as *****) has no sampling error and counts as MOE 0, as in derived
 * variables; any other null MOE leaves the sum without an MOE.
 */
export function aggregateCount(members: readonly MemberCell[]): RegionCell {
  const nulls = members.filter((m) => m.estimate === null);
  if (nulls.length > 0) {
    const reasons = nulls.map((m) => m.estimate_annotation);
    const code = nulls.length === members.length ? sharedReason(reasons) : 'region_member_missing';
    return {
      cell: { estimate: null, moe: null, estimate_annotation: code, moe_annotation: code },
      missing: { members: nulls.map((m) => ({ geo_key: m.geo_key, reason: m.estimate_annotation })) },
    };
  }
  const estimate = members.reduce((s, m) => s + m.estimate!, 0);
  const parts: Estimate[] = [];
  const moeless: (string | null)[] = [];
  for (const m of members) {
    if (m.moe !== null && m.moe_annotation === null) parts.push({ estimate: m.estimate!, moe: m.moe });
    else if (m.moe === null && m.moe_annotation === 'controlled') parts.push({ estimate: m.estimate!, moe: 0 });
    else moeless.push(m.moe_annotation);
  }
  if (moeless.length > 0) {
    // Every member without a published MOE for the same reason (a source file without MOEs)
    // passes that reason on; mixed reasons are "derived from annotated".
    const code =
      moeless.length === members.length && moeless.every((r) => r === moeless[0]) && moeless[0] ? moeless[0] : 'derived_from_annotated';
    return { cell: { estimate, moe: null, estimate_annotation: null, moe_annotation: code }, missing: null };
  }
  if (members.every((m) => m.moe_annotation === 'controlled')) {
    return { cell: { estimate, moe: null, estimate_annotation: null, moe_annotation: 'controlled' }, missing: null };
  }
  return { cell: { estimate, moe: moeSum(parts), estimate_annotation: null, moe_annotation: null }, missing: null };
}
