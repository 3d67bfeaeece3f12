// What the page remembers about this game beyond the current state: hits (cards per press) and round results.
// Kept in localStorage per table so a reload or a reconnect does not empty the launcher's histogram; events
// missed while away are re-sent by the daemon (`resend`) and merged here by `seq`.

const MAX_HITS = 2000;

export class History {
  constructor(table) {
    this.key = `unolauncher.history.${table}`;
    this.changedByLastEvent = false;
    this.data = this.load();
  }

  load() {
    try {
      const data = JSON.parse(localStorage.getItem(this.key) || "null");
      if (data && Array.isArray(data.hits) && Array.isArray(data.rounds)) return data;
    } catch {
      // a corrupt entry is simply forgotten
    }
    return { startSeq: null, hits: [], rounds: [] };
  }

  save() {
    try {
      localStorage.setItem(this.key, JSON.stringify(this.data));
    } catch {
      // storage full or disabled: history is a convenience, the table still works
    }
  }

  get hits() {
    return this.data.hits;
  }

  get rounds() {
    return this.data.rounds;
  }

  /** Events older than the current game's start (known by its seq) do not belong to this game. */
  belongs(seq) {
    return seq === null || this.data.startSeq === null || seq > this.data.startSeq;
  }

  observeEvent(event) {
    this.changedByLastEvent = false;
    const seq = Number.isInteger(event.seq) ? event.seq : null;
    if (event.type === "game_started") {
      if (this.belongs(seq)) { // a newer game (a re-sent older game_started changes nothing)
        const keep = (list) => list.filter((x) => x.seq !== null && seq !== null && x.seq > seq);
        this.data = {
          startSeq: seq, hits: keep(this.data.hits), rounds: keep(this.data.rounds),
        }; // (the game's options come with the state: main.js)
        this.changedByLastEvent = true;
      }
    } else if (event.type === "hit" && Number.isInteger(event.cards) && this.belongs(seq)) {
      insertBySeq(this.data.hits, { player: event.player || null, cards: event.cards, seq });
      if (this.data.hits.length > MAX_HITS) this.data.hits.splice(0, this.data.hits.length - MAX_HITS);
      this.changedByLastEvent = true;
    } else if (event.type === "round_ended" && event.scores && this.belongs(seq)) {
      const entry = { seq, round: event.round, winner: event.winner, points: event.points, totals: event.scores };
      // A round scored again after an undo: the later result replaces the earlier one (by seq, so a re-sent older
      // copy does not win).
      const same = Number.isInteger(event.round) ? this.data.rounds.findIndex((r) => r.round === event.round) : -1;
      if (same < 0) insertBySeq(this.data.rounds, entry);
      else if (seq === null || this.data.rounds[same].seq === null || this.data.rounds[same].seq < seq) {
        this.data.rounds[same] = entry;
      }
      this.changedByLastEvent = true;
    }
    if (this.changedByLastEvent) this.save();
  }
}

function insertBySeq(list, item) {
  if (item.seq !== null && list.some((x) => x.seq === item.seq)) return;
  let i = list.length;
  while (i > 0 && item.seq !== null && list[i - 1].seq !== null && list[i - 1].seq > item.seq) i -= 1;
  list.splice(i, 0, item);
}
