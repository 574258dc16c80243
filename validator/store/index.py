"""`CardIndex`: every deck card of a database in memory, keyed by folded name."""

from __future__ import annotations

from collections.abc import Iterable

from validator.cards.compact import IndexData, LegalityInterner, SyncStamp, decode_card
from validator.cards.names import lookup_key
from validator.model import Card

#: Printed names kept per index (`CardIndex.lookup_printed`); the dict starts over when full.
MAX_CACHED_NAMES = 50_000


class CardIndex:
    """Every deck card in memory, keyed by folded name: lookups are dict hits.

    Built from a database (`from_db`) the index holds each card in its compact encoding
    (`compact`) and makes the `Card` the first time a deck names it: the full card file loads
    in one read, and a run over thousands of decks only ever builds the cards they use.
    `sync` is the sync the index was read from (None for an index built in code).

    Printings (set + collector number, rarities) stay in the database `printings`, asked only
    for the rare line whose name does not resolve and for Pauper Commander's commander.
    """

    def __init__(self, cards: Iterable[tuple[Iterable[str], Card]] = (), printings=None):
        self._by_name: dict[str, list[str]] = {}  # folded name -> oracle ids
        self._by_id: dict[str, Card] = {}
        #: oracle id -> (name, legalities text, compact data): cards not built yet.
        self._raw: dict[str, tuple[str, str, bytes]] = {}
        self._found: dict[str, list[Card]] = {}  # folded name -> cards, once built
        #: Names as written that resolved to one card of a deck (see `resolve`), bounded.
        self.deck_cards: dict[str, Card] = {}
        #: Printed names (`sync --languages`) asked of the database so far: folded ->
        #: [(oracle_id, lang, name, part)] ([] for none), bounded (`lookup_printed`).
        self._printed: dict[str, list[tuple[str, str, str, int]]] = {}
        #: Names as written that another name's reading gave one card of a deck (see
        #: `rules.resolve`): name -> (card, how, language), bounded as `deck_cards`.
        self.read_names: dict[str, tuple[Card, str, str]] = {}
        self._legalities: LegalityInterner | None = None
        for names, card in cards:
            self.add(card, names)
        self._names: list[str] | None = None
        self._printings = printings  # a CardDB, or None
        #: whether the database holds printings, read with the cards (`from_db`; None: ask it):
        #: without them a legal-sets or rarity check asks nothing more of the database, so a
        #: database unreadable after the load fails no validation
        self._has_printings: bool | None = None
        self.sync: SyncStamp | None = None
        #: the database's legality keys, read with the cards (`from_db`): validating asks for
        #: them, and a database unreadable after the load must not fail a validation
        self._formats: list[str] | None = None

    @property
    def database(self):
        """The card database the index was built from (None for an index built by hand): its
        printings and its legality change log (`api.legality_history`)."""
        return self._printings

    @classmethod
    def from_db(cls, db) -> CardIndex:  # db: CardDB or store_sqlite.SqliteCards
        """The index of every deck card of `db`, read in one snapshot."""
        data: IndexData = db.index_data()
        index = cls(printings=db)
        index.sync = data.sync
        index._load_compact(data)
        index._formats = list(db.formats())
        index._has_printings = db.has_printings()
        return index

    def _load_compact(self, data: IndexData) -> None:
        self._legalities = LegalityInterner()
        raw = self._raw
        order: dict[str, int] = {}  # oracle id (the row's string) -> card order
        # The readers hand out one string per legality set already.
        for position, (oid, name, legalities, blob) in enumerate(data.rows):
            raw[oid] = (name, legalities, blob)
            order[oid] = position
        by_name = self._by_name
        same_oid = {oid: oid for oid in order}  # one string per oracle id, not one per name
        for folded, named in data.names:
            card_id = same_oid.get(named)
            if card_id is not None:  # card_names also holds tokens and other non-deck objects
                ids = by_name.get(folded)
                if ids is None:
                    by_name[folded] = [card_id]
                else:
                    ids.append(card_id)
                    ids.sort(key=order.__getitem__)  # card order, as an index built in code

    def add(self, card: Card, names: Iterable[str] = ()) -> None:
        from validator.cards.facts import lookup_names

        self._by_id[card.oracle_id] = card
        self._raw.pop(card.oracle_id, None)
        for folded in set(names) | {f for f, _ in lookup_names(card)}:
            ids = self._by_name.setdefault(folded, [])
            if card.oracle_id not in ids:
                ids.append(card.oracle_id)
            self._found.pop(folded, None)
        self._names = None
        self.deck_cards.clear()  # a name may now match this card too
        self.read_names.clear()
        self._printed.clear()

    def _card(self, oracle_id: str) -> Card | None:
        card = self._by_id.get(oracle_id)
        if card is None and oracle_id in self._raw:
            name, legalities, blob = self._raw[oracle_id]
            assert self._legalities is not None
            card = decode_card(oracle_id, name, blob, self._legalities(legalities))
            # Two threads may both build it: equal cards, the last one stays. Harmless.
            self._by_id[oracle_id] = card
        return card

    def lookup(self, names: Iterable[str]) -> dict[str, list[Card]]:
        return self.lookup_folded(lookup_key(n) for n in names)

    def lookup_folded(self, folded_names: Iterable[str]) -> dict[str, list[Card]]:
        """`lookup` for names already folded as `lookup` folds them (`names.lookup_key`)."""
        out = {}
        found, by_name = self._found, self._by_name
        for folded in folded_names:
            cards = found.get(folded)
            if cards is None:
                ids = by_name.get(folded)
                if ids is None:
                    continue
                cards = found[folded] = [c for c in map(self._card, ids) if c is not None]
            out[folded] = cards
        return out

    def lookup_printed(self, folded: Iterable[str]) -> dict[str, list[tuple[str, str, str, int]]]:
        """The printed names (folded by `printed.fold_printed`) of deck cards: folded ->
        [(oracle_id, lang, name, part)]. Asked of the database for the names not asked before
        (one query for a deck's), and kept, bounded: the printed names of ten languages are
        ten times the English ones, and English decks never need them."""
        out: dict[str, list[tuple[str, str, str, int]]] = {}
        cache, missing = self._printed, []
        for f in folded:
            hits = cache.get(f)
            if hits is None:
                missing.append(f)
            elif hits:
                out[f] = hits
        reader = getattr(self._printings, "lookup_printed", None)
        if missing and reader is not None:
            found = reader(missing)
            known = self._known_ids(found) if found else set()
            if len(cache) >= MAX_CACHED_NAMES:
                cache.clear()
            for f in missing:
                # the cards of this index only (a newer sync's are no card for it)
                hits = [h for h in found.get(f, ()) if h[0] in known]
                cache[f] = hits
                if hits:
                    out[f] = hits
        return out

    def _known_ids(self, found: dict[str, list[tuple[str, str, str, int]]]) -> set[str]:
        """Of the oracle ids of printed-name hits, those of this index's cards."""
        return self._raw.keys() | self._by_id.keys()

    def all_printed_names(self) -> list[tuple[str, str, str]]:
        """(printed name, Oracle name, lang) of every deck card's printed names (suggestions)."""
        reader = getattr(self._printings, "all_printed_names", None)
        return reader() if reader is not None else []

    def printed_names_of(self, oracle_id: str) -> list[tuple[str, int, str]]:
        """(lang, part, name) of a card's printed names."""
        reader = getattr(self._printings, "printed_names_of", None)
        return reader(oracle_id) if reader is not None else []

    def formats(self) -> list[str]:
        """The legality keys its database's last sync saw; [] (not known) for an index built
        by hand, whose cards may carry only the keys their maker needed."""
        if self._formats is not None:
            return list(self._formats)
        return self._printings.formats() if self._printings is not None else []

    def all_names(self) -> list[str]:
        if self._names is None:
            names = {c.name for c in self._by_id.values()}
            names.update(name for name, _, _ in self._raw.values())
            self._names = sorted(names)
        return self._names

    def printing(self, set_code: str, collector_number: str) -> tuple[str, str] | None:
        if not self._asks_printings():
            return None
        return self._printings.printing(set_code, collector_number)

    def rarities(self, oracle_id: str) -> set[str] | None:
        return self._printings.rarities(oracle_id) if self._asks_printings() else None

    def printed_sets(self, oracle_ids: Iterable[str]) -> dict[str, set[str]] | None:
        return self._printings.printed_sets(oracle_ids) if self._asks_printings() else None

    def _asks_printings(self) -> bool:
        return self._printings is not None and self._has_printings is not False

    def card_by_id(self, oracle_id: str) -> Card | None:
        return self._card(oracle_id)

    def __len__(self) -> int:
        return len(self._by_id.keys() | self._raw.keys())


class PartialCardIndex(CardIndex):
    """`CardIndex.from_db`'s answers, holding only the cards asked for: a name's cards are
    read from the database the first time a lookup names it (a batch of names in one read),
    with their place in the table, so that the cards of one name come in the full index's
    order. Judging a few thousand decks reads the few thousand cards they name rather than
    all 34,000 (a re-check after a ban: 0.1 s less).

    `db` is a reader with `deck_card_rows` (`store.sqlite.SqliteCards`). Each read is one
    snapshot, as each query of a database used as the card source is; a sync committing
    during a run is seen by the names read after it."""

    def __init__(self, db) -> None:
        super().__init__(printings=db)
        self._legalities = LegalityInterner()
        self._order: dict[str, int] = {}  # oracle id -> its place in the card table
        self._absent: set[str] = set()  # folded names no deck card has
        self._absent_ids: set[str] = set()  # oracle ids of no deck card
        self._formats = list(db.formats())
        self._has_printings = db.has_printings()

    def _read(self, folded: Iterable[str] = (), oracle_ids: Iterable[str] = ()) -> None:
        names, rows, self.sync = self._printings.deck_card_rows(folded, oracle_ids)
        raw, order = self._raw, self._order
        for position, oid, name, legalities, blob in rows:
            if oid not in raw and oid not in self._by_id:
                raw[oid] = (name, legalities, blob)
            order[oid] = position
        touched: dict[str, list[str]] = {}
        for f, oid in names:
            touched.setdefault(f, []).append(oid)
        for f, ids in touched.items():
            self._by_name[f] = sorted(ids, key=order.__getitem__)  # card order, as `from_db`
        self._absent.update(f for f in folded if f not in touched)
        self._absent_ids.update(o for o in oracle_ids if o not in order)

    def load(self, folded: Iterable[str]) -> None:
        """Read the cards of these folded names now, in one read (the names of the decks
        about to be judged), rather than at each deck's lookup."""
        self._read([f for f in set(folded) if f not in self._by_name and f not in self._absent])

    def lookup_folded(self, folded_names: Iterable[str]) -> dict[str, list[Card]]:
        names = list(folded_names)
        missing = {f for f in names if f not in self._by_name and f not in self._absent}
        if missing:
            self._read(missing)
        return super().lookup_folded(names)

    def _card(self, oracle_id: str) -> Card | None:
        if (
            oracle_id not in self._by_id
            and oracle_id not in self._raw
            and oracle_id not in self._absent_ids
        ):
            self._read(oracle_ids=[oracle_id])
        return super()._card(oracle_id)

    def _known_ids(self, found: dict[str, list[tuple[str, str, str, int]]]) -> set[str]:
        # The database's printed names of deck cards are this index's cards, read now.
        ids = {h[0] for hits in found.values() for h in hits}
        unread = [o for o in ids if o not in self._order and o not in self._absent_ids]
        if unread:
            self._read(oracle_ids=unread)
        return {o for o in ids if o in self._order}

    def all_names(self) -> list[str]:
        if self._names is None:
            self._names = sorted(set(self._printings.all_names()))
        return self._names

    def __len__(self) -> int:
        return len(self._printings.all_names())  # one name per deck card
