// The console's pages of what the agency sees (docs/operators/console.md#what-the-agency-sees):
// it calls the admin API and nothing else, writes every value with textContent, and draws each
// partner's charts with uPlot (served from the binary beside this script).
(() => {
  const w = JSON.parse(document.getElementById("insight-words").textContent);
  const page = document.body.dataset.page;
  const lang = document.documentElement.lang;
  const { api, say, el, row } = window.consoleKit;
  let me = null;
  const fillBody = (id, rows, columns) => {
    const body = document.querySelector(`#${id} tbody`);
    body.replaceChildren(...rows);
    if (rows.length === 0) {
      const tr = row([w.none]);
      tr.firstChild.colSpan = columns;
      body.append(tr);
    }
  };
  const dl = (node, pairs) => {
    node.replaceChildren();
    for (const [term, value] of pairs) node.append(el("dt", term), el("dd", value));
  };
  const when = (iso) => (iso ? new Date(iso).toLocaleString(lang) : "—");
  const number = (n) => (n === null || n === undefined ? "—" : Number(n).toLocaleString(lang));
  const button = (label, onclick, extra) => {
    const b = el("button", label, { type: "button", ...(extra || {}) });
    b.onclick = async () => {
      b.disabled = true;
      try {
        await onclick();
        say(w.done);
      } catch {
        // said in the status line
      } finally {
        b.disabled = false;
      }
    };
    if (me?.role === "viewer") b.disabled = true;
    return b;
  };
  const formValues = (form) => Object.fromEntries([...new FormData(form)].filter(([, v]) => v !== ""));

  // ---- usage: every partner, and one partner's days with its charts ----

  async function usage() {
    const partners = (await api("GET", "/partners")).data;
    const rows = [];
    for (const p of partners) {
      const u = (await api("GET", `/partners/${encodeURIComponent(p.id)}/usage?days=1`)).data;
      const d = u.days[0];
      rows.push(
        row([
          el("a", `${p.id} — ${p.name}`, { href: `/console/usage/${encodeURIComponent(p.id)}` }),
          number(Object.values(d.requests).reduce((a, b) => a + b, 0)),
          number(d.requests["2xx"]),
          number(d.requests["401"]),
          number(d.requests["403"]),
          number(d.requests["429"]),
          number(d.leadsCreated),
          u.lastSeen ? `${when(u.lastSeen.at)} · ${u.lastSeen.ip ?? ""} · ${u.lastSeen.route ?? ""}` : w.never,
        ]),
      );
    }
    fillBody("usage-table", rows, 8);
  }

  const OUTCOMES = [
    ["2xx", "#1b7a3a"],
    ["401", "#b35c00"],
    ["403", "#a4161a"],
    ["404", "#5a4fcf"],
    ["429", "#0b4f9c"],
    ["5xx", "#000000"],
  ];
  const charts = [];

  function chart(id, series, xs, columns) {
    const node = document.getElementById(id);
    node.replaceChildren();
    if (typeof uPlot !== "function") return;
    const opts = {
      width: Math.max(320, Math.min(node.clientWidth || 900, 1100)),
      height: 260,
      scales: { x: { time: true } },
      series: [{}, ...series.map(([label, stroke]) => ({ label, stroke, width: 2, points: { show: true } }))],
      axes: [{}, { size: 60 }],
    };
    charts.push(new uPlot(opts, [xs, ...columns], node));
  }

  async function partnerUsage(days) {
    const id = document.getElementById("usage-title").dataset.id;
    const u = (await api("GET", `/partners/${encodeURIComponent(id)}/usage?days=${days}`)).data;
    dl(
      document.getElementById("last-seen"),
      u.lastSeen
        ? [
            [w.lastSeen, when(u.lastSeen.at)],
            [w.address, u.lastSeen.ip ?? "—"],
            [w.lastSeenRoute, u.lastSeen.route ?? "—"],
          ]
        : [[w.lastSeen, w.never]],
    );
    while (charts.length > 0) charts.pop().destroy();
    const xs = u.days.map((d) => Date.parse(`${d.date}T00:00:00Z`) / 1000);
    chart(
      "requests-chart",
      OUTCOMES,
      xs,
      OUTCOMES.map(([key]) => u.days.map((d) => d.requests[key])),
    );
    chart(
      "latency-chart",
      [
        ["p50", "#0b4f9c"],
        ["p95", "#a4161a"],
      ],
      xs,
      [u.days.map((d) => d.p50Ms), u.days.map((d) => d.p95Ms)],
    );
    const rows = [...u.days].reverse().map((d) =>
      row([
        d.date,
        number(d.requests["2xx"]),
        number(d.requests["3xx"]),
        number(d.requests["401"]),
        number(d.requests["403"]),
        Object.entries(d.forbiddenByCode)
          .map(([code, n]) => `${code} ${n}`)
          .join(", "),
        number(d.requests["404"]),
        number(d.requests["429"]),
        number(d.requests["4xx"]),
        number(d.requests["5xx"]),
        number(d.p50Ms),
        number(d.p95Ms),
        number(d.leadsCreated),
      ]),
    );
    fillBody("days-table", rows, 13);
  }

  // ---- the request log ----

  let requestsPage = 1;
  let requestsQuery = "";
  async function requests() {
    const result = await api("GET", `/requests?limit=50&page=${requestsPage}${requestsQuery}`);
    fillBody(
      "requests-table",
      result.data.map((r) =>
        row([when(r.at), r.client, r.method, r.route, r.status, r.code, number(r.latencyMs), r.ip, r.requestId]),
      ),
      9,
    );
    document.getElementById("requests-total").textContent = `${number(result.meta.total)} ${w.total}`;
    document.getElementById("requests-prev").disabled = requestsPage <= 1;
    document.getElementById("requests-next").disabled = requestsPage >= result.meta.totalPages;
  }

  // ---- webhooks ----

  async function webhooks() {
    const list = (await api("GET", "/webhooks/subscriptions")).data;
    fillBody(
      "subscriptions-table",
      list.map((s) =>
        row([
          el("a", s.id, { href: `/console/webhooks/${encodeURIComponent(s.id)}` }),
          s.client,
          s.database,
          s.url,
          s.events.join(", "),
          s.enabled ? w.yes : `${w.no} — ${s.disabledReason ?? ""}`,
          number(s.deliveries.pending),
          number(s.deliveries.succeeded),
          number(s.deliveries.failed),
          button(s.enabled ? w.disable : w.enable, async () => {
            await api("PATCH", `/webhooks/subscriptions/${encodeURIComponent(s.id)}`, { enabled: !s.enabled });
            await webhooks();
          }),
        ]),
      ),
      10,
    );
  }

  async function deliveries() {
    const id = document.getElementById("deliveries-title").dataset.id;
    const result = await api("GET", `/webhooks/subscriptions/${encodeURIComponent(id)}/deliveries?limit=50`);
    const s = result.data.subscription;
    dl(document.getElementById("subscription-details"), [
      [w.subscription, s.id],
      [w.client, s.client],
      [w.url, s.url],
      [w.enabled, s.enabled ? w.yes : `${w.no} — ${s.disabledReason ?? ""}`],
    ]);
    const list = document.getElementById("deliveries-list");
    list.replaceChildren();
    if (result.data.deliveries.length === 0) list.append(el("p", w.none));
    for (const d of result.data.deliveries) {
      const section = el("section", null, { class: "delivery", "aria-label": `${w.delivery} ${d.id}` });
      section.append(el("h2", `${d.type} · ${d.id}`));
      const details = el("dl");
      dl(details, [
        [w.state, d.state],
        [w.attempts, d.attemptCount],
        [w.nextRetry, when(d.nextAttemptAt)],
      ]);
      section.append(details);
      const table = el("table");
      table.append(el("caption", `${w.attempts}: ${d.id}`, { class: "visually-hidden" }));
      const head = el("thead");
      head.append(row([w.time, w.status, w.latency, w.answer]));
      for (const cell of head.querySelectorAll("td")) {
        const header = el("th", cell.textContent, { scope: "col" });
        cell.replaceWith(header);
      }
      const body = el("tbody");
      for (const a of d.attempts)
        body.append(
          row([when(a.at), a.status ?? a.error ?? "—", number(a.latencyMs), el("code", a.answer ?? a.error ?? "")]),
        );
      table.append(head, body);
      section.append(table);
      if (d.state === "failed")
        section.append(
          button(w.sendAgain, async () => {
            await api("POST", `/webhooks/deliveries/${encodeURIComponent(d.id)}/send-again`);
            await deliveries();
          }),
        );
      list.append(section);
    }
  }

  // ---- CRM feeds ----

  function runsTable(runs) {
    const table = el("table");
    table.append(el("caption", w.runs, { class: "visually-hidden" }));
    const head = el("thead");
    const tr = el("tr");
    for (const label of [w.feed, w.started, w.duration, w.outcome, w.counts, w.rejections, w.decision])
      tr.append(el("th", label, { scope: "col" }));
    head.append(tr);
    const body = el("tbody");
    for (const r of runs) {
      const rejections = el("ul");
      for (const x of r.rejections) rejections.append(el("li", `${x.code ?? "—"}: ${x.reason}`));
      const counts = r.counts
        ? [r.counts.created, r.counts.updated, r.counts.unchanged, r.counts.unpublished, r.counts.rejected].join(" / ")
        : "—";
      let decision = r.decision ? `${r.decision.action} · ${r.decision.by} · ${when(r.decision.at)}` : "";
      if (r.outcome === "guarded" && !r.decision) {
        decision = el("span");
        decision.append(
          button(w.apply, async () => {
            await api("POST", `/feeds/runs/${r.id}/apply`);
            await feeds();
          }),
          " ",
          button(w.drop, async () => {
            await api("POST", `/feeds/runs/${r.id}/drop`);
            await feeds();
          }),
        );
      }
      body.append(
        row([
          r.feed,
          when(r.startedAt),
          number(r.durationMs),
          r.error ? `${r.outcome}: ${r.error}` : r.outcome,
          counts,
          rejections,
          decision,
        ]),
      );
    }
    table.append(head, body);
    return table;
  }

  async function feeds() {
    const list = (await api("GET", "/feeds")).data;
    fillBody(
      "feeds-table",
      list.map((f) =>
        row([
          f.id,
          f.database,
          f.url,
          f.mode,
          f.everyMinutes,
          f.lastRun ? `${f.lastRun.outcome} · ${when(f.lastRun.startedAt)}` : "—",
          button(w.runNow, async () => {
            await api("POST", `/feeds/${encodeURIComponent(f.id)}/run`);
          }),
        ]),
      ),
      7,
    );
    const runs = [];
    for (const f of list) runs.push(...(await api("GET", `/feeds/${encodeURIComponent(f.id)}/runs?limit=20`)).data);
    runs.sort((a, b) => b.startedAt.localeCompare(a.startedAt));
    document.getElementById("runs-list").replaceChildren(runs.length === 0 ? el("p", w.none) : runsTable(runs));
  }

  // ---- the portal feed, leads by origin ----

  async function portalFeed() {
    const list = (await api("GET", "/portal-feed/downloads?days=90")).data;
    fillBody(
      "downloads-table",
      list.map((d) => row([d.date, d.client, number(d.downloads), number(d.notModified), number(d.bytes)])),
      5,
    );
  }

  async function origins() {
    const list = (await api("GET", "/leads/origins?months=12")).data;
    fillBody(
      "origins-table",
      list.map((o) =>
        row([
          o.month,
          o.database,
          o.source,
          o.partner ?? "—",
          Object.entries(o.byStatus)
            .map(([s, n]) => `${s} ${n}`)
            .join(", "),
          number(o.total),
        ]),
      ),
      6,
    );
  }

  async function start() {
    me = await window.consoleKit.me;
    if (page === "usage") await usage();
    if (page === "partner-usage") {
      const form = document.getElementById("days-form");
      form.onsubmit = (event) => {
        event.preventDefault();
        void partnerUsage(Number(document.getElementById("u-days").value));
      };
      await partnerUsage(30);
    }
    if (page === "requests") {
      document.getElementById("requests-form").onsubmit = (event) => {
        event.preventDefault();
        const query = new URLSearchParams(formValues(event.target));
        requestsQuery = query.toString() === "" ? "" : `&${query}`;
        requestsPage = 1;
        void requests().catch(() => {});
      };
      document.getElementById("requests-prev").onclick = () => {
        requestsPage -= 1;
        void requests().catch(() => {});
      };
      document.getElementById("requests-next").onclick = () => {
        requestsPage += 1;
        void requests().catch(() => {});
      };
      await requests();
    }
    if (page === "webhooks") await webhooks();
    if (page === "deliveries") {
      document.getElementById("send-failed-form").onsubmit = async (event) => {
        event.preventDefault();
        const since = document.getElementById("d-since").value;
        if (!since) return;
        const id = document.getElementById("deliveries-title").dataset.id;
        try {
          const result = await api("POST", `/webhooks/subscriptions/${encodeURIComponent(id)}/send-again`, {
            since: new Date(since).toISOString(),
          });
          say(`${w.sentAgain}: ${result.data.sentAgain}`);
          await deliveries();
        } catch {
          // said in the status line
        }
      };
      await deliveries();
    }
    if (page === "feeds") await feeds();
    if (page === "portal-feed") await portalFeed();
    if (page === "origins") await origins();
  }
  start().catch(() => {});
})();
