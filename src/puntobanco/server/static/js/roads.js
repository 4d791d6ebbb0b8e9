// The scoreboards ("roads") of a shoe, derived from its ordered results. Pure: no DOM access.
//
// Input: the results of the current shoe in order, each either a winner string
// ("punto" | "banco" | "egalite") or an object with a `winner` field (the `roads` entries of the
// table snapshot). Output: plain cells {col, row, ...} on grids of `rows` rows (6 by default).
//
// - Bead plate: one cell per coup, filled column by column, top to bottom.
// - Big road: one column per streak of Punto or Banco wins; an Égalité is not a cell, it is
//   counted on the cell before it (ties before the first win wait on an empty first cell).
//   A streak longer than the free rows below turns right along its last row ("dragon tail").
// - Derived roads (big eye boy k=1, small road k=2, cockroach pig k=3) read the big road's
//   streaks: a cell that opens a new streak compares the lengths of the two streaks 1 and 1+k
//   columns back (equal: red, else blue); any other cell looks k columns back at its own row:
//   a cell there, or no cell there nor above, is red; the first empty cell below a column's end
//   is blue. A derived road starts with the big road entry at column k row 2, or column k+1
//   row 1, whichever comes first. Its colours are laid out like the big road (streaks, dragon
//   tails).

export const ROWS = 6;
export const RED = "red";
export const BLUE = "blue";

/** The derived roads and their offsets. */
export const DERIVED = Object.freeze({ bigEyeBoy: 1, smallRoad: 2, cockroachPig: 3 });

function winnerOf(result) {
  const winner = typeof result === "string" ? result : result && result.winner;
  if (winner !== "punto" && winner !== "banco" && winner !== "egalite") {
    throw new Error(`not a coup result: ${JSON.stringify(result)}`);
  }
  return winner;
}

/** Bead plate: every coup in order, down each column of `rows` cells, then the next column. */
export function beadPlate(results, rows = ROWS) {
  return results.map((result, index) => ({
    col: Math.floor(index / rows),
    row: index % rows,
    winner: winnerOf(result),
    index,
    coup: typeof result === "string" ? null : result,
  }));
}

/**
 * The big road's streaks, before any layout: [{winner, entries: [{index, ties}]}] and the
 * number of ties dealt before the first Punto or Banco win.
 */
export function streaks(results) {
  const columns = [];
  let leadingTies = 0;
  results.forEach((result, index) => {
    const winner = winnerOf(result);
    const last = columns.at(-1);
    if (winner === "egalite") {
      if (last) last.entries.at(-1).ties += 1;
      else leadingTies += 1;
      return;
    }
    const entry = { index, ties: 0 };
    if (last && last.winner === winner) last.entries.push(entry);
    else columns.push({ winner, entries: [entry] });
  });
  if (columns.length && leadingTies) columns[0].entries[0].ties += leadingTies;
  return { columns, leadingTies };
}

/**
 * Lay streaks out on a grid of `rows` rows. Each streak starts on the top row of the column
 * after the previous streak's first column (or further right if that cell is taken); it goes
 * down while the cell below is free and on the grid, then turns right for good (the dragon tail).
 * Returns one {col, row, streak, item} per item.
 */
export function layout(streakItems, rows = ROWS) {
  const taken = new Set();
  const key = (col, row) => `${col},${row}`;
  const cells = [];
  let startCol = -1;
  streakItems.forEach((items, streak) => {
    let col = startCol + 1;
    while (taken.has(key(col, 0))) col += 1;
    startCol = col;
    let row = 0;
    let turned = false;
    items.forEach((item, i) => {
      if (i > 0) {
        if (!turned && row + 1 < rows && !taken.has(key(col, row + 1))) {
          row += 1;
        } else {
          turned = true; // once a tail turns right it runs right to the end of the streak
          col += 1;
          while (taken.has(key(col, row))) col += 1;
        }
      }
      taken.add(key(col, row));
      cells.push({ col, row, streak, item });
    });
  });
  return cells;
}

/** Big road cells: {col, row, winner, ties, index, streak, depth} (depth: place in its streak). */
export function bigRoad(results, rows = ROWS) {
  const { columns, leadingTies } = streaks(results);
  if (!columns.length) {
    return leadingTies ? [{ col: 0, row: 0, winner: null, ties: leadingTies, index: null,
      streak: null, depth: 0 }] : [];
  }
  return layout(columns.map((c) => c.entries.map((e, depth) => ({ ...e, depth }))), rows)
    .map(({ col, row, streak, item }) => ({
      col, row, winner: columns[streak].winner, ties: item.ties, index: item.index, streak,
      depth: item.depth,
    }));
}

/**
 * The colours of a derived road, in order, from the big road's streak lengths. `k` is 1 (big
 * eye boy), 2 (small road) or 3 (cockroach pig).
 */
export function derivedColours(results, k) {
  const lengths = streaks(results).columns.map((c) => c.entries.length);
  const colours = [];
  lengths.forEach((length, col) => {
    for (let row = 0; row < length; row += 1) {
      if (row === 0) {
        if (col < k + 1) continue;
        colours.push(lengths[col - 1] === lengths[col - 1 - k] ? RED : BLUE);
      } else {
        if (col < k) continue;
        colours.push(lengths[col - k] === row ? BLUE : RED);
      }
    }
  });
  return colours;
}

/** A derived road laid out: cells {col, row, colour}. */
export function derivedRoad(results, k, rows = ROWS) {
  const runs = [];
  for (const colour of derivedColours(results, k)) {
    const last = runs.at(-1);
    if (last && last[0] === colour) last.push(colour);
    else runs.push([colour]);
  }
  return layout(runs, rows).map(({ col, row, item }) => ({ col, row, colour: item }));
}

/** Every road of the shoe at once. */
export function allRoads(results, rows = ROWS) {
  return {
    bead: beadPlate(results, rows),
    big: bigRoad(results, rows),
    bigEyeBoy: derivedRoad(results, DERIVED.bigEyeBoy, rows),
    smallRoad: derivedRoad(results, DERIVED.smallRoad, rows),
    cockroachPig: derivedRoad(results, DERIVED.cockroachPig, rows),
  };
}

/**
 * The "ask" predictions: the colour each derived road would add if the next coup went to
 * Banco or to Punto (null when that road would add nothing yet).
 */
export function predictions(results) {
  const out = {};
  for (const side of ["banco", "punto"]) {
    out[side] = {};
    for (const [name, k] of Object.entries(DERIVED)) {
      const before = derivedColours(results, k).length;
      const after = derivedColours([...results, side], k);
      out[side][name] = after.length > before ? after.at(-1) : null;
    }
  }
  return out;
}

/** Counts shown with the roads: coups, wins per side, ties, naturals. */
export function tally(results) {
  const counts = { coups: results.length, punto: 0, banco: 0, egalite: 0, natural: 0 };
  for (const result of results) {
    counts[winnerOf(result)] += 1;
    if (typeof result === "object" && result.natural) counts.natural += 1;
  }
  return counts;
}

/** The width of a road in columns (for sizing its grid). */
export function columnCount(cells) {
  return cells.reduce((max, cell) => Math.max(max, cell.col + 1), 0);
}
