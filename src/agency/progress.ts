// One-line progress texts for a terminal (the commands redraw them in place with \r).
import type { FeedProgress } from "../formats/source.ts";

const count = (n: number): string => n.toLocaleString("en-US");
const megabytes = (bytes: number): string => `${(bytes / 1_048_576).toFixed(0)} MB`;

export function readingLine(listings: number, bytes: FeedProgress): string {
  const share = bytes.totalBytes
    ? `, ${Math.floor((100 * bytes.bytesRead) / bytes.totalBytes)}% of ${megabytes(bytes.totalBytes)}`
    : `, ${megabytes(bytes.bytesRead)}`;
  return `reading: ${count(listings)} listings${share}`;
}

export function writingLine(done: number, total: number): string {
  return `writing: ${count(done)} of ${count(total)} listings`;
}

export function exportLine(done: number, total: number): string {
  return `exporting: ${count(done)} of ${count(total)}`;
}
