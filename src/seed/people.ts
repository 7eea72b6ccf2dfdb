// Lead vocabulary of the seed: Brazilian names, e-mail domains, how often each lead enum value occurs, messages and traffic origins.
import type { LeadPriority, LeadSource, LeadStatus } from "../catalog/enums.ts";

export const FIRST_NAMES: readonly string[] = [
  "Miguel", "Arthur", "Heitor", "Davi", "Bernardo", "Gabriel", "Pedro", "Lucas", "Matheus", "Rafael",
  "Guilherme", "Gustavo", "Felipe", "João", "José", "Carlos", "Paulo", "Luiz", "Marcos", "Antônio",
  "Francisco", "Ricardo", "Rodrigo", "Eduardo", "Fernando", "Bruno", "Diego", "Thiago", "Leonardo",
  "Vinícius", "Caio", "Daniel", "André", "Renato", "Sérgio", "Márcio", "Roberto", "Fábio", "Júlio",
  "Otávio", "Maria", "Ana", "Helena", "Alice", "Laura", "Valentina", "Sophia", "Isabela", "Manuela",
  "Júlia", "Beatriz", "Mariana", "Gabriela", "Larissa", "Camila", "Fernanda", "Patrícia", "Aline",
  "Juliana", "Letícia", "Amanda", "Bruna", "Carolina", "Luana", "Rafaela", "Vanessa", "Adriana",
  "Cláudia", "Simone", "Renata", "Tatiana", "Priscila", "Débora", "Luciana", "Sandra", "Márcia",
  "Fabiana", "Natália", "Bianca", "Lívia",
];

export const LAST_NAMES: readonly string[] = [
  "Silva", "Santos", "Oliveira", "Souza", "Rodrigues", "Ferreira", "Alves", "Pereira", "Lima", "Gomes",
  "Costa", "Ribeiro", "Martins", "Carvalho", "Almeida", "Lopes", "Soares", "Fernandes", "Vieira",
  "Barbosa", "Rocha", "Dias", "Nascimento", "Andrade", "Moreira", "Nunes", "Marques", "Machado",
  "Mendes", "Freitas", "Cardoso", "Ramos", "Gonçalves", "Santana", "Teixeira", "Araújo", "Pinto",
  "Correia", "Cavalcanti", "Monteiro", "Moura", "Batista", "Campos", "Azevedo", "Farias", "Castro",
  "Melo", "Barros", "Reis", "Cunha",
];

/** Reserved (RFC 2606) or made-up domains: seed e-mails must never reach a real mailbox. */
export const EMAIL_DOMAINS: readonly string[] = [
  "example.com", "example.com.br", "example.net", "example.org", "email.example", "correio.example",
  "caixapostal.example", "provedor.example",
];

export const LEAD_SOURCE_WEIGHTS: Readonly<Record<LeadSource, number>> = {
  WEBSITE: 14, WHATSAPP: 16, PHONE: 6, EMAIL: 4, SOCIAL_MEDIA: 3, INSTAGRAM: 7,
  FACEBOOK: 5, PORTAL: 4, PORTAL_VIVAREAL: 8, PORTAL_ZAPIMOVEIS: 9, PORTAL_OLX: 5, PORTAL_IMOVELWEB: 3,
  PORTAL_CHAVESNAMAO: 2, META_ADS: 4, GOOGLE_ADS: 4, RD_STATION: 2, REFERRAL: 3, REAL_ESTATE: 2,
  OTHER: 2, API: 2,
};

export const LEAD_STATUS_WEIGHTS: Readonly<Record<LeadStatus, number>> = {
  NEW_LEAD: 28, IN_SERVICE: 24, VISIT_SCHEDULED: 12, VISIT_COMPLETED: 10, PROPOSAL_MADE: 8, CONVERTED: 6,
  LOST: 12,
};

export const LEAD_PRIORITY_WEIGHTS: Readonly<Record<LeadPriority, number>> = {
  LOW: 20, MEDIUM: 50, HIGH: 22, URGENT: 8,
};

/** Messages about a known listing; `{title}` is the property's title. */
export const LINKED_MESSAGES: readonly string[] = [
  "Olá! Vi o anúncio \"{title}\" e gostaria de mais informações.",
  "Bom dia, o imóvel \"{title}\" ainda está disponível?",
  "Tenho interesse no imóvel \"{title}\". Podemos agendar uma visita?",
  "Boa tarde! Gostaria de saber se o valor do imóvel \"{title}\" é negociável.",
  "Olá, o imóvel \"{title}\" aceita financiamento? Tenho carta de crédito aprovada.",
  "Quero visitar o imóvel \"{title}\" neste fim de semana. Há horários disponíveis?",
  "Oi! O condomínio do anúncio \"{title}\" aceita animais de estimação?",
  "Gostaria de receber mais fotos e a planta do imóvel \"{title}\".",
];

/** Messages without a listing; `{type}`, `{neighborhood}` and `{city}` are filled in. */
export const OPEN_MESSAGES: readonly string[] = [
  "Procuro {type} em {neighborhood}, {city}. Podem me ajudar?",
  "Olá, estou buscando {type} próximo a {neighborhood}. Quais opções vocês têm?",
  "Bom dia! Quero vender meu imóvel em {neighborhood}, {city}. Vocês fazem avaliação?",
  "Gostaria de receber ofertas de {type} em {city} dentro do meu orçamento.",
  "Estou me mudando para {city} e procuro {type} para alugar. Podem entrar em contato?",
  "Tenho interesse em imóveis na planta em {neighborhood}. Aguardo retorno.",
  "Olá! Gostaria de falar com um corretor sobre {type} em {neighborhood}.",
];

/** What a lead looking for a type of property asks for, in the words of a message. */
export const WANTED_TYPES: readonly string[] = [
  "um apartamento de 2 quartos", "um apartamento de 3 quartos", "uma casa com quintal",
  "uma cobertura", "uma kitnet", "um studio mobiliado", "uma sala comercial", "um terreno",
  "uma casa em condomínio fechado", "um imóvel com 2 vagas de garagem",
];

/** Traffic origins a CRM records beside the source, keyed by the sources they fit. */
export const TRAFFIC_ORIGINS: Readonly<Partial<Record<LeadSource, readonly string[]>>> = {
  GOOGLE_ADS: ["utm_source=google&utm_medium=cpc&utm_campaign=imoveis_venda", "utm_source=google&utm_medium=cpc&utm_campaign=aluguel"],
  META_ADS: ["utm_source=facebook&utm_medium=paid_social&utm_campaign=lancamento", "utm_source=instagram&utm_medium=paid_social&utm_campaign=remarketing"],
  INSTAGRAM: ["utm_source=instagram&utm_medium=social&utm_campaign=bio"],
  FACEBOOK: ["utm_source=facebook&utm_medium=social&utm_campaign=pagina"],
  SOCIAL_MEDIA: ["utm_source=linkedin&utm_medium=social", "utm_source=tiktok&utm_medium=social"],
  RD_STATION: ["utm_source=rdstation&utm_medium=email&utm_campaign=newsletter_mensal"],
  EMAIL: ["utm_source=newsletter&utm_medium=email"],
  WEBSITE: ["organic", "direct", "utm_source=google&utm_medium=organic"],
};
