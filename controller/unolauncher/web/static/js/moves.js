// What the referee says a player may do now: the daemon's `moves` query (Referee.legal_moves, docs/protocol-mqtt.md),
// asked again after every state change. The page greys out whatever the answer does not list instead of deciding
// the rules itself; the referee stays the judge of what is sent (a refusal still shows next to the control).

/**
 *   const book = new MoveBook((command) => link.send(command));   // returns the command id, or null if not sent
 *   book.reset(state.seq); book.want("ann");                      // a new state: ask again
 *   book.take(reply);                                             // true if the reply was one of its answers
 *   book.allows("ann", "draw"); book.canPlay("ann", "red 7");     // false until the answer is here
 */
export class MoveBook {
  constructor(ask) {
    this.ask = ask;
    this.answers = new Map(); // player -> {player, seq, moves, cards} for the state shown
    this.asked = new Map(); // command id -> player, for the answers still awaited
    this.unsupported = false; // a daemon without the query: nothing is greyed, its refusals say what was wrong
  }

  /** A new state: the answers so far are about the one before (a late one is ignored by its id). */
  reset() {
    this.answers.clear();
    this.asked.clear();
  }

  /** Ask for `player`'s moves unless they are known or on their way. */
  want(player) {
    if (!player || this.unsupported || this.answers.has(player)) return;
    for (const asked of this.asked.values()) if (asked === player) return;
    const id = this.ask({ type: "moves", player });
    if (id !== null && id !== undefined) this.asked.set(id, player);
  }

  /** A reply: keep it if it answers a question of this state (true), else leave it to the caller (false). */
  take(reply) {
    const player = this.asked.get(reply.id);
    if (player === undefined) return false;
    this.asked.delete(reply.id);
    const data = reply.data;
    if (reply.ok && data && Array.isArray(data.moves) && Array.isArray(data.cards)) this.answers.set(player, data);
    else if (reply.code === "unknown_command") this.unsupported = true;
    return true;
  }

  /** Whether the referee listed a move of this type (and at this target, if given) for `player` (any when the
   * daemon has no `moves` query). */
  allows(player, type, target) {
    if (this.unsupported) return Boolean(player);
    const answer = this.answers.get(player);
    return Boolean(
      answer && answer.moves.some((move) => move.type === type && (target === undefined || move.target === target)),
    );
  }

  /** Whether `player` may put down `card` now (in table mode: a card of the deck the referee would take). */
  canPlay(player, card) {
    if (this.unsupported) return Boolean(player);
    const answer = this.answers.get(player);
    return Boolean(answer && answer.cards.includes(card));
  }

  /** Whether `player` may put down any card now. */
  canPlayAny(player) {
    if (this.unsupported) return Boolean(player);
    const answer = this.answers.get(player);
    return Boolean(answer && answer.cards.length);
  }
}
