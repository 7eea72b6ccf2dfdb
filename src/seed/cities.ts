// Real Brazilian cities for the seed: state, UF, DDD, a plausible CEP prefix range, real neighbourhoods and a lat/lon box inside the city.

export interface City {
  readonly name: string;
  readonly state: string;
  readonly uf: string;
  /** Area code used in phone numbers of leads from this city. */
  readonly ddd: string;
  /** First five CEP digits, both inclusive, within the city's postal range. */
  readonly cep: readonly [number, number];
  readonly lat: readonly [number, number];
  readonly lon: readonly [number, number];
  /** Typical asking price per m² of a flat, in BRL: the base that type and neighbourhood scale. */
  readonly pricePerSqm: number;
  /** Relative share of listings, roughly following market size. */
  readonly weight: number;
  /** On the sea, so "vista para o mar" and beach phrases fit. */
  readonly coastal: boolean;
  /** Real neighbourhoods, listed from the most to the least expensive (the order sets a price factor). */
  readonly neighborhoods: readonly string[];
}

export const CITIES: readonly City[] = [
  {
    name: "São Paulo", state: "São Paulo", uf: "SP", ddd: "11", cep: [1000, 5999],
    lat: [-23.66, -23.48], lon: [-46.75, -46.55], pricePerSqm: 11000, weight: 20, coastal: false,
    neighborhoods: [
      "Vila Nova Conceição", "Jardim Paulista", "Itaim Bibi", "Moema", "Pinheiros", "Higienópolis",
      "Vila Madalena", "Perdizes", "Brooklin", "Campo Belo", "Vila Mariana", "Consolação", "Aclimação",
      "Bela Vista", "Santana", "Tatuapé", "Mooca", "Saúde", "Lapa", "Ipiranga", "Butantã",
      "Vila Prudente", "Penha", "Jabaquara", "Itaquera",
    ],
  },
  {
    name: "Rio de Janeiro", state: "Rio de Janeiro", uf: "RJ", ddd: "21", cep: [20000, 23799],
    lat: [-22.98, -22.86], lon: [-43.40, -43.18], pricePerSqm: 10000, weight: 12, coastal: true,
    neighborhoods: [
      "Leblon", "Ipanema", "Lagoa", "Gávea", "Jardim Botânico", "Barra da Tijuca", "Copacabana",
      "Botafogo", "Humaitá", "Flamengo", "Laranjeiras", "Recreio dos Bandeirantes", "Tijuca", "Grajaú",
      "Vila Isabel", "Jacarepaguá", "Méier", "Centro", "Madureira", "Campo Grande",
    ],
  },
  {
    name: "Belo Horizonte", state: "Minas Gerais", uf: "MG", ddd: "31", cep: [30000, 31999],
    lat: [-19.98, -19.83], lon: [-44.02, -43.90], pricePerSqm: 9000, weight: 6, coastal: false,
    neighborhoods: [
      "Belvedere", "Lourdes", "Savassi", "Funcionários", "Sion", "Santo Agostinho", "Serra", "Anchieta",
      "Cidade Nova", "Buritis", "Gutierrez", "Prado", "Pampulha", "Castelo", "Santa Efigênia",
      "Padre Eustáquio", "Barreiro",
    ],
  },
  {
    name: "Curitiba", state: "Paraná", uf: "PR", ddd: "41", cep: [80000, 82999],
    lat: [-25.50, -25.38], lon: [-49.33, -49.21], pricePerSqm: 10000, weight: 5, coastal: false,
    neighborhoods: [
      "Batel", "Bigorrilho", "Mossunguê", "Ahú", "Juvevê", "Cabral", "Água Verde", "Alto da XV",
      "Centro Cívico", "Cristo Rei", "Rebouças", "Bacacheri", "Portão", "Santa Felicidade", "Boqueirão",
      "Cajuru",
    ],
  },
  {
    name: "Porto Alegre", state: "Rio Grande do Sul", uf: "RS", ddd: "51", cep: [90000, 91999],
    lat: [-30.12, -29.99], lon: [-51.22, -51.12], pricePerSqm: 7000, weight: 5, coastal: false,
    neighborhoods: [
      "Moinhos de Vento", "Bela Vista", "Três Figueiras", "Mont'Serrat", "Auxiliadora", "Petrópolis",
      "Rio Branco", "Menino Deus", "Bom Fim", "Cidade Baixa", "Tristeza", "Floresta", "Jardim Botânico",
      "Partenon", "Sarandi",
    ],
  },
  {
    name: "Florianópolis", state: "Santa Catarina", uf: "SC", ddd: "48", cep: [88000, 88099],
    lat: [-27.66, -27.45], lon: [-48.53, -48.42], pricePerSqm: 12000, weight: 3, coastal: true,
    neighborhoods: [
      "Jurerê Internacional", "Agronômica", "Lagoa da Conceição", "João Paulo", "Santa Mônica",
      "Córrego Grande", "Itacorubi", "Trindade", "Centro", "Campeche", "Canasvieiras",
      "Ingleses do Rio Vermelho", "Coqueiros", "Estreito",
    ],
  },
  {
    name: "Salvador", state: "Bahia", uf: "BA", ddd: "71", cep: [40000, 42499],
    lat: [-13.00, -12.90], lon: [-38.50, -38.35], pricePerSqm: 7000, weight: 4, coastal: true,
    neighborhoods: [
      "Horto Florestal", "Graça", "Vitória", "Barra", "Ondina", "Caminho das Árvores", "Itaigara",
      "Pituba", "Rio Vermelho", "Stella Maris", "Imbuí", "Costa Azul", "Itapuã", "Brotas", "Cabula",
    ],
  },
  {
    name: "Recife", state: "Pernambuco", uf: "PE", ddd: "81", cep: [50000, 52999],
    lat: [-8.13, -8.00], lon: [-34.95, -34.88], pricePerSqm: 7500, weight: 4, coastal: true,
    neighborhoods: [
      "Jaqueira", "Casa Forte", "Poço da Panela", "Graças", "Parnamirim", "Boa Viagem", "Pina", "Aflitos",
      "Espinheiro", "Madalena", "Torre", "Derby", "Imbiribeira", "Várzea",
    ],
  },
  {
    name: "Fortaleza", state: "Ceará", uf: "CE", ddd: "85", cep: [60000, 60999],
    lat: [-3.82, -3.72], lon: [-38.60, -38.47], pricePerSqm: 8000, weight: 4, coastal: true,
    neighborhoods: [
      "Meireles", "Mucuripe", "Aldeota", "Cocó", "Dionísio Torres", "Guararapes", "Varjota", "Papicu",
      "Praia de Iracema", "Fátima", "Edson Queiroz", "Benfica", "Messejana",
    ],
  },
  {
    name: "Brasília", state: "Distrito Federal", uf: "DF", ddd: "61", cep: [70000, 72799],
    lat: [-15.86, -15.72], lon: [-48.02, -47.83], pricePerSqm: 10000, weight: 5, coastal: false,
    neighborhoods: [
      "Lago Sul", "Park Way", "Lago Norte", "Noroeste", "Sudoeste", "Asa Sul", "Asa Norte", "Octogonal",
      "Cruzeiro", "Águas Claras", "Guará", "Taguatinga",
    ],
  },
  {
    name: "Goiânia", state: "Goiás", uf: "GO", ddd: "62", cep: [74000, 74899],
    lat: [-16.74, -16.62], lon: [-49.32, -49.22], pricePerSqm: 7500, weight: 3, coastal: false,
    neighborhoods: [
      "Setor Marista", "Setor Bueno", "Jardim Goiás", "Setor Oeste", "Setor Sul", "Alto da Glória",
      "Nova Suíça", "Jardim América", "Setor Pedro Ludovico", "Setor Central", "Setor Coimbra",
    ],
  },
  {
    name: "Manaus", state: "Amazonas", uf: "AM", ddd: "92", cep: [69000, 69099],
    lat: [-3.12, -3.02], lon: [-60.06, -59.96], pricePerSqm: 6500, weight: 2, coastal: false,
    neighborhoods: [
      "Ponta Negra", "Adrianópolis", "Nossa Senhora das Graças", "Parque 10 de Novembro", "Aleixo",
      "Chapada", "Dom Pedro", "Flores", "Centro", "Cidade Nova",
    ],
  },
  {
    name: "Belém", state: "Pará", uf: "PA", ddd: "91", cep: [66000, 66999],
    lat: [-1.47, -1.40], lon: [-48.49, -48.45], pricePerSqm: 6500, weight: 2, coastal: false,
    neighborhoods: [
      "Umarizal", "Nazaré", "Batista Campos", "Reduto", "Marco", "São Brás", "Cidade Velha", "Pedreira",
      "Souza", "Campina",
    ],
  },
  {
    name: "Campinas", state: "São Paulo", uf: "SP", ddd: "19", cep: [13000, 13139],
    lat: [-22.94, -22.85], lon: [-47.10, -47.02], pricePerSqm: 8500, weight: 3, coastal: false,
    neighborhoods: [
      "Cambuí", "Nova Campinas", "Taquaral", "Guanabara", "Jardim Chapadão", "Castelo", "Barão Geraldo",
      "Bosque", "Botafogo", "Centro",
    ],
  },
  {
    name: "Santos", state: "São Paulo", uf: "SP", ddd: "13", cep: [11000, 11099],
    lat: [-23.98, -23.94], lon: [-46.35, -46.30], pricePerSqm: 7500, weight: 2, coastal: true,
    neighborhoods: [
      "Ponta da Praia", "Gonzaga", "Boqueirão", "Embaré", "Aparecida", "José Menino", "Pompéia",
      "Campo Grande", "Vila Mathias", "Marapé",
    ],
  },
  {
    name: "Vitória", state: "Espírito Santo", uf: "ES", ddd: "27", cep: [29000, 29099],
    lat: [-20.31, -20.27], lon: [-40.31, -40.28], pricePerSqm: 11000, weight: 2, coastal: true,
    neighborhoods: [
      "Praia do Canto", "Enseada do Suá", "Mata da Praia", "Jardim da Penha", "Santa Lúcia",
      "Praia do Suá", "Bento Ferreira", "Jardim Camburi", "Santa Helena", "Centro",
    ],
  },
  {
    name: "Natal", state: "Rio Grande do Norte", uf: "RN", ddd: "84", cep: [59000, 59139],
    lat: [-5.88, -5.77], lon: [-35.23, -35.19], pricePerSqm: 6000, weight: 1.5, coastal: true,
    neighborhoods: [
      "Tirol", "Petrópolis", "Areia Preta", "Ponta Negra", "Capim Macio", "Lagoa Nova", "Candelária",
      "Neópolis", "Nova Descoberta", "Alecrim",
    ],
  },
  {
    name: "João Pessoa", state: "Paraíba", uf: "PB", ddd: "83", cep: [58000, 58099],
    lat: [-7.17, -7.09], lon: [-34.87, -34.83], pricePerSqm: 7000, weight: 1.5, coastal: true,
    neighborhoods: [
      "Altiplano Cabo Branco", "Cabo Branco", "Tambaú", "Manaíra", "Jardim Oceania", "Bessa", "Miramar",
      "Expedicionários", "Torre", "Bancários",
    ],
  },
  {
    name: "Maceió", state: "Alagoas", uf: "AL", ddd: "82", cep: [57000, 57099],
    lat: [-9.66, -9.60], lon: [-35.75, -35.70], pricePerSqm: 8500, weight: 1.5, coastal: true,
    neighborhoods: [
      "Ponta Verde", "Pajuçara", "Jatiúca", "Cruz das Almas", "Stella Maris", "Mangabeiras", "Jacarecica",
      "Farol", "Gruta de Lourdes", "Poço",
    ],
  },
  {
    name: "Aracaju", state: "Sergipe", uf: "SE", ddd: "79", cep: [49000, 49098],
    lat: [-10.98, -10.90], lon: [-37.08, -37.04], pricePerSqm: 6000, weight: 1, coastal: true,
    neighborhoods: [
      "Jardins", "Treze de Julho", "Atalaia", "Coroa do Meio", "Grageru", "Luzia", "Salgado Filho",
      "Inácio Barbosa", "Farolândia", "São José",
    ],
  },
  {
    name: "São Luís", state: "Maranhão", uf: "MA", ddd: "98", cep: [65000, 65109],
    lat: [-2.56, -2.49], lon: [-44.30, -44.22], pricePerSqm: 6000, weight: 1.5, coastal: true,
    neighborhoods: [
      "Ponta d'Areia", "Renascença", "Jardim Renascença", "Calhau", "Ponta do Farol", "São Francisco",
      "Olho d'Água", "Cohama", "Turu", "Centro",
    ],
  },
  {
    name: "Teresina", state: "Piauí", uf: "PI", ddd: "86", cep: [64000, 64099],
    lat: [-5.12, -5.03], lon: [-42.83, -42.76], pricePerSqm: 5500, weight: 1, coastal: false,
    neighborhoods: [
      "Jóquei", "Fátima", "Noivos", "Ininga", "São Cristóvão", "Horto", "Cabral", "Morada do Sol",
      "Piçarreira", "Centro",
    ],
  },
  {
    name: "Cuiabá", state: "Mato Grosso", uf: "MT", ddd: "65", cep: [78000, 78099],
    lat: [-15.63, -15.56], lon: [-56.11, -56.04], pricePerSqm: 7000, weight: 1, coastal: false,
    neighborhoods: [
      "Jardim Itália", "Goiabeiras", "Duque de Caxias", "Bosque da Saúde", "Quilombo",
      "Jardim das Américas", "Popular", "Santa Rosa", "Jardim Aclimação", "Araés",
    ],
  },
  {
    name: "Campo Grande", state: "Mato Grosso do Sul", uf: "MS", ddd: "67", cep: [79000, 79124],
    lat: [-20.52, -20.42], lon: [-54.66, -54.56], pricePerSqm: 6500, weight: 1, coastal: false,
    neighborhoods: [
      "Chácara Cachoeira", "Carandá Bosque", "Jardim dos Estados", "Vivendas do Bosque", "Santa Fé",
      "Itanhangá Park", "São Francisco", "Monte Castelo", "Centro", "Tiradentes",
    ],
  },
  {
    name: "Porto Velho", state: "Rondônia", uf: "RO", ddd: "69", cep: [76800, 76834],
    lat: [-8.79, -8.73], lon: [-63.91, -63.86], pricePerSqm: 5000, weight: 0.7, coastal: false,
    neighborhoods: [
      "Olaria", "Nova Porto Velho", "Embratel", "Caiari", "Centro", "Pedrinhas", "São Cristóvão",
      "Agenor de Carvalho", "Flodoaldo Pontes Pinto", "Industrial",
    ],
  },
  {
    name: "Londrina", state: "Paraná", uf: "PR", ddd: "43", cep: [86000, 86099],
    lat: [-23.34, -23.28], lon: [-51.20, -51.13], pricePerSqm: 7000, weight: 1.2, coastal: false,
    neighborhoods: [
      "Gleba Palhano", "Bela Suíça", "Jardim Higienópolis", "Centro", "Vila Ipiranga", "Jardim Quebec",
      "Aurora", "Jardim Igapó", "Jardim Shangri-lá", "Cinco Conjuntos",
    ],
  },
  {
    name: "Joinville", state: "Santa Catarina", uf: "SC", ddd: "47", cep: [89200, 89239],
    lat: [-26.33, -26.27], lon: [-48.87, -48.82], pricePerSqm: 7500, weight: 1.2, coastal: false,
    neighborhoods: [
      "Atiradores", "América", "Glória", "Saguaçu", "Centro", "Anita Garibaldi", "Bucarein",
      "Costa e Silva", "Bom Retiro", "Iririú",
    ],
  },
  {
    name: "Balneário Camboriú", state: "Santa Catarina", uf: "SC", ddd: "47", cep: [88330, 88339],
    lat: [-27.01, -26.98], lon: [-48.64, -48.62], pricePerSqm: 14000, weight: 1.2, coastal: true,
    neighborhoods: [
      "Barra Sul", "Centro", "Pioneiros", "Praia dos Amores", "Nações", "Estados", "Ariribá", "Vila Real",
      "Barra", "Municípios",
    ],
  },
  {
    name: "Ribeirão Preto", state: "São Paulo", uf: "SP", ddd: "16", cep: [14000, 14114],
    lat: [-21.22, -21.15], lon: [-47.83, -47.78], pricePerSqm: 7000, weight: 1.2, coastal: false,
    neighborhoods: [
      "Jardim Botânico", "Jardim Irajá", "Nova Aliança", "Alto da Boa Vista", "Ribeirânia",
      "Jardim Sumaré", "Jardim América", "Vila Seixas", "Jardim Paulista", "Centro",
    ],
  },
  {
    name: "Sorocaba", state: "São Paulo", uf: "SP", ddd: "15", cep: [18000, 18109],
    lat: [-23.53, -23.47], lon: [-47.49, -47.43], pricePerSqm: 6000, weight: 1, coastal: false,
    neighborhoods: [
      "Campolim", "Parque Campolim", "Jardim Vergueiro", "Vila Hortência", "Jardim Santa Rosália",
      "Mangal", "Vila Trujillo", "Centro", "Além Ponte", "Jardim Emília",
    ],
  },
  {
    name: "Niterói", state: "Rio de Janeiro", uf: "RJ", ddd: "21", cep: [24000, 24399],
    lat: [-22.92, -22.88], lon: [-43.11, -43.05], pricePerSqm: 8000, weight: 1.5, coastal: true,
    neighborhoods: [
      "Icaraí", "São Francisco", "Charitas", "Camboinhas", "Ingá", "Santa Rosa", "Boa Viagem",
      "Piratininga", "Itaipu", "Centro",
    ],
  },
  {
    name: "Uberlândia", state: "Minas Gerais", uf: "MG", ddd: "34", cep: [38400, 38415],
    lat: [-18.95, -18.89], lon: [-48.30, -48.24], pricePerSqm: 6500, weight: 1, coastal: false,
    neighborhoods: [
      "Morada da Colina", "Jardim Karaíba", "Fundinho", "Santa Mônica", "Saraiva", "Lídice", "Centro",
      "Martins", "Tibery", "Umuarama",
    ],
  },
];

/** Cities by name, for finding a linked property's DDD from its stored city. */
export const CITY_BY_NAME: ReadonlyMap<string, City> = new Map(CITIES.map((city) => [city.name, city]));
