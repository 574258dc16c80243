"""The request models of POST /v1/validate and /v1/check-formats: the options a deck is sent
with, each field checked before the deck is read (a wrong one is a 422 naming it)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

#: Longer than any card name (the longest are about 140 characters): not looked up.
MAX_CARD_NAME = 200

#: A house rule's length: companion sentences are under 200 characters. The rules grammar
#: parses on the event loop's worker; 20 rules of 235 KB each held it 22 s.
MAX_RULE_CHARS = 1_000


class DeckRequest(BaseModel):
    """A deck to check. Unknown fields are refused (422): a misspelt option is never ignored."""

    model_config = ConfigDict(extra="forbid")

    decklist: str = Field(description="the decklist as pasted or exported (any supported format)")
    filename: str | None = Field(
        None, max_length=255, description="the file's name: helps detection, becomes `source`"
    )
    input_format: str | None = Field(
        None, max_length=32, description="force a decklist format (default: detected)"
    )
    commanders: list[str] = Field(
        default_factory=list, max_length=4, description="designate commanders (partners: two names)"
    )
    rules: list[str] = Field(
        default_factory=list, max_length=20, description="house rules in companion English"
    )
    bracket: int | None = Field(None, ge=1, le=5, description="Commander Brackets: check bracket N")
    as_of: dt.date | str | None = Field(
        None,
        description="legality as of this date (YYYY-MM-DD), or of a month (YYYY-MM, for "
        "a deck known only to its month: judged as of the month's last day, "
        'and the report\'s `as_of_precision` is "month")',
    )

    @field_validator("commanders")
    @classmethod
    def _commanders_read(cls, names: list[str]) -> list[str]:
        """A commander is a card name: not blank, and no longer than any card name (a name is
        echoed back in errors, so a 200 KB one would be answered with 200 KB)."""
        for name in names:
            if not name.strip():
                raise ValueError(
                    "a commander name is empty: give the card's name, or leave the commander out"
                )
            if len(name) > MAX_CARD_NAME:
                raise ValueError(
                    f"a commander name of {len(name)} characters is no card name "
                    f"(the longest are under {MAX_CARD_NAME})"
                )
        return names

    @field_validator("rules")
    @classmethod
    def _rules_short(cls, rules: list[str]) -> list[str]:
        """A house rule is a sentence in companion English (the longest companion condition
        is under 200 characters): a longer one is refused before the grammar reads it."""
        for rule in rules:
            if len(rule) > MAX_RULE_CHARS:
                raise ValueError(
                    f"a house rule of {len(rule):,} characters: a rule is one "
                    f"sentence of at most {MAX_RULE_CHARS:,} characters (companion "
                    "conditions are under 200)"
                )
        return rules

    @field_validator("input_format")
    @classmethod
    def _input_format_known(cls, value: str | None) -> str | None:
        """A decklist format the library reads (as `--input-format`): another is a wrong
        field value (422 `invalid-field` naming it and the names taken), not a bad decklist."""
        from validator.decklist import INPUT_FORMATS

        if value is not None and value.strip().lower() not in INPUT_FORMATS:
            raise ValueError(
                f"unknown input format {value!r}: use one of "
                f"{', '.join(INPUT_FORMATS)} (or leave it out: detected)"
            )
        return value

    @field_validator("bracket", mode="before")
    @classmethod
    def _bracket_is_a_number(cls, value: Any) -> Any:
        if isinstance(value, bool):  # JSON true is no bracket (pydantic would read it as 1)
            raise ValueError("a bracket is a number from 1 to 5, not true or false")
        return value

    @field_validator("as_of", mode="before")
    @classmethod
    def _as_of_is_text(cls, value: Any) -> Any:
        """A date is text (JSON has no dates): a number such as 20260101 is refused saying the
        forms taken, not with pydantic's words about datetimes."""
        if value is not None and not isinstance(value, (str, dt.date)):
            from validator.dates import AS_OF_FORMS

            raise ValueError(f"not a date: write it as a string, {AS_OF_FORMS}")
        return value


class ValidateRequest(DeckRequest):
    format: str = Field(max_length=64, description="format key (see GET /v1/formats)")


class CheckFormatsRequest(DeckRequest):
    pass


#: The options of one format that POST /v1/check-formats refuses (`Service.check_formats`).
_ONE_FORMAT_OPTIONS = frozenset({"rules", "bracket"})
