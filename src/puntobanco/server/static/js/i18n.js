// Words. The table's words and bet names come from the server (GET /api/words, built from
// puntobanco.i18n, so the page says exactly what the SPEC says); the few words that only the page
// needs (forms, road names, the fairness check) live here, in the same four languages.

export const LANGUAGES = ["fr", "it", "es", "en"];
export const DEFAULT_LANGUAGE = "fr";

const PAGE_WORDS = {
  fr: {
    "ui.title": "Punto Banco 2000", "ui.login": "Connexion", "ui.signup": "Créer un compte",
    "ui.username": "Pseudo", "ui.password": "Mot de passe", "ui.logout": "Déconnexion",
    "ui.no_account": "Pas encore de compte ?", "ui.have_account": "Déjà un compte ?",
    "ui.welcome": "1 000 € de jetons offerts à l'inscription.",
    "ui.table": "Table", "ui.chips": "Jetons", "ui.clear": "Retirer", "ui.your_bet": "Votre mise",
    "ui.table_total": "Table", "ui.closes_in": "Fin des mises dans", "ui.dealing": "Distribution",
    "ui.waiting": "En attente de la prochaine donne", "ui.reconnecting": "Connexion perdue, reconnexion…",
    "ui.bead_plate": "Perles", "ui.big_road": "Grande route", "ui.big_eye_boy": "Grand œil",
    "ui.small_road": "Petite route", "ui.cockroach_pig": "Cafard", "ui.roads": "Tableaux",
    "ui.recall": "Vos derniers coups", "ui.no_coups": "Aucun coup joué pour l'instant.",
    "ui.commitment": "Engagement du sabot", "ui.check": "Vérification", "ui.verified": "vérifié",
    "ui.mismatch": "NE CORRESPOND PAS", "ui.after_shoe": "vérifiable à la fin du sabot",
    "ui.previous_shoe": "Sabot précédent", "ui.net": "Net", "ui.no_bets": "Pas de mise sur ce coup.",
    "ui.ask": "Si", "ui.select_chip": "Choisissez un jeton puis touchez une case.",
    "ui.idle": "Table au repos", "ui.of": "sur",
  },
  it: {
    "ui.title": "Punto Banco 2000", "ui.login": "Accedi", "ui.signup": "Registrati",
    "ui.username": "Nome utente", "ui.password": "Password", "ui.logout": "Esci",
    "ui.no_account": "Non hai un account?", "ui.have_account": "Hai già un account?",
    "ui.welcome": "1.000 € di fiches in regalo all'iscrizione.",
    "ui.table": "Tavolo", "ui.chips": "Fiches", "ui.clear": "Ritira", "ui.your_bet": "La tua puntata",
    "ui.table_total": "Tavolo", "ui.closes_in": "Puntate chiuse tra", "ui.dealing": "Distribuzione",
    "ui.waiting": "In attesa del prossimo colpo", "ui.reconnecting": "Connessione persa, riconnessione…",
    "ui.bead_plate": "Perline", "ui.big_road": "Strada grande", "ui.big_eye_boy": "Occhio grande",
    "ui.small_road": "Strada piccola", "ui.cockroach_pig": "Scarafaggio", "ui.roads": "Tabelloni",
    "ui.recall": "I tuoi ultimi colpi", "ui.no_coups": "Ancora nessun colpo giocato.",
    "ui.commitment": "Impegno del sabot", "ui.check": "Verifica", "ui.verified": "verificato",
    "ui.mismatch": "NON CORRISPONDE", "ui.after_shoe": "verificabile a fine sabot",
    "ui.previous_shoe": "Sabot precedente", "ui.net": "Netto", "ui.no_bets": "Nessuna puntata su questo colpo.",
    "ui.ask": "Se", "ui.select_chip": "Scegli una fiche e tocca una casella.",
    "ui.idle": "Tavolo fermo", "ui.of": "su",
  },
  es: {
    "ui.title": "Punto Banco 2000", "ui.login": "Entrar", "ui.signup": "Crear cuenta",
    "ui.username": "Usuario", "ui.password": "Contraseña", "ui.logout": "Salir",
    "ui.no_account": "¿No tiene cuenta?", "ui.have_account": "¿Ya tiene cuenta?",
    "ui.welcome": "1.000 € en fichas de regalo al registrarse.",
    "ui.table": "Mesa", "ui.chips": "Fichas", "ui.clear": "Retirar", "ui.your_bet": "Su apuesta",
    "ui.table_total": "Mesa", "ui.closes_in": "Cierre de apuestas en", "ui.dealing": "Reparto",
    "ui.waiting": "Esperando la próxima mano", "ui.reconnecting": "Conexión perdida, reconectando…",
    "ui.bead_plate": "Cuentas", "ui.big_road": "Camino grande", "ui.big_eye_boy": "Ojo grande",
    "ui.small_road": "Camino pequeño", "ui.cockroach_pig": "Cucaracha", "ui.roads": "Marcadores",
    "ui.recall": "Sus últimas manos", "ui.no_coups": "Todavía no ha jugado ninguna mano.",
    "ui.commitment": "Compromiso del zapato", "ui.check": "Verificación", "ui.verified": "verificado",
    "ui.mismatch": "NO COINCIDE", "ui.after_shoe": "verificable al final del zapato",
    "ui.previous_shoe": "Zapato anterior", "ui.net": "Neto", "ui.no_bets": "Sin apuesta en esta mano.",
    "ui.ask": "Si", "ui.select_chip": "Elija una ficha y toque una casilla.",
    "ui.idle": "Mesa en pausa", "ui.of": "de",
  },
  en: {
    "ui.title": "Punto Banco 2000", "ui.login": "Log in", "ui.signup": "Sign up",
    "ui.username": "Username", "ui.password": "Password", "ui.logout": "Log out",
    "ui.no_account": "No account yet?", "ui.have_account": "Already have an account?",
    "ui.welcome": "€1,000 of play chips when you sign up.",
    "ui.table": "Table", "ui.chips": "Chips", "ui.clear": "Clear", "ui.your_bet": "Your bet",
    "ui.table_total": "Table", "ui.closes_in": "Bets close in", "ui.dealing": "Dealing",
    "ui.waiting": "Waiting for the next coup", "ui.reconnecting": "Connection lost, reconnecting…",
    "ui.bead_plate": "Bead plate", "ui.big_road": "Big road", "ui.big_eye_boy": "Big eye boy",
    "ui.small_road": "Small road", "ui.cockroach_pig": "Cockroach pig", "ui.roads": "Scoreboards",
    "ui.recall": "Your recent coups", "ui.no_coups": "No coups played yet.",
    "ui.commitment": "Shoe commitment", "ui.check": "Check", "ui.verified": "verified",
    "ui.mismatch": "DOES NOT MATCH", "ui.after_shoe": "checkable when the shoe ends",
    "ui.previous_shoe": "Previous shoe", "ui.net": "Net", "ui.no_bets": "No bet on this coup.",
    "ui.ask": "If", "ui.select_chip": "Pick a chip, then tap a box.",
    "ui.idle": "Table idle", "ui.of": "of",
  },
};

// Lion Bonus outcome details (settlement line `detail`), shown next to the pay.
const DETAILS = {
  fr: { "natural-win": "abattage", "natural-tie": "égalité d'abattages", "win-with-6": "gagne à 6",
    "lost": "", "egalite": "égalité", "win": "", "lose": "", "win-by": "gagne de {n}" },
  it: { "natural-win": "battuta", "natural-tie": "pareggio di battute", "win-with-6": "vince con 6",
    "lost": "", "egalite": "pareggio", "win": "", "lose": "", "win-by": "vince di {n}" },
  es: { "natural-win": "natural", "natural-tie": "empate de naturales", "win-with-6": "gana con 6",
    "lost": "", "egalite": "empate", "win": "", "lose": "", "win-by": "gana por {n}" },
  en: { "natural-win": "natural", "natural-tie": "natural tie", "win-with-6": "wins with 6",
    "lost": "", "egalite": "tie", "win": "", "lose": "", "win-by": "wins by {n}" },
};

let serverWords = {};
let current = DEFAULT_LANGUAGE;
const listeners = new Set();

/** The words from GET /api/words: {lang: {key: word}}. */
export function setServerWords(words) {
  serverWords = words || {};
}

export function lang() {
  return current;
}

export function pickLanguage(candidate) {
  return LANGUAGES.includes(candidate) ? candidate : DEFAULT_LANGUAGE;
}

/** The language a visitor probably reads, before they log in. */
export function guessLanguage() {
  const stored = localStorage.getItem("pb.lang");
  if (LANGUAGES.includes(stored)) return stored;
  for (const tag of navigator.languages || []) {
    const base = tag.slice(0, 2).toLowerCase();
    if (LANGUAGES.includes(base)) return base;
  }
  return DEFAULT_LANGUAGE;
}

export function setLang(code) {
  current = pickLanguage(code);
  localStorage.setItem("pb.lang", current);
  document.documentElement.lang = current;
  for (const fn of listeners) fn(current);
}

export function onLangChange(fn) {
  listeners.add(fn);
}

/** A word: the server's vocabulary first, then the page's; the key itself if neither has it. */
export function t(key, language = current) {
  const server = serverWords[language];
  if (server && key in server) return server[key];
  const page = PAGE_WORDS[language];
  if (page && key in page) return page[key];
  return key;
}

/** A bet's name in the current language (fr Punto/Banco/Égalité … en Player/Banker/Tie). */
export function betName(bet, language = current) {
  return t(`bet.${bet}`, language);
}

/** A side's name: the Punto/Banco bet names, Égalité's for a tie. */
export function sideName(side, language = current) {
  return betName(side, language);
}

/** A settlement line's detail in words ("gagne de 6", "abattage" …). */
export function detailText(detail, language = current) {
  const table = DETAILS[language] || DETAILS.en;
  const margin = /^win-by-(\d)$/.exec(detail || "");
  if (margin) return table["win-by"].replace("{n}", margin[1]);
  return table[detail] ?? "";
}

/** Fill every [data-w] element's text with its word, and [data-w-placeholder] placeholders. */
export function translatePage(root = document) {
  for (const el of root.querySelectorAll("[data-w]")) el.textContent = t(el.dataset.w);
  for (const el of root.querySelectorAll("[data-w-placeholder]")) {
    el.placeholder = t(el.dataset.wPlaceholder);
  }
  for (const el of root.querySelectorAll("[data-bet-name]")) el.textContent = betName(el.dataset.betName);
}
