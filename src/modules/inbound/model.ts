// The two portal formats POST /v1/inbound/{clientId} takes, as TypeBox schemas (the OpenAPI
// document's request bodies and the types of the reading in formats.ts), with each portal's own
// published example payload. The schemas describe what portals send; formats.ts reads it far
// more leniently than they say (numbers for strings, nulls, missing keys).
import { Type as T } from "@sinclair/typebox";

/** A portal's text: a string, though some send numbers (ids, phones) and nulls. */
const loose = (description: string, examples: unknown[]) =>
  T.Union([T.String(), T.Number(), T.Null()], { description, examples });

export const GrupoZapLeadSchema = T.Object(
  {
    leadOrigin: T.Optional(
      loose(
        "Where the lead came from: `VivaReal`, `ZAP` / `Zap Imóveis`, `OLX` / `Grupo OLX` (any case and accents); sets the lead's source",
        ["Grupo OLX"],
      ),
    ),
    timestamp: T.Optional(
      loose("When the portal took the lead (kept in trafficOrigin's sense only: the lead's createdAt is its arrival)", [
        "2017-10-23T15:50:30.619Z",
      ]),
    ),
    originLeadId: T.Optional(
      loose("The portal's own id of the lead: a repeat of it for the same client is answered 200 and creates nothing", [
        "59ee0fc6e4b043e1b2a6d863",
      ]),
    ),
    originListingId: T.Optional(loose("The portal's id of the listing, written into trafficOrigin", ["87027856"])),
    clientListingId: T.Optional(
      loose("The feed's ListingID (the property code): links the lead to that published property", ["a40171"]),
    ),
    name: loose("Contact name (required)", ["Nome Consumidor"]),
    email: T.Optional(
      loose("Contact e-mail; missing or malformed: stored empty, with a warning in the log", [
        "nome.consumidor@email.com",
      ]),
    ),
    ddd: T.Optional(loose("Area code: the phone is stored as `(ddd) phone`", ["11"])),
    phone: T.Optional(loose("Phone without the area code", ["999999999"])),
    phoneNumber: T.Optional(
      loose("Deprecated by the portal: area code and phone together; read when `phone` is missing", ["11999999999"]),
    ),
    message: T.Optional(
      loose("The contact's message; missing or null: stored empty", [
        "Olá, tenho interesse neste imóvel. Aguardo o contato. Obrigado.",
      ]),
    ),
    temperature: T.Optional(
      loose(
        "`Alta`, `Média`, `Baixa` (any case and accents): the lead's priority HIGH, MEDIUM, LOW; anything else MEDIUM",
        ["Alta"],
      ),
    ),
    transaction_type: T.Optional(loose("`SELL` or `RENT`; not stored", ["SELL"])),
  },
  {
    title: "GrupoZapLead",
    additionalProperties: true,
    description:
      "A lead as Grupo ZAP (ZAP Imóveis, VivaReal, OLX) posts it. Refused (400) only without a name, or without both an e-mail and a phone; " +
      "unknown keys are ignored and over-long text is cut to the limits of POST /v1/leads",
  },
);

const ChavesNaMaoAdSchema = T.Object(
  {
    id: T.Optional(loose("The portal's id of the ad; not stored", ["98765"])),
    title: T.Optional(
      loose("The ad's title: the lead's interestedPropertyTitle when it links no property", [
        "Apartamento 3 Quartos com Suíte - Jardim Paulista",
      ]),
    ),
    reference: T.Optional(
      loose(
        "The agency's code of the property (the feed's ListingID), or null: links the lead to that published property",
        ["IMOB-2024-045"],
      ),
    ),
    realtyType: T.Optional(loose("Kind of property; not stored", ["Apartamento"])),
    purpose: T.Optional(loose("Venda, Locação…; not stored", ["Venda"])),
    url: T.Optional(
      loose("The ad's page: the lead's interestedPropertyLink", ["https://www.chavesnamao.com.br/imovel/98765"]),
    ),
    value: T.Optional(loose("The ad's price; not stored", [850000])),
  },
  { additionalProperties: true, description: "The ad the contact answered" },
);

export const ChavesNaMaoLeadSchema = T.Object(
  {
    id: T.Optional(
      loose("The portal's own id of the lead: a repeat of it for the same client is answered 200 and creates nothing", [
        "12345",
      ]),
    ),
    name: loose("Contact name (required)", ["Maria da Silva"]),
    email: T.Optional(
      loose("Contact e-mail; missing or malformed: stored empty, with a warning in the log", ["maria.silva@email.com"]),
    ),
    phone: T.Optional(loose("Contact phone, with its area code", ["11988776655"])),
    message: T.Optional(
      loose("The contact's message, or null: stored empty", [
        "Olá, tenho interesse neste imóvel. Gostaria de agendar uma visita.",
      ]),
    ),
    createdAt: T.Optional(loose("When the portal took the lead; not stored", ["2025-11-06 14:30:00"])),
    sendAt: T.Optional(loose("When the portal sent it; not stored", ["2025-11-06 14:30:05"])),
    segment: T.Optional(loose("REALTY (VEHICLE leads are not this API's)", ["REALTY"])),
    proposeTypeName: T.Optional(
      loose("How the contact reached the portal: the lead's trafficOrigin", ["Formulário WhatsApp"]),
    ),
    ad: T.Optional(T.Union([ChavesNaMaoAdSchema, T.Null()])),
    client: T.Optional(
      T.Union([
        T.Object(
          {},
          { additionalProperties: true, description: "The advertiser (name, tradeName, document); not stored" },
        ),
        T.Null(),
      ]),
    ),
  },
  {
    title: "ChavesNaMaoLead",
    additionalProperties: true,
    description:
      "A lead as Chaves na Mão posts it. Refused (400) only without a name, or without both an e-mail and a phone; " +
      "unknown keys are ignored and over-long text is cut to the limits of POST /v1/leads",
  },
);

/** Grupo ZAP's published example (developers.grupozap.com, "Integração Leads"), as it posts it. */
export const GRUPOZAP_EXAMPLE = {
  leadOrigin: "Grupo OLX",
  timestamp: "2017-10-23T15:50:30.619Z",
  originLeadId: "59ee0fc6e4b043e1b2a6d863",
  originListingId: "87027856",
  clientListingId: "a40171",
  name: "Nome Consumidor",
  email: "nome.consumidor@email.com",
  ddd: "11",
  phone: "999999999",
  phoneNumber: "11999999999",
  message: "Olá, tenho interesse neste imóvel. Aguardo o contato. Obrigado.",
  temperature: "Alta",
  transaction_type: "SELL",
} as const;

/** Chaves na Mão's published example (its lead-documentation, "Webhook - Imóveis"), as it posts it. */
export const CHAVESNAMAO_EXAMPLE = {
  id: "12345",
  name: "Maria da Silva",
  email: "maria.silva@email.com",
  phone: "11988776655",
  message: "Olá, tenho interesse neste imóvel. Gostaria de agendar uma visita.",
  createdAt: "2025-11-06 14:30:00",
  sendAt: "2025-11-06 14:30:05",
  segment: "REALTY",
  proposeTypeName: "Formulário WhatsApp",
  ad: {
    id: "98765",
    title: "Apartamento 3 Quartos com Suíte - Jardim Paulista",
    reference: "IMOB-2024-045",
    realtyType: "Apartamento",
    purpose: "Venda",
  },
  client: {
    name: "Imóveis Premium Ltda",
    tradeName: "Premium Imóveis",
    document: "98.765.432/0001-10",
  },
} as const;
