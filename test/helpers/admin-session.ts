// An owner on a running binary: `admin new`, set-up with a TOTP code, sign-in; its session's
// headers and an admin API token (docs/operators/console.md).
import { totpCode } from "../../src/modules/admin/totp.ts";
import { previousPeriodCode } from "./totp.ts";

export const OWNER_PASSWORD = "a long pass phrase for the console 7";

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

export async function ownerOnBinary(
  binary: string,
  dir: string,
  config: string,
  url: string,
  email = "owner@agency.example",
): Promise<{ cookie: string; headers: Record<string, string>; token: string; totpSecret: string }> {
  const made = Bun.spawnSync([binary, "admin", "new", "--config", config, "--email", email, "--role", "owner"], {
    cwd: dir,
  });
  if (made.exitCode !== 0) throw new Error(made.stderr.toString());
  const token = made.stdout.toString().match(/http\S+\/console\/setup\/(\S+)/)![1]!;
  const setup = await post(`${url}/admin/v1/setup`, { token, password: OWNER_PASSWORD });
  const { totpSecret } = ((await setup.json()) as { data: { totpSecret: string } }).data;
  const confirm = await post(`${url}/admin/v1/setup/confirm`, {
    token,
    code: await previousPeriodCode(totpSecret),
  });
  if (confirm.status !== 200) throw new Error(`confirm: ${confirm.status}`);
  const signIn = await post(`${url}/admin/v1/sessions`, {
    email,
    password: OWNER_PASSWORD,
    code: await totpCode(totpSecret, Date.now()),
  });
  if (signIn.status !== 201) throw new Error(`sign-in: ${signIn.status}`);
  const cookie = signIn.headers.get("set-cookie")!.split(";")[0]!;
  const { csrfToken } = ((await signIn.json()) as { data: { csrfToken: string } }).data;
  const headers = { cookie, "x-csrf-token": csrfToken };
  const made2 = await post(`${url}/admin/v1/tokens`, { name: "tests", role: "owner" }, headers);
  const apiToken = ((await made2.json()) as { data: { token: string } }).data.token;
  return { cookie, headers, token: apiToken, totpSecret };
}
