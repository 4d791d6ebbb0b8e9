"""Sentences of the command line that only the terminal speaks, in the table's four languages.

The table's shared words (bets, refusals, amounts) are :mod:`puntobanco.i18n`'s; these are the
dealer's calculator's errors and hand checks, the ``--spot`` totals, and the game's seat prompts.
Kept apart from ``i18n`` so the command line can grow without touching the server's catalogue.

>>> say("hand.punto_draws", "it", total=3)
'Le prime due carte del Punto fanno 3: il Punto pesca da 0 a 5 (R5), gli manca una terza carta.'
>>> sorted(set(len(texts) for texts in PHRASES.values()))
[4]
"""

from __future__ import annotations

from puntobanco import i18n

PHRASES: dict[str, dict[str, str]] = {
    # ``replay --punto/--banco``: a final hand checked against R3–R6.
    "hand.count": {
        "fr": "{side} a {n} carte(s) : une main en a deux ou trois (R3, R5, R6).",
        "it": "{side} ha {n} carta/e: una mano ne ha due o tre (R3, R5, R6).",
        "es": "{side} tiene {n} carta(s): una mano tiene dos o tres (R3, R5, R6).",
        "en": "{side} has {n} card(s): a hand has two or three (R3, R5, R6)."},
    "hand.natural": {
        "fr": "{side} a un abattage de {total} (R4) : personne ne tire, aucune main n'a de "
              "troisième carte.",
        "it": "{side} ha una battuta di {total} (R4): nessuno pesca, nessuna mano ha una terza "
              "carta.",
        "es": "{side} tiene un natural de {total} (R4): nadie pide, ninguna mano tiene tercera "
              "carta.",
        "en": "{side} has a natural {total} (R4): neither side draws, so no hand has a third "
              "card."},
    "hand.punto_draws": {
        "fr": "Les deux premières cartes de Punto font {total} : Punto tire de 0 à 5 (R5), il "
              "lui manque une troisième carte.",
        "it": "Le prime due carte del Punto fanno {total}: il Punto pesca da 0 a 5 (R5), gli "
              "manca una terza carta.",
        "es": "Las dos primeras cartas de Punto suman {total}: Punto pide de 0 a 5 (R5), le "
              "falta una tercera carta.",
        "en": "Player's first two cards make {total}: Player draws on 0-5 (R5), so a third card "
              "is missing."},
    "hand.punto_stands": {
        "fr": "Les deux premières cartes de Punto font {total} : Punto reste sur 6 et 7 (R5), "
              "il ne peut pas avoir de troisième carte.",
        "it": "Le prime due carte del Punto fanno {total}: il Punto sta con 6 e 7 (R5), non può "
              "avere una terza carta.",
        "es": "Las dos primeras cartas de Punto suman {total}: Punto se planta con 6 y 7 (R5), "
              "no puede tener tercera carta.",
        "en": "Player's first two cards make {total}: Player stands on 6-7 (R5), so it cannot "
              "have a third card."},
    "hand.banco_draws": {
        "fr": "Les deux premières cartes de Banco font {total} et {punto} : Banco tire (R6), il "
              "lui manque une troisième carte.",
        "it": "Le prime due carte del Banco fanno {total} e {punto}: il Banco pesca (R6), gli "
              "manca una terza carta.",
        "es": "Las dos primeras cartas de Banco suman {total} y {punto}: Banco pide (R6), le "
              "falta una tercera carta.",
        "en": "Banker's first two cards make {total} and {punto}: Banker draws (R6), so a third "
              "card is missing."},
    "hand.banco_stands": {
        "fr": "Les deux premières cartes de Banco font {total} et {punto} : Banco reste (R6), "
              "il ne peut pas avoir de troisième carte.",
        "it": "Le prime due carte del Banco fanno {total} e {punto}: il Banco sta (R6), non può "
              "avere una terza carta.",
        "es": "Las dos primeras cartas de Banco suman {total} y {punto}: Banco se planta (R6), "
              "no puede tener tercera carta.",
        "en": "Banker's first two cards make {total} and {punto}: Banker stands (R6), so it "
              "cannot have a third card."},
    "hand.punto_stood": {"fr": "Punto est resté", "it": "il Punto è stato",
                         "es": "Punto se plantó", "en": "Player stood"},
    "hand.punto_third": {"fr": "la troisième carte de Punto vaut {value}",
                         "it": "la terza carta del Punto vale {value}",
                         "es": "la tercera carta de Punto vale {value}",
                         "en": "Player's third card is worth {value}"},
    "hand.both": {
        "fr": "Donnez les deux mains : --punto et --banco.",
        "it": "Indicate entrambe le mani: --punto e --banco.",
        "es": "Indique las dos manos: --punto y --banco.",
        "en": "Give both hands: --punto and --banco."},
    "hand.or_order": {
        "fr": "Donnez les cartes dans l'ordre du sabot ou les mains avec --punto et --banco, pas "
              "les deux.",
        "it": "Indicate le carte nell'ordine del sabot o le mani con --punto e --banco, non "
              "entrambe.",
        "es": "Indique las cartas en el orden del zapato o las manos con --punto y --banco, no "
              "ambas cosas.",
        "en": "Give the cards in dealing order or the hands with --punto and --banco, not both."},
    # ``play``'s options, said in the table's language (--lang).
    "error.seats-range": {
        "fr": "Une table a de 1 à {most} places, pas {n}.",
        "it": "Un tavolo ha da 1 a {most} posti, non {n}.",
        "es": "Una mesa tiene de 1 a {most} puestos, no {n}.",
        "en": "A table has 1 to {most} seats, not {n}."},
    "error.seats-names": {
        "fr": "--seats {seats} ne correspond pas aux {n} noms donnés avec --player.",
        "it": "--seats {seats} non corrisponde ai {n} nomi dati con --player.",
        "es": "--seats {seats} no coincide con los {n} nombres dados con --player.",
        "en": "--seats {seats} does not match the {n} --player names given."},
    "error.empty-name": {
        "fr": "Le nom d'un joueur ne peut pas être vide.",
        "it": "Il nome di un giocatore non può essere vuoto.",
        "es": "El nombre de un jugador no puede estar vacío.",
        "en": "A player's name cannot be empty."},
    "error.same-name": {
        "fr": "Chaque joueur a besoin d'un nom différent.",
        "it": "Ogni giocatore ha bisogno di un nome diverso.",
        "es": "Cada jugador necesita un nombre distinto.",
        "en": "Each player needs a different name."},
    "error.bankroll-positive": {
        "fr": "La cave doit être positive, pas {text}.",
        "it": "Il capitale deve essere positivo, non {text}.",
        "es": "El capital debe ser positivo, no {text}.",
        "en": "The bankroll must be positive, not {text}."},
    "error.bankroll-minimum": {
        "fr": "Une cave de {bankroll} ne couvre pas la plus petite mise minimale de la table "
              "({smallest}) : donnez --bankroll {euros} ou plus.",
        "it": "Un capitale di {bankroll} non copre la puntata minima più bassa del tavolo "
              "({smallest}): indicate --bankroll {euros} o più.",
        "es": "Un capital de {bankroll} no cubre la apuesta mínima más baja de la mesa "
              "({smallest}): indique --bankroll {euros} o más.",
        "en": "A bankroll of {bankroll} cannot cover the table's smallest minimum stake "
              "({smallest}); give --bankroll {euros} or more."},
    "error.coups-positive": {
        "fr": "--coups prend un nombre positif, pas {n}.",
        "it": "--coups richiede un numero positivo, non {n}.",
        "es": "--coups requiere un número positivo, no {n}.",
        "en": "--coups takes a positive number, not {n}."},
    # ``replay``'s own mistakes.
    "error.bad-card": {
        "fr": "« {text} » n'est pas une carte : une valeur puis une couleur, par ex. AS, 10h, Kd.",
        "it": "«{text}» non è una carta: un valore poi un seme, ad es. AS, 10h, Kd.",
        "es": "«{text}» no es una carta: un valor y un palo, p. ej. AS, 10h, Kd.",
        "en": "{text!r} is not a card: a rank then a suit, e.g. AS, 10h, Kd."},
    "error.no-cards": {
        "fr": "Aucune carte : donnez-les dans l'ordre du sabot, par ex. 4H 2S 9S 3D 7C 5C, ou "
              "les mains avec --punto et --banco.",
        "it": "Nessuna carta: indicatele nell'ordine del sabot, ad es. 4H 2S 9S 3D 7C 5C, o le "
              "mani con --punto e --banco.",
        "es": "Ninguna carta: indíquelas en el orden del zapato, p. ej. 4H 2S 9S 3D 7C 5C, o las "
              "manos con --punto y --banco.",
        "en": "No cards given: list them in dealing order, e.g. 4H 2S 9S 3D 7C 5C, or give the "
              "hands with --punto and --banco."},
    "error.too-many-of": {
        "fr": "{card} apparaît {n} fois, mais un sabot de 1 à 8 jeux en contient au plus 8.",
        "it": "{card} compare {n} volte, ma un sabot da 1 a 8 mazzi ne contiene al massimo 8.",
        "es": "{card} aparece {n} veces, pero un zapato de 1 a 8 barajas tiene como máximo 8.",
        "en": "{card} appears {n} times, but a shoe of 1 to 8 decks holds at most 8."},
    "error.bad-bet-option": {
        "fr": "{option} s'écrit MISE=EUROS, par ex. banco=25 ou lion-banco=10, pas « {text} ».",
        "it": "{option} si scrive PUNTATA=EURO, ad es. banco=25 o lion-banco=10, non «{text}».",
        "es": "{option} se escribe APUESTA=EUROS, p. ej. banco=25 o lion-banco=10, no «{text}».",
        "en": "{option} takes KIND=EUROS, e.g. banco=25 or lion-banco=10, not {text!r}."},
    "error.bad-spot": {
        "fr": "--spot s'écrit NOM:MISE=EUROS,MISE=EUROS, par ex. Ann:banco=25,lion-banco=10, "
              "pas « {text} ».",
        "it": "--spot si scrive NOME:PUNTATA=EURO,PUNTATA=EURO, ad es. "
              "Ann:banco=25,lion-banco=10, non «{text}».",
        "es": "--spot se escribe NOMBRE:APUESTA=EUROS,APUESTA=EUROS, p. ej. "
              "Ann:banco=25,lion-banco=10, no «{text}».",
        "en": "--spot takes NAME:KIND=EUROS,KIND=EUROS, e.g. Ann:banco=25,lion-banco=10, not "
              "{text!r}."},
    "error.spot-twice": {
        "fr": "Deux places s'appellent « {name} » : donnez à chacune un nom différent.",
        "it": "Due posti si chiamano «{name}»: date a ciascuno un nome diverso.",
        "es": "Dos puestos se llaman «{name}»: dé a cada uno un nombre distinto.",
        "en": "Two spots are called {name!r}: give each a different name."},
    "error.bet-and-spot": {
        "fr": "Donnez --bet (une place) ou --spot (des places nommées), pas les deux.",
        "it": "Indicate --bet (un posto) o --spot (posti con nome), non entrambi.",
        "es": "Indique --bet (un puesto) o --spot (puestos con nombre), no ambos.",
        "en": "Give --bet (one spot) or --spot (named spots), not both."},
    "error.duplicate-bet": {
        "fr": "La mise {bet} est donnée deux fois : donnez chaque mise une fois.",
        "it": "La puntata {bet} è indicata due volte: indicate ogni puntata una volta.",
        "es": "La apuesta {bet} aparece dos veces: indique cada apuesta una vez.",
        "en": "The {bet} bet is given twice; give each bet once."},
    "error.of-spot": {"fr": "{name} : {sentence}", "it": "{name}: {sentence}",
                      "es": "{name}: {sentence}", "en": "{name}: {sentence}"},
    # The table-rule options, refused (``replay --lang``).
    "option.bad-banco": {
        "fr": "« {value} » n'est pas un paiement de Banco : choisissez no-commission ou "
              "commission.",
        "it": "«{value}» non è un pagamento del Banco: scegliete no-commission o commission.",
        "es": "«{value}» no es un pago de Banco: elija no-commission o commission.",
        "en": "{value!r} is not a Banco payout: choose no-commission or commission."},
    "option.bad-commission": {
        "fr": "« {value} » n'est pas une commission : un nombre entre 0 et 1, par ex. 0.05 ou 5%.",
        "it": "«{value}» non è una commissione: un numero tra 0 e 1, ad es. 0.05 o 5%.",
        "es": "«{value}» no es una comisión: un número entre 0 y 1, p. ej. 0.05 o 5%.",
        "en": "{value!r} is not a commission: a number between 0 and 1, e.g. 0.05 or 5%."},
    "option.bad-drawing": {
        "fr": "« {value} » n'est pas un tableau de tirage : choisissez standard ou seed-literal.",
        "it": "«{value}» non è una tabella della terza carta: scegliete standard o seed-literal.",
        "es": "«{value}» no es una tabla de tercera carta: elija standard o seed-literal.",
        "en": "{value!r} is not a drawing table: choose standard or seed-literal."},
    "option.bad-rules-file": {
        "fr": "--rules-file {value} : il faut un fichier JSON lisible qui donne les paiements "
              "d'une table dans leurs limites (l'objet « rules » de design --format json), sans "
              "option de paiement à côté.",
        "it": "--rules-file {value}: serve un file JSON leggibile che dia i pagamenti di un "
              "tavolo entro i loro limiti (l'oggetto «rules» di design --format json), senza "
              "opzioni di pagamento accanto.",
        "es": "--rules-file {value}: hace falta un archivo JSON legible que dé los pagos de una "
              "mesa dentro de sus límites (el objeto «rules» de design --format json), sin "
              "opciones de pago al lado.",
        "en": "--rules-file {value}: give a readable JSON file with a table's pays within their "
              "ranges (the \"rules\" object of design --format json), and no pay option beside "
              "it."},
    "option.bad-tie-pays": {
        "fr": "L'Égalité paie 8:1 ou 9:1 (B3), pas {value}:1.",
        "it": "L'Egalité paga 8:1 o 9:1 (B3), non {value}:1.",
        "es": "El Empate paga 8:1 o 9:1 (B3), no {value}:1.",
        "en": "Égalité pays 8:1 or 9:1 (B3), not {value}:1."},
    "option.bad-paytable": {
        "fr": "« {value} » n'est pas un tableau de paiement du Lion Bonus : six nombres entiers "
              "pour les écarts 9 à 4, par ex. 20,8,4,4,2,1.",
        "it": "«{value}» non è una tabella dei pagamenti del Lion Bonus: sei numeri interi per "
              "gli scarti da 9 a 4, ad es. 20,8,4,4,2,1.",
        "es": "«{value}» no es una tabla de pagos del Lion Bonus: seis números enteros para las "
              "diferencias de 9 a 4, p. ej. 20,8,4,4,2,1.",
        "en": "{value!r} is not a Lion Bonus pay table: six whole numbers for the margins 9 to "
              "4, e.g. 20,8,4,4,2,1."},
    "option.bad-limit": {
        "fr": "--limit s'écrit CASE=MIN-MAX en euros, CASE parmi punto, banco, egalite, lion "
              "(par ex. egalite=5-500), le minimum positif et au plus le maximum ; pas « {value} ».",
        "it": "--limit si scrive CASELLA=MIN-MAX in euro, CASELLA tra punto, banco, egalite, lion "
              "(ad es. egalite=5-500), il minimo positivo e non oltre il massimo; non «{value}».",
        "es": "--limit se escribe CASILLA=MIN-MAX en euros, CASILLA entre punto, banco, egalite, "
              "lion (p. ej. egalite=5-500), el mínimo positivo y no mayor que el máximo; no "
              "«{value}».",
        "en": "--limit takes BOX=MIN-MAX in euros, BOX one of punto, banco, egalite, lion (e.g. "
              "egalite=5-500), the minimum positive and at most the maximum; not {value!r}."},
    "option.commission-only": {
        "fr": "--commission {value} ne s'applique qu'avec --banco commission.",
        "it": "--commission {value} si applica solo con --banco commission.",
        "es": "--commission {value} solo se aplica con --banco commission.",
        "en": "--commission {value} applies only with --banco commission."},
    "option.bad-cut-card": {
        "fr": "La carte de coupe se place de 12 à {most} cartes de la fin (S3), pas {value}.",
        "it": "La carta di taglio va da 12 a {most} carte dalla fine (S3), non {value}.",
        "es": "La carta de corte va de 12 a {most} cartas del final (S3), no {value}.",
        "en": "The cut card goes 12 to {most} cards from the end (S3), not {value}."},
    "option.limit-not-chips": {
        "fr": "Avec une plaque de {chip}, chaque limite est un nombre entier de plaques (M1) ; "
              "{kind} {limits} ne l'est pas : donnez --limit {kind}=MIN-MAX ou un autre --chip.",
        "it": "Con una fiche da {chip} ogni limite è un numero intero di fiche (M1); {kind} "
              "{limits} non lo è: date --limit {kind}=MIN-MAX o un altro --chip.",
        "es": "Con una ficha de {chip} cada límite es un número entero de fichas (M1); {kind} "
              "{limits} no lo es: indique --limit {kind}=MIN-MAX u otro --chip.",
        "en": "With a {chip} chip every limit is a whole number of chips (M1); {kind} {limits} "
              "is not: give --limit {kind}=MIN-MAX or another --chip."},
    "option.bad-chip": {
        "fr": "--chip prend la plus petite plaque en euros, un montant positif ; pas « {value} ».",
        "it": "--chip prende la fiche minima in euro, un importo positivo; non «{value}».",
        "es": "--chip toma la ficha mínima en euros, un importe positivo; no «{value}».",
        "en": "--chip takes the smallest chip in euros, a positive amount; not {value!r}."},
    # ``replay --spot``: the table's totals.
    "col.spot": {"fr": "Place", "it": "Posto", "es": "Puesto", "en": "Spot"},
    "col.payout": {"fr": "À payer", "it": "Da pagare", "es": "A pagar", "en": "Pay out"},
    "col.paid": {"fr": "Payé", "it": "Pagato", "es": "Pagado", "en": "Paid out"},
    "col.house": {"fr": "Banque", "it": "Banco del casinò", "es": "Casa", "en": "House"},
    "table_total": {"fr": "Table", "it": "Tavolo", "es": "Mesa", "en": "Table"},
    "table_line": {
        "fr": "Table : misé {staked}, payé {paid}, résultat de la banque {house}",
        "it": "Tavolo: puntato {staked}, pagato {paid}, risultato del banco {house}",
        "es": "Mesa: apostado {staked}, pagado {paid}, resultado de la casa {house}",
        "en": "Table: staked {staked}, paid out {paid}, house result {house}"},
    # ``play``: a seat leaves, the same bets again, bets returned, the bankroll.
    "play.left": {
        "fr": "{seat} quitte la table.", "it": "{seat} lascia il tavolo.",
        "es": "{seat} deja la mesa.", "en": "{seat} leaves the table."},
    "play.no_last_bets": {
        "fr": "Pas encore de mises à rejouer : tapez-les, par ex. banco 25.",
        "it": "Ancora nessuna puntata da ripetere: digitatele, ad es. banco 25.",
        "es": "Aún no hay apuestas que repetir: escríbalas, p. ej. banco 25.",
        "en": "No bets to repeat yet: type them, e.g. banco 25."},
    "play.returned": {
        "fr": "Mises rendues à {seat}, le coup n'ayant pas été joué : {bets}.",
        "it": "Puntate restituite a {seat}, il colpo non è stato giocato: {bets}.",
        "es": "Apuestas devueltas a {seat}, la mano no se jugó: {bets}.",
        "en": "Bets returned to {seat}, the coup was not played: {bets}."},
}


def say(key: str, lang: str, /, **fields: object) -> str:
    """A sentence of :data:`PHRASES` in ``lang`` (French when the language is unknown)."""
    return PHRASES[key][i18n.language(lang)].format(**fields)
