// The shapes of a run's results, shared by the runner and the report.
import type { Sample, SingleTimings } from "./measure.ts";
import type { Dataset, SeedMeasurement } from "./product.ts";
import type { FilterQuery, Scenario, Target } from "./scenarios.ts";
import type { SearchResult } from "./search-bench.ts";
import type { SearchMixResult } from "./search-mix.ts";

export interface ScenarioResult {
  scenario: Scenario;
  samples: Partial<Record<Target, Sample[]>>;
  command: string;
  /** Latency of single requests of the scenario's read query, cold and warm. */
  single?: SingleTimings;
}

export interface FilterResult {
  query: FilterQuery;
  warm: Sample[];
  single?: SingleTimings;
}

export interface DatasetResult {
  dataset: Dataset;
  scenarios: ScenarioResult[];
  filters: FilterResult[];
  /** The website's search queries (search-bench.ts); empty when `--only` leaves out "search". */
  search: SearchResult[];
  /** The drawn website searches and /health under dear ones (search-mix.ts); absent unless asked. */
  searchMix?: SearchMixResult;
  /** Largest VmRSS of the product across every round on this dataset. */
  productRssMaxKb: number;
  /** A fresh seed of this dataset, timed (absent when `--only` leaves out "seed"). */
  seed?: SeedMeasurement;
}

export interface RunSettings {
  rounds: number;
  durationS: number;
  filterDurationS: number;
  connections: number;
  coldSamples: number;
  retries: number;
  serverCore: number;
  loadCore: number;
}
