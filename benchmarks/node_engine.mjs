// The Node.js engine of jdross/yaniv (server/src/yaniv.js), driven by the greedy policy that
// benchmarks/engine.py's like-for-like figure uses, for issue 20's comparison in one run:
//
//   node benchmarks/node_engine.mjs PATH/TO/jdross-yaniv [--seconds 3] [--players 2,4]
//
// PATH is a checkout of https://github.com/jdross/yaniv (not part of this project: its code is
// not ours to ship). Its rules are fixed: Yaniv at 5 or less, out above 100, Assaf +30 for the
// caller only, 50 off on landing on 50 or 100, jokers in sets, a run's ends or any card of a
// set taken, the caller starts. The policy: call Yaniv whenever allowed; else discard the
// legal discard worth most (its cards in hand order; every subset of the hand is tried with
// the engine's own _isValidDiscard), then take the lowest-valued card the pile offers if it is
// worth under 5, else the stock. A Yaniv call counts 1 move, a discard and its draw 2, and a
// game still going after 2,000 moves (two greedy hands can swap low cards for ever) is ended
// there and counted, as in benchmarks/engine.py. Prints JSON: moves per second of CPU time
// (process.cpuUsage) per count of players, with the games played and cut off.

import { createRequire } from "node:module";
import path from "node:path";

const args = process.argv.slice(2);
if (args.length === 0 || args[0].startsWith("--")) {
  process.stderr.write("usage: node benchmarks/node_engine.mjs PATH/TO/jdross-yaniv [--seconds S] [--players 2,4]\n");
  process.exit(2);
}
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 && at + 1 < args.length ? args[at + 1] : fallback;
};
const seconds = Number(option("--seconds", "3"));
const counts = option("--players", "2,4").split(",").map(Number);
const require = createRequire(path.resolve(args[0], "server", "src", "yaniv.js"));
const { YanivGame } = require("./yaniv");
const { Player } = require("./player");

function value(cards) {
  let sum = 0;
  for (const card of cards) sum += card.value;
  return sum;
}

/** The legal discard worth most: every non-empty subset of the hand, in hand order, that
 * could be a set or a run (its other cards than jokers of one rank, or of one suit) is
 * asked of the engine's _isValidDiscard. */
function bestDiscard(game, hand) {
  let best = null;
  let bestValue = -1;
  const n = hand.length;
  for (let mask = 1; mask < 1 << n; mask += 1) {
    let rank = null;
    let suit = null;
    let sameRank = true;
    let sameSuit = true;
    let size = 0;
    let v = 0;
    for (let i = 0; i < n; i += 1) {
      if (!(mask & (1 << i))) continue;
      const card = hand[i];
      size += 1;
      v += card.value;
      if (card.rank === "Joker") continue;
      if (rank === null) {
        rank = card.rank;
        suit = card.suit;
      } else {
        sameRank &&= card.rank === rank;
        sameSuit &&= card.suit === suit;
      }
    }
    if (v <= bestValue || (size > 1 && !sameRank && !(size >= 3 && sameSuit))) continue;
    const cards = hand.filter((_, i) => mask & (1 << i));
    if (game._isValidDiscard(cards)) {
      best = cards;
      bestValue = v;
    }
  }
  return best;
}

const CUT_OFF = 2000;

/** One game to its end (or its cut-off); the moves it took. */
function playGame(players) {
  const game = new YanivGame(Array.from({ length: players }, (_, i) => new Player(`P${i}`)));
  game.startGame();
  let moves = 0;
  while (moves < CUT_OFF) {
    const [player, options] = game.startTurn();
    if (game.canDeclareYaniv(player)) {
      moves += 1;
      const [, , winner] = game.declareYaniv(player);
      if (winner || game.players.length <= 1) return moves;
      continue;
    }
    const discard = bestDiscard(game, player.hand);
    let pick = -1;
    options.forEach((card, i) => {
      if (card.value < 5 && (pick < 0 || card.value < options[pick].value)) pick = i;
    });
    game.playTurn(player, { discard, draw: pick >= 0 ? pick : "deck" });
    moves += 2;
  }
  return moves;
}

function cpuSeconds() {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1e6;
}

const figures = {};
for (const players of counts) {
  for (let i = 0; i < 20; i += 1) playGame(players); // warm the JIT
  const start = cpuSeconds();
  let moves = 0;
  let games = 0;
  let cutOff = 0;
  while (cpuSeconds() - start < seconds) {
    const played = playGame(players);
    moves += played;
    games += 1;
    if (played >= CUT_OFF) cutOff += 1;
  }
  const spent = cpuSeconds() - start;
  figures[`${players}p`] = { moves_per_cpu_s: Math.round(moves / spent), games, cut_off: cutOff, moves };
}
process.stdout.write(`${JSON.stringify({ engine: "jdross/yaniv (Node.js)", node: process.version, seconds, figures })}\n`);
