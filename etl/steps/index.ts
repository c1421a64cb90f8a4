// Every ETL step, in the order they run (a step's dependsOn must come earlier).
// Each step module registers itself here with one import and one array entry.
import type { EtlStep } from '../step.js';
import { boundariesStep } from './boundaries.js';
import { catalogStep } from './catalog.js';
import { censusTablesStep } from './census-tables.js';
import { geographiesStep } from './geographies.js';
import { observationsStep } from './observations.js';

export const STEPS: EtlStep[] = [
  catalogStep,
  censusTablesStep,
  observationsStep,
  // Reads observations/geographies.json: the geographies the value files publish.
  geographiesStep,
  boundariesStep,
];
