// The console's one script (docs/operators/console.md): it calls the admin API and nothing else,
// and writes every value with textContent, so a partner's name is never markup.
(() => {
  const words = JSON.parse(document.getElementById("words").textContent);
  const page = document.body.dataset.page;
  const status = document.getElementById("status");
  let csrf = null;
  let me = null;

  const say = (text, isError) => {
    status.textContent = text;
    status.className = isError ? "error" : "";
  };

  async function api(method, path, body) {
    const headers = {};
    if (body !== undefined) headers["content-type"] = "application/json";
    if (csrf !== null && method !== "GET") headers["x-csrf-token"] = csrf;
    const response = await fetch(`/admin/v1${path}`, {
      method,
      headers,
      credentials: "same-origin",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (response.status === 401 && page !== "sign-in" && page !== "setup") {
      location.assign("/console/sign-in");
      throw new Error("signed out");
    }
    const text = await response.text();
    const json = text === "" ? null : JSON.parse(text);
    if (!response.ok) {
      const message = json?.error
        ? `${words.error}: ${json.error} (${json.code})`
        : `${words.error}: ${response.status}`;
      say(message, true);
      throw new Error(message);
    }
    return json;
  }

  const el = (tag, text, attrs) => {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, value);
    return node;
  };

  const row = (cells) => {
    const tr = document.createElement("tr");
    for (const cell of cells) {
      const td = document.createElement("td");
      if (cell instanceof Node) td.append(cell);
      else td.textContent = cell === null || cell === undefined ? "" : String(cell);
      tr.append(td);
    }
    return tr;
  };

  const fill = (dl, pairs) => {
    dl.replaceChildren();
    for (const [term, value] of pairs) {
      dl.append(el("dt", term), el("dd", value));
    }
  };

  const formData = (form) => {
    const data = {};
    for (const [name, value] of new FormData(form)) {
      if (name === "scopes") (data.scopes ||= []).push(value);
      else data[name] = value;
    }
    return data;
  };

  document.addEventListener("click", async (event) => {
    const target = event.target;
    if (!(target instanceof HTMLElement)) return;
    const copy = target.dataset.copy;
    if (copy) {
      await navigator.clipboard.writeText(document.getElementById(copy).textContent);
      say(words.copied);
    }
    if (target.id === "sign-out") {
      await api("DELETE", "/sessions/current");
      location.assign("/console/sign-in");
    }
  });

  // What the scripts of the other pages (insight.js, console-privacy.js) use of this one, which
  // runs first (deferred scripts run in the order of the page): the admin API with the session's
  // CSRF token, the status line, elements and rows written as text, and the admin signed in.
  let signedInAs;
  window.consoleKit = { api, say, el, row, me: new Promise((resolve) => (signedInAs = resolve)) };

  async function signedIn() {
    me = (await api("GET", "/me")).data;
    csrf = me.csrfToken || null;
    signedInAs(me);
    for (const item of document.querySelectorAll("[data-role=owner]")) item.hidden = me.role !== "owner";
    for (const item of document.querySelectorAll("[data-role=admin]")) item.hidden = me.role === "viewer";
    for (const select of document.querySelectorAll("[data-fill=databases]")) {
      for (const name of me.serverDatabases) select.append(el("option", name, { value: name }));
    }
  }

  const yesNo = (value) => (value ? words.yes : words.no);

  async function partners() {
    const body = document.querySelector("#partners-table tbody");
    const list = (await api("GET", "/partners")).data;
    body.replaceChildren(
      ...list.map((p) =>
        row([
          el("a", p.id, { href: `/console/partners/${encodeURIComponent(p.id)}` }),
          p.name,
          p.source === "config" ? words.fromConfig : words.fromConsole,
          p.useCase,
          p.database,
          p.rateLimitPerMinute,
          yesNo(p.enabled),
        ]),
      ),
    );
    if (list.length === 0) body.append(row([words.none]));
  }

  function showHandover(pairs) {
    const section = document.getElementById("handover");
    fill(document.getElementById("handover-list"), pairs);
    section.hidden = false;
    section.focus();
  }

  async function partner() {
    const id = document.getElementById("partner-title").dataset.id;
    const p = (await api("GET", `/partners/${encodeURIComponent(id)}`)).data;
    document.getElementById("partner-title").textContent = p.name;
    fill(document.getElementById("partner-details"), [
      ["Id", p.id],
      [words.source, p.source === "config" ? words.fromConfig : words.fromConsole],
      [words.useCase, p.useCase ?? "—"],
      [words.contactEmail, p.contactEmail ?? "—"],
      [words.database, p.database ?? "—"],
      [words.scopes, p.scopes.join(", ")],
      [words.rate, p.rateLimitPerMinute],
      [words.allowedIps, p.allowedIps.join(", ") || "—"],
      [words.enabled, yesNo(p.enabled)],
    ]);
    const actions = document.getElementById("partner-actions");
    actions.hidden = p.source !== "console" || me.role === "viewer";
    const toggle = document.getElementById("toggle-enabled");
    toggle.textContent = p.enabled ? words.disable : words.enable;
    toggle.onclick = async () => {
      await api("PATCH", `/partners/${encodeURIComponent(id)}`, { enabled: !p.enabled });
      await partner();
    };
    document.getElementById("delete-partner").onclick = async () => {
      if (!confirm(words.confirmDelete)) return;
      await api("DELETE", `/partners/${encodeURIComponent(id)}`);
      location.assign("/console/partners");
    };
  }

  async function admins() {
    const list = (await api("GET", "/admins")).data;
    document.querySelector("#admins-table tbody").replaceChildren(
      ...list.map((a) => {
        const end = el("button", words.endSessions, { type: "button" });
        end.onclick = async () => {
          await api("DELETE", `/admins/${a.id}/sessions`);
          say(words.endSessions);
        };
        return row([a.email, a.role, a.status, a.databases.join(", ") || "*", end]);
      }),
    );
  }

  async function tokens() {
    const list = (await api("GET", "/tokens")).data;
    document.querySelector("#tokens-table tbody").replaceChildren(
      ...list.map((t) => {
        const revoke = el("button", words.revoke, { type: "button" });
        revoke.disabled = t.revokedAt !== null;
        revoke.onclick = async () => {
          await api("DELETE", `/tokens/${encodeURIComponent(t.id)}`);
          await tokens();
        };
        return row([t.id, t.name, t.role, t.createdBy, t.revokedAt === null ? "✓" : t.revokedAt, revoke]);
      }),
    );
  }

  let auditPage = 1;
  let auditQuery = "";
  async function audit() {
    const result = await api("GET", `/audit?limit=50&page=${auditPage}${auditQuery}`);
    document
      .querySelector("#audit-table tbody")
      .replaceChildren(
        ...result.data.map((e) =>
          row([e.at, e.admin, e.ip, e.action, e.target, e.changes === null ? "" : JSON.stringify(e.changes)]),
        ),
      );
    document.getElementById("audit-prev").disabled = auditPage <= 1;
    document.getElementById("audit-next").disabled = auditPage >= result.meta.totalPages;
    document.getElementById("audit-export").href = `/admin/v1/audit/export?${auditQuery.slice(1)}`;
  }

  const forms = {
    "sign-in": async (data) => {
      await api("POST", "/sessions", data);
      location.assign("/console/partners");
    },
    setup: async (data, form) => {
      const result = (await api("POST", "/setup", { token: form.dataset.token, password: data.password })).data;
      document.getElementById("qr").src = `data:image/svg+xml;base64,${btoa(result.qrSvg)}`;
      document.getElementById("totp-secret").textContent = result.totpSecret;
      document.getElementById("enrol").hidden = false;
      document.getElementById("setup-code").focus();
    },
    "setup-confirm": async (data, form) => {
      await api("POST", "/setup/confirm", { token: form.dataset.token, code: data.code });
      document.getElementById("enrol").hidden = true;
      document.getElementById("setup-form").hidden = true;
      document.getElementById("setup-done").hidden = false;
    },
    "partner-new": async (data) => {
      const body = { name: data.name, contactEmail: data.contactEmail, useCase: data.useCase, database: data.database };
      const ips = (data.allowedIps || "").split(/\s+/).filter((s) => s !== "");
      if (ips.length > 0) body.allowedIps = ips;
      if (data.scopes) body.scopes = data.scopes;
      if (data.rateLimitPerMinute) body.rateLimitPerMinute = Number(data.rateLimitPerMinute);
      const made = (await api("POST", "/partners", body)).data;
      const pairs = [
        ["Id", made.partner.id],
        ["X-API-Key", made.apiKey],
        ["X-API-Secret", made.apiSecret],
      ];
      if (made.inbound)
        pairs.push(
          ["URL", made.inbound.url],
          [words.email, made.inbound.username],
          [words.password, made.inbound.password],
        );
      document.getElementById("message-pt").textContent = made.message["pt-BR"];
      document.getElementById("message-en").textContent = made.message.en;
      showHandover(pairs);
    },
    rotate: async (data) => {
      const id = document.getElementById("partner-title").dataset.id;
      const rotated = (
        await api("POST", `/partners/${encodeURIComponent(id)}/rotate-secret`, { overlap: data.overlap })
      ).data;
      const pairs = [["X-API-Secret", rotated.apiSecret]];
      if (rotated.inbound) pairs.push([words.password, rotated.inbound.password]);
      pairs.push([words.overlap, rotated.previousValidUntil ?? "—"]);
      showHandover(pairs);
    },
    invite: async (data) => {
      const made = (await api("POST", "/admins", data)).data;
      document.getElementById("invite-link").textContent = made.setupUrl;
      document.getElementById("invite-result").hidden = false;
      await admins();
    },
    token: async (data) => {
      const made = (await api("POST", "/tokens", data)).data;
      document.getElementById("token-value").textContent = made.token;
      document.getElementById("token-result").hidden = false;
      await tokens();
    },
    audit: async (data) => {
      const query = new URLSearchParams();
      for (const [name, value] of Object.entries(data)) if (value) query.set(name, value);
      auditQuery = query.toString() === "" ? "" : `&${query}`;
      auditPage = 1;
      await audit();
    },
  };

  document.addEventListener("submit", async (event) => {
    const form = event.target;
    const handler = forms[form.dataset.form];
    if (!handler) return;
    event.preventDefault();
    say("");
    try {
      await handler(formData(form), form);
    } catch {
      // said in the status line already
    }
  });

  async function start() {
    if (document.body.dataset.signedIn !== "yes") return;
    await signedIn();
    if (page === "partners") await partners();
    if (page === "partner") await partner();
    if (page === "admins") await admins();
    if (page === "tokens") await tokens();
    if (page === "audit") {
      document.getElementById("audit-prev").onclick = () => {
        auditPage -= 1;
        void audit();
      };
      document.getElementById("audit-next").onclick = () => {
        auditPage += 1;
        void audit();
      };
      await audit();
    }
  }
  start().catch(() => {});
})();
