// Seed progress on stderr, only when a person is watching (stderr is a terminal); logs and pipes stay clean.

type Write = (text: string) => void;

/**
 * An `onProgress` for writeSeedDatabase that redraws one line at each whole percent, or
 * undefined when stderr is not a TTY. `write` and `isTTY` exist for tests.
 */
export function terminalProgress(
  label = "seed",
  isTTY: boolean = process.stderr.isTTY === true,
  write: Write = (text) => void process.stderr.write(text),
): ((done: number, total: number) => void) | undefined {
  if (!isTTY) return undefined;
  let shown = -1;
  return (done, total) => {
    const percent = total === 0 ? 100 : Math.floor((done * 100) / total);
    if (percent === shown) return;
    shown = percent;
    write(`\r${label}: ${percent}% (${done.toLocaleString("en-US")}/${total.toLocaleString("en-US")} records)`);
    if (done >= total) write("\n");
  };
}
