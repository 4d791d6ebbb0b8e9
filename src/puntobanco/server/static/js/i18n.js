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
    "ui.undo": "Annuler", "ui.clear_all": "Tout retirer", "ui.repeat": "Répéter", "ui.double": "Doubler",
    "ui.staked": "Misé", "ui.offline": "Serveur injoignable : rien n'a été envoyé. Reconnexion en cours…",
    "ui.card_corrected": "Carte corrigée : {was} → {card}", "ui.round_voided": "Coup annulé par le croupier.",
    "ui.offline_short": "Hors ligne", "ui.maximum": "maximum {amount}", "ui.asked": "mise {amount}",
    "ui.capped": "{placed} placés au lieu de {chip} : {box} accepte au plus {max}.",
    "ui.at_maximum": "{box} est à son maximum ({max}).",
    "ui.db_paused": "La table est en pause : {why}. Les mises reprendront d'elles-mêmes.",
    "ui.db_unavailable": "la base de données est injoignable", "ui.db_full": "le disque de la base de données est plein",
    "ui.wrong_role": "Cette table est celle des joueurs : connectez-vous avec un compte de joueur.",
    "ui.lost": "Connexion perdue, reconnexion dans {s} s…", "ui.reconnected": "Reconnecté",
    "ui.voided": "Coup annulé : {amount} rendus sur votre solde.", "ui.credited": "{amount} crédités sur votre solde.",
    "ui.minimum": "minimum {amount}", "ui.you_win": "Gagné", "ui.you_lose": "Perdu", "ui.even": "Mise rendue",
    "ui.sound": "Son", "ui.watch": "Regarder sans compte", "ui.spectator": "Vous regardez : créez un compte pour jouer.",
    "ui.stats": "Statistiques du sabot", "ui.naturals": "Abattages", "ui.streak": "Plus longue série",
    "ui.current": "Série en cours", "ui.in_play": "en jeu", "ui.void": "annulé", "ui.returned": "rendu",
    "ui.bets_on": "Vos mises sur ce coup", "ui.awaiting": "en attente du résultat",
    "ui.ask_help": "Touchez pour voir la marque suivante sur chaque tableau", "ui.chip": "Jeton",
    "ui.languages": "Langue", "ui.nothing_to_repeat": "Aucune mise du coup précédent à répéter.",
    "lion.side_lost": "{side} perd", "lion.tie": "égalité",
    "lion.small": "{side} gagne de {n} : il faut un abattage ou 4 points d'écart",
    "lion.no_draw": "{side} gagne de {n} sans tirer : il faut un abattage ou une troisième carte",
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
    "ui.undo": "Annulla", "ui.clear_all": "Ritira tutto", "ui.repeat": "Ripeti", "ui.double": "Raddoppia",
    "ui.staked": "Puntato", "ui.offline": "Server irraggiungibile: non è stato inviato nulla. Riconnessione…",
    "ui.card_corrected": "Carta corretta: {was} → {card}", "ui.round_voided": "Colpo annullato dal croupier.",
    "ui.offline_short": "Non in linea", "ui.maximum": "massimo {amount}", "ui.asked": "puntata {amount}",
    "ui.capped": "Puntati {placed} invece di {chip}: {box} accetta al massimo {max}.",
    "ui.at_maximum": "{box} è al massimo ({max}).",
    "ui.db_paused": "Il tavolo è in pausa: {why}. Le puntate riprenderanno da sole.",
    "ui.db_unavailable": "il database non è raggiungibile", "ui.db_full": "il disco del database è pieno",
    "ui.wrong_role": "Questo tavolo è dei giocatori: accedete con un account da giocatore.",
    "ui.lost": "Connessione persa, riconnessione tra {s} s…", "ui.reconnected": "Riconnesso",
    "ui.voided": "Colpo annullato: {amount} restituiti sul saldo.", "ui.credited": "{amount} accreditati sul saldo.",
    "ui.minimum": "minimo {amount}", "ui.you_win": "Vinto", "ui.you_lose": "Perso", "ui.even": "Puntata restituita",
    "ui.sound": "Audio", "ui.watch": "Guarda senza account", "ui.spectator": "Stai guardando: registrati per giocare.",
    "ui.stats": "Statistiche del sabot", "ui.naturals": "Battute", "ui.streak": "Serie più lunga",
    "ui.current": "Serie in corso", "ui.in_play": "in gioco", "ui.void": "annullato", "ui.returned": "restituito",
    "ui.bets_on": "Le tue puntate su questo colpo", "ui.awaiting": "in attesa del risultato",
    "ui.ask_help": "Tocca per vedere il segno seguente su ogni tabellone", "ui.chip": "Fiche",
    "ui.languages": "Lingua", "ui.nothing_to_repeat": "Nessuna puntata del colpo precedente da ripetere.",
    "lion.side_lost": "{side} perde", "lion.tie": "pareggio",
    "lion.small": "{side} vince di {n}: serve una battuta o 4 punti di scarto",
    "lion.no_draw": "{side} vince di {n} senza carta: serve una battuta o una terza carta",
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
    "ui.undo": "Deshacer", "ui.clear_all": "Retirar todo", "ui.repeat": "Repetir", "ui.double": "Doblar",
    "ui.staked": "Apostado", "ui.offline": "Servidor inaccesible: no se envió nada. Reconectando…",
    "ui.card_corrected": "Carta corregida: {was} → {card}", "ui.round_voided": "Mano anulada por el crupier.",
    "ui.offline_short": "Sin conexión", "ui.maximum": "máximo {amount}", "ui.asked": "apuesta {amount}",
    "ui.capped": "Apostados {placed} en lugar de {chip}: {box} admite como máximo {max}.",
    "ui.at_maximum": "{box} está en su máximo ({max}).",
    "ui.db_paused": "La mesa está en pausa: {why}. Las apuestas se reanudarán solas.",
    "ui.db_unavailable": "la base de datos no responde", "ui.db_full": "el disco de la base de datos está lleno",
    "ui.wrong_role": "Esta mesa es la de los jugadores: inicie sesión con una cuenta de jugador.",
    "ui.lost": "Conexión perdida, reconexión en {s} s…", "ui.reconnected": "Reconectado",
    "ui.voided": "Mano anulada: {amount} devueltos a su saldo.", "ui.credited": "{amount} abonados a su saldo.",
    "ui.minimum": "mínimo {amount}", "ui.you_win": "Gana", "ui.you_lose": "Pierde", "ui.even": "Apuesta devuelta",
    "ui.sound": "Sonido", "ui.watch": "Mirar sin cuenta", "ui.spectator": "Está mirando: cree una cuenta para jugar.",
    "ui.stats": "Estadísticas del zapato", "ui.naturals": "Naturales", "ui.streak": "Racha más larga",
    "ui.current": "Racha actual", "ui.in_play": "en juego", "ui.void": "anulada", "ui.returned": "devuelto",
    "ui.bets_on": "Sus apuestas en esta mano", "ui.awaiting": "esperando el resultado",
    "ui.ask_help": "Toque para ver la marca siguiente en cada marcador", "ui.chip": "Ficha",
    "ui.languages": "Idioma", "ui.nothing_to_repeat": "No hay apuestas de la mano anterior que repetir.",
    "lion.side_lost": "{side} pierde", "lion.tie": "empate",
    "lion.small": "{side} gana por {n}: hace falta un natural o 4 puntos de diferencia",
    "lion.no_draw": "{side} gana por {n} sin robar: hace falta un natural o una tercera carta",
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
    "ui.undo": "Undo", "ui.clear_all": "Clear all", "ui.repeat": "Repeat", "ui.double": "Double",
    "ui.staked": "Staked", "ui.offline": "The server cannot be reached: nothing was sent. Reconnecting…",
    "ui.card_corrected": "Card corrected: {was} → {card}", "ui.round_voided": "Round voided by the dealer.",
    "ui.offline_short": "Offline", "ui.maximum": "maximum {amount}", "ui.asked": "stake {amount}",
    "ui.capped": "Placed {placed}, not {chip}: {box} takes at most {max}.",
    "ui.at_maximum": "{box} is at its maximum ({max}).",
    "ui.db_paused": "The table has paused: {why}. Betting will resume by itself.",
    "ui.db_unavailable": "the database cannot be reached", "ui.db_full": "the database's disk is full",
    "ui.wrong_role": "This table is the players': sign in with a player account.",
    "ui.lost": "Connection lost, reconnecting in {s} s…", "ui.reconnected": "Reconnected",
    "ui.voided": "Round voided: {amount} returned to your balance.", "ui.credited": "{amount} credited to your balance.",
    "ui.minimum": "minimum {amount}", "ui.you_win": "You win", "ui.you_lose": "You lose", "ui.even": "Stake returned",
    "ui.sound": "Sound", "ui.watch": "Watch without an account", "ui.spectator": "Watching: sign up to play.",
    "ui.stats": "Shoe statistics", "ui.naturals": "Naturals", "ui.streak": "Longest streak",
    "ui.current": "Current streak", "ui.in_play": "in play", "ui.void": "void", "ui.returned": "returned",
    "ui.bets_on": "Your bets this coup", "ui.awaiting": "awaiting the result",
    "ui.ask_help": "Tap to see the next mark on every road", "ui.chip": "Chip",
    "ui.languages": "Language", "ui.nothing_to_repeat": "No bets from the last coup to repeat.",
    "lion.side_lost": "{side} lost", "lion.tie": "tie",
    "lion.small": "{side} won by {n}: needs a natural or 4+",
    "lion.no_draw": "{side} won by {n} without a draw: needs a natural or a third card",
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
  // a Banco win paid other than 1:1: the 6 (B2), or a designed table's other totals
  const total = /^win-with-(\d)$/.exec(detail || "");
  if (total) return table["win-with-6"].replace("6", total[1]);
  return table[detail] ?? "";
}

/** A word with its {placeholders} filled: tf("ui.voided", {amount: "50 €"}). */
export function tf(key, values, language = current) {
  return t(key, language).replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

/** Fill every [data-w] element's text with its word, and [data-w-placeholder] placeholders. */
export function translatePage(root = document) {
  for (const el of root.querySelectorAll("[data-w]")) el.textContent = t(el.dataset.w);
  for (const el of root.querySelectorAll("[data-w-label]")) el.setAttribute("aria-label", t(el.dataset.wLabel));
  for (const el of root.querySelectorAll("[data-w-placeholder]")) {
    el.placeholder = t(el.dataset.wPlaceholder);
  }
  for (const el of root.querySelectorAll("[data-bet-name]")) el.textContent = betName(el.dataset.betName);
}
