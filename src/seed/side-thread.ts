// The seed's second thread: writes the side file (side-file.ts) while the first writes the
// properties, and says how it is doing through shared memory, since the first never yields to
// an event loop until it is done. An entry point of the build, like main.ts.
import { type SideJob, SideState, writeSideFile } from "./side-file.ts";

declare const self: Worker;

self.onmessage = (event: MessageEvent<SideJob>) => {
  const { path, options, timeline } = event.data;
  const state = new SideState(event.data.state);
  state.running();
  try {
    writeSideFile(path, options, timeline, (done) => {
      state.leads = done;
    });
    state.done();
  } catch (error) {
    state.failed(error instanceof Error ? (error.stack ?? error.message) : String(error));
  }
};
