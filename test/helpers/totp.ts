// A console owner's code of the period before the current one, as tests send it to a running
// server: the server accepts one period of drift either way, so the code must reach it before
// the current period ends. Sent in a period's last seconds, it would arrive two periods late and
// be refused (seen as a rare 400 at set-up on a loaded machine): this waits those seconds out.
import { totpCode } from "../../src/modules/admin/totp.ts";

const PERIOD_MS = 30_000;
/** More than a set-up takes to reach the server, a browser's typing included. */
const MARGIN_MS = 5_000;

export async function previousPeriodCode(secret: string): Promise<string> {
  const intoPeriod = Date.now() % PERIOD_MS;
  if (intoPeriod > PERIOD_MS - MARGIN_MS) await Bun.sleep(PERIOD_MS - intoPeriod + 50);
  return totpCode(secret, Date.now() - PERIOD_MS);
}
