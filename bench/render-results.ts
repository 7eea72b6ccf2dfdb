// `bun bench/render-results.ts`: bench/RESULTS.md rendered again from the recorded runs in
// bench/results/ (after a note was added there, or a file removed). Runs render it themselves.
import { RESULTS_FILE, recordedSections, writeResults } from "./lib/sections.ts";

writeResults();
console.log(`wrote ${RESULTS_FILE} from ${recordedSections().length} recorded sections`);
