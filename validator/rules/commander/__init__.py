"""The Commander family: designating commanders, partners, color identity, the companion.

Two entry points, run in this order by `api.check_resolved`:

* `designation.designate_commanders` puts the commander(s) in Section.COMMANDER and the
  companion in Section.COMPANION (from a Commander section, `--commander`, or the sideboard,
  where MTGO and tournament exports list them), so that the generic checks count the 100 (CR
  903.5a) and see no sideboard (903.5e). It says how the commander was found, or that none was.
* `rules.commander_problems` checks the rest of CR 903 and its variants: eligibility (903.3,
  903.12c), partners (702.124), color identity (903.4, 903.5c/d, 903.12e), banned-as-commander,
  the companion as 101st card (702.139b, 903.11a), Oathbreaker's signature spell and Pauper
  Commander's uncommon commander. It does not repeat what designation reported missing.

In a format without commanders, `constructed.commander_section_as_deck` (run instead of
designation) counts cards marked as commander as main-deck cards and says so: CR 903 is the
Commander variants' rule.

Designation is bounded on hostile lists: a legal deck has at most two commanders (903.3,
702.124), so more is one problem naming them, never a search over every pair or ordering.

Generic rules (deck size, singleton, card pool, sideboard) live in `checks`.

Five modules, one concern each:
- `leaders`: who may lead (903.3, 903.3a, 903.12c; the Background, 702.124k; the Time Lord
  Doctor, 702.124m) and how two leaders pair (702.124), asked by both steps below;
- `designation`: which cards are the commander(s) and the companion, moved to their sections;
- `rules`: the checks run after designation;
- `constructed`: a Commander section in a format without commanders;
- `messages`: how the problems name cards and color identities, shared by the others.

This package re-exports nothing: import from the modules. Importing any module of the package
runs this file first, and every constructed deck imports `constructed` (a cold
`deckcheck validate` pays for each import): a re-export of `designation` or `rules` here would load the card types
and abilities (`validator.cards.types`, `validator.cards.abilities`) for a deck that has no commander.
"""
