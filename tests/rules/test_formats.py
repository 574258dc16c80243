"""Format rules as data: the built-in file and an organizer's house formats."""

from __future__ import annotations

import pytest

from validator.rules.formats import FormatError, get_format, load_formats

SCRYFALL_KEYS = {
    "standard",
    "future",
    "historic",
    "timeless",
    "gladiator",
    "pioneer",
    "explorer",
    "modern",
    "legacy",
    "pauper",
    "vintage",
    "penny",
    "commander",
    "oathbreaker",
    "standardbrawl",
    "brawl",
    "alchemy",
    "paupercommander",
    "duel",
    "oldschool",
    "premodern",
    "predh",
}


def test_every_scryfall_legality_key_has_a_format():
    formats = load_formats()
    assert {f.legality for f in formats.values()} >= SCRYFALL_KEYS


def test_constructed_defaults_and_citations():
    modern = get_format("modern")
    assert (modern.min_deck, modern.max_deck, modern.sideboard_max, modern.copy_limit) == (
        60,
        None,
        15,
        4,
    )
    assert modern.cite("deck_size") == "CR 100.2a" and modern.cite("sideboard") == "CR 100.4a"


def test_commander_family_sizes():
    assert get_format("commander").min_deck == get_format("commander").max_deck == 100
    assert get_format("standardbrawl").max_deck == 60
    assert get_format("brawl").max_deck == 100
    assert get_format("EDH").key == "commander"
    assert "Lutri, the Spellchaser" in get_format("commander").banned_as_companion


def test_unknown_format_names_the_known_ones():
    with pytest.raises(FormatError, match="known formats: .*modern"):
        get_format("modren")


def test_house_format_file(tmp_path):
    house = tmp_path / "house.toml"
    house.write_text(
        '[highlander]\nname = "Canadian Highlander"\nlegality = "vintage"\n'
        "min_deck = 100\ncopy_limit = 1\n",
        encoding="utf-8",
    )
    formats = load_formats(house)
    hl = formats["highlander"]
    assert (hl.min_deck, hl.copy_limit, hl.sideboard_max, hl.legality) == (100, 1, 15, "vintage")
    assert "modern" in formats


def test_house_format_file_errors_are_clear(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[x]\nname = "X"\nlegality = "vintage"\nmin_dek = 40\n', encoding="utf-8")
    with pytest.raises(
        FormatError, match=r"bad.toml: format \[x\]: unknown key min_dek; did you mean min_deck\?"
    ):
        load_formats(bad)
    bad.write_text("[x\n", encoding="utf-8")
    with pytest.raises(FormatError, match="not valid TOML"):
        load_formats(bad)


def test_builtin_formats_are_read_once_and_not_shared_mutably():
    first, second = load_formats(), load_formats()
    assert first == second and first is not second
    first.pop("modern")
    assert "modern" in load_formats()


def test_a_format_reads_its_list_files_only_when_it_is_asked_for(monkeypatch):
    """Judging Modern reads no Old School list: each built-in format is built (its points and
    dated lists read) the first time it is asked for, once per process."""
    import pickle

    from validator.rules import formats as module

    read: list[str] = []
    real = module.load_points

    def recording(value, **kwargs):
        read.append(value)
        return real(value, **kwargs)

    monkeypatch.setattr(module, "load_points", recording)
    module._builtin.cache_clear()
    try:
        formats = load_formats()
        assert "oldschool" in formats and len(formats) == len(list(formats))
        assert formats["modern"].legality == "modern"
        assert read == []
        assert formats["oldschool"].lists is not None
        assert read == ["lists/old-school-9394.toml"]
        assert load_formats()["oldschool"] is formats["oldschool"]  # not read again
        assert read == ["lists/old-school-9394.toml"]
        # A copy sent to another process (the event pool, Dask) builds the same rules.
        assert pickle.loads(pickle.dumps(formats))["oldschool"] == formats["oldschool"]
    finally:
        module._builtin.cache_clear()


def test_brackets_only_for_multiplayer_commander():
    formats = load_formats()
    assert [k for k, f in formats.items() if f.brackets] == ["commander"]
