"""The documented exception family: one base class, a stable code on each."""

import pytest

import validator


@pytest.mark.parametrize(
    "name, code",
    [
        ("DecklistError", "bad-decklist"),
        ("FormatError", "bad-format"),
        ("DatabaseError", "database-unavailable"),
        ("ConditionError", "bad-condition"),
        ("SyncError", "sync-failed"),
        ("BulkFileError", "bad-bulk-file"),
        ("CardDataError", "bad-card-data"),
        ("UsageError", "usage"),
    ],
)
def test_every_error_is_a_deckcheck_error_with_a_code(name, code):
    cls = getattr(validator, name)
    assert issubclass(cls, validator.DeckcheckError)
    assert cls.code == code


def test_library_raises_the_family():
    with pytest.raises(validator.DeckcheckError) as info:
        validator.load_formats().get("no-such-format") or validator.validate(
            "4 Island", "no-such-format", cards=validator.CardIndex()
        )
    assert info.value.code == "bad-format"
    with pytest.raises(validator.DeckcheckError) as info:
        validator.parse_decklist("x" * 2_000_000)
    assert info.value.code == "bad-decklist"
