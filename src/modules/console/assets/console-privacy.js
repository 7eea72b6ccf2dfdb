// The console's personal-data pages (docs/operators/personal-data.md): they call the admin API's
// privacy routes and nothing else, and write every value with textContent.
(() => {
  const words = JSON.parse(document.getElementById("privacy-words").dataset.words);
  const page = document.body.dataset.page;
  const { api, say, el, row } = window.consoleKit;
  const when = (iso) => (iso ? new Date(iso).toLocaleString(document.documentElement.lang) : "");

  /** The person of a form: { database, email } or { database, phone }. */
  const personOf = (form) => {
    const data = new FormData(form);
    const out = { database: data.get("database") };
    const email = String(data.get("email") || "").trim();
    const phone = String(data.get("phone") || "").trim();
    if (email !== "") out.email = email;
    else if (phone !== "") out.phone = phone;
    return out;
  };
  const query = (person) => new URLSearchParams(person).toString();

  function showFound(leads) {
    const section = document.getElementById("privacy-found");
    section.hidden = false;
    document.getElementById("found-count").textContent = String(leads.length);
    const body = document.querySelector("#found-table tbody");
    body.replaceChildren(...leads.map((l) => row([l.id, l.email, l.phone, l.createdBy, when(l.createdAt)])));
    document
      .getElementById("cr-lead")
      .replaceChildren(...leads.map((l) => el("option", `${l.id} · ${l.name}`, { value: l.id })));
    if (leads.length === 0) say(words.none);
  }

  function showExport(exported) {
    const section = document.getElementById("privacy-export");
    section.hidden = false;
    document.getElementById("export-at").textContent = when(new Date().toISOString());
    const holder = document.getElementById("export-leads");
    holder.replaceChildren();
    for (const { lead, sharedWith } of exported.leads) {
      const article = el("article");
      article.append(el("h3", `${words.lead} ${lead.id}`));
      const dl = el("dl");
      for (const [key, value] of Object.entries(lead)) dl.append(el("dt", key), el("dd", value === null ? "—" : value));
      dl.append(el("dt", words.createdBy), el("dd", sharedWith.createdBy ?? "—"));
      dl.append(el("dt", words.readers), el("dd", sharedWith.readers.join(", ") || "—"));
      article.append(dl, el("h4", words.deliveries));
      const list = el("ul");
      for (const d of sharedWith.deliveries)
        list.append(el("li", `${when(d.at)} · ${d.clientId} · ${d.event} · ${d.outcome}`));
      if (sharedWith.deliveries.length === 0) list.append(el("li", "—"));
      article.append(list);
      holder.append(article);
    }
    const link = document.getElementById("export-download");
    link.href = URL.createObjectURL(
      new Blob([JSON.stringify({ data: exported }, null, 2)], { type: "application/json" }),
    );
  }

  async function privacy() {
    document.getElementById("export-print").onclick = () => window.print();
    const database = document.getElementById("pv-db");
    document.getElementById("correct-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      say("");
      const data = new FormData(event.target);
      const change = {};
      for (const key of ["name", "email", "phone", "message"]) {
        const value = String(data.get(key) || "").trim();
        if (value !== "") change[key] = value;
      }
      try {
        const lead = (
          await api(
            "PATCH",
            `/leads/${encodeURIComponent(database.value)}/${encodeURIComponent(data.get("lead"))}`,
            change,
          )
        ).data;
        say(`${words.saved} ${lead.id}`);
        event.target.reset();
      } catch {
        // said in the status line already
      }
    });
    document.getElementById("privacy-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      say("");
      const person = personOf(event.target);
      const action = event.submitter?.value ?? "find";
      try {
        if (action === "find") showFound((await api("GET", `/privacy/people?${query(person)}`)).data);
        if (action === "export") showExport((await api("GET", `/privacy/export?${query(person)}`)).data);
        if (action === "anonymize") {
          if (!window.confirm(words.confirmAnonymize)) return;
          const done = (await api("POST", "/privacy/anonymize", person)).data;
          say(`${words.anonymized} ${done.anonymized}`);
          document.getElementById("privacy-found").hidden = true;
          document.getElementById("privacy-export").hidden = true;
        }
      } catch {
        // said in the status line already
      }
    });
  }

  async function requests() {
    const list = (await api("GET", "/privacy/requests")).data;
    const body = document.querySelector("#requests-table tbody");
    body.replaceChildren();
    for (const r of list) {
      const actions = el("span");
      if (r.status === "open") {
        for (const [status, label] of [
          ["completed", words.complete],
          ["refused", words.refuse],
        ]) {
          const button = el("button", label, { type: "button" });
          button.onclick = async () => {
            await api("PATCH", `/privacy/requests/${r.id}`, { status });
            await requests();
          };
          actions.append(button, " ");
        }
      }
      const state = r.overdue
        ? el("strong", `${words.statuses[r.status]} · ${words.overdue}`)
        : words.statuses[r.status];
      const who = r.email ?? r.phone ?? `${words.digest} ${r.subjectHash.slice(0, 12)}…`;
      const tr = row([
        r.id,
        words.kinds[r.kind],
        r.database,
        who,
        when(r.receivedAt),
        when(r.dueAt),
        state,
        r.handledBy,
        actions,
      ]);
      if (r.overdue) tr.className = "overdue";
      body.append(tr);
    }
  }

  async function start() {
    await window.consoleKit.me;
    if (page === "privacy") await privacy();
    if (page === "privacy-requests") {
      document.getElementById("request-form").addEventListener("submit", async (event) => {
        event.preventDefault();
        say("");
        const form = event.target;
        const body = { kind: new FormData(form).get("kind"), ...personOf(form) };
        const received = new FormData(form).get("receivedAt");
        if (received) body.receivedAt = new Date(`${received}T12:00:00Z`).toISOString();
        try {
          await api("POST", "/privacy/requests", body);
          form.reset();
          await requests();
        } catch {
          // said in the status line already
        }
      });
      await requests();
    }
  }
  start().catch(() => {});
})();
