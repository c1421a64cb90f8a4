// Public API of the ETL's online mode (wired into `etl build --online` by etl/cli.ts).
export { fetchSourceTree, fetchGroupList, planFromGroupsJson, buildMirrorPlan, DEFAULT_API_BASE, DEFAULT_FILES_BASE } from './fetch.js';
export type { FetchOptions, FetchResult, FetchFailure } from './fetch.js';
export { FatalFetchError } from './api.js';
export { FetchError } from './http.js';
export { fillFromFallback } from './fallback.js';
export { planFromGroups, mirrorPlan, fetchableReferencePaths, apiCachePath, MIRROR_ACS1_VINTAGES, METRO_2017_VARIABLES } from './plan.js';
export type { FetchPlan, ApiItem, Dataset, Level } from './plan.js';
export { REFERENCE_FILES } from './reference.js';
export type { ReferenceFile } from './reference.js';
export { prepareOnlineSource, IncompleteDownloadError, DEFAULT_FALLBACK_SOURCE } from './prepare.js';
export { parseSelection, planSelection, estimatePlan, describePlan, parseVintages, SelectionError, STATE_CODES } from './selection.js';
export type { Selection, SelectionFlags, PlanEstimate } from './selection.js';
export { shapePaths, cbReference, GENZ_FOR_DEFINITIONS, CB_DIR } from './shapes.js';
export { planLabels, planLabelSources, describeShells, fallbackDescribes, labelCachePath, shellsCachePath } from './labels.js';
export type { LabelItem, ShellsItem } from './labels.js';
