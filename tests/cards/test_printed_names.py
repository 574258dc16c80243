"""Folding of printed (non-English) names: what people type for the same name folds alike,
and nothing else does (never a prefix, never a kana's voicing mark)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from validator.cards import printed
from validator.cards.names import fold_name
from validator.cards.printed import fold_printed, script_of


@pytest.mark.parametrize(
    "typed, printed",
    [
        # furigana, as MTGJSON's Japanese names carry them (the shared file's real source)
        ("幽（ゆう）霊（れい）暗（あん）殺（さつ）者（しゃ）、ケイヤ", "幽霊暗殺者、ケイヤ"),
        ("幽(ゆう)霊(れい)暗殺者、ケイヤ", "幽霊暗殺者、ケイヤ"),
        # full-width !, an ideographic space, as printed; typed half-width
        ("危ない! 火事だ! 敵だ!", "危ない！　火事だ！　敵だ！"),
        # half-width katakana (the voicing mark a separate character)
        ("ｹｲﾔ", "ケイヤ"),
        ("ｺﾞﾌﾞﾘﾝ", "ゴブリン"),
        # middle dot and long-vowel variants
        ("マナ･クリプト", "マナ・クリプト"),
        ("マナ·クリプト", "マナ・クリプト"),
        ("ボ－ラス", "ボーラス"),
        ("ボ-ラス", "ボーラス"),
        ("ボ―ラス", "ボーラス"),
        # full-width Latin letters, case, accents of Latin letters, apostrophes
        ("ＦＵＬＭＩＮＥ", "Fulmine"),
        ("geheimnisstoberer", "Geheimnisstöberer"),
        ("Vortici d’Etere", "Vortici d'Etere"),
        ("relampago", "Relámpago"),
        # Russian ё is written е
        ("Ёж", "ёж"),
        # split names, as English ones
        ("火/氷", "火 // 氷"),
        # runs of whitespace of any kind read as one space; none at either end
        ("Vortici  d'Etere", "Vortici d'Etere"),
        ("Vortici\td'Etere ", "Vortici d'Etere"),
        ("\u00a0Relámpago\u3000 \n", "Relámpago"),
        ("稲妻 \u2003 x", "稲妻 x"),
    ],
)
def test_typed_forms_fold_to_the_printed_name(typed, printed):
    assert fold_printed(typed) == fold_printed(printed)


@pytest.mark.parametrize(
    "one, other",
    [
        ("ガ", "カ"),  # a voiced kana is another letter
        ("й", "и"),  # so is the Cyrillic short i
        ("稲妻", "稲"),  # never a prefix
        ("マナ・クリプト", "マナクリプト"),  # a dot is not dropped
    ],
)
def test_different_names_stay_different(one, other):
    assert fold_printed(one) != fold_printed(other)


def test_english_folding_is_untouched():
    # the shipped legality history is keyed by fold_name: it folds as before
    assert fold_name("Lim-Dûl's Vault") == "lim-dul's vault"
    assert fold_name("ガ") == "カ"


def test_script_of():
    assert script_of("稲妻") == "cjk"
    assert script_of("번개") == "cjk"
    assert script_of("Молния") == "cyrillic"
    assert script_of("Relámpago") == "latin"


# `fold_printed` folds names of one script's words without `_fold`'s steps: each class's
# characters, alone and in words, must fold exactly as `_fold` folds them.
_CLASSES = dict(zip(("cjk", "cyrillic", "latin-1"), printed._plain_names()))


def _members(matches) -> list[str]:
    return [chr(c) for c in range(0x20, 0xE000) if matches(chr(c))]


_MEMBERS = {script: _members(matches) for script, matches in _CLASSES.items()}


@pytest.mark.parametrize("script", sorted(_CLASSES))
def test_each_plain_character_folds_as_the_steps_fold_it(script):
    members = _MEMBERS[script]
    assert len(members) > 20
    wrong = [ch for ch in members if fold_printed.__wrapped__(ch) != printed._fold(ch)]
    assert not wrong


@pytest.mark.parametrize("script", sorted(_CLASSES))
@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_plain_names_fold_as_the_steps_fold_them(script, data):
    members = _MEMBERS[script]
    # the first few hundred (ASCII, Latin-1, kana) most often, any member besides
    letters = st.one_of(
        st.sampled_from(members[:300]), st.integers(0, len(members) - 1).map(members.__getitem__)
    )
    words = data.draw(st.lists(st.text(letters, min_size=1, max_size=8), min_size=1, max_size=4))
    name = " ".join(words)
    assert _CLASSES[script](name)
    assert fold_printed.__wrapped__(name) == printed._fold(name)


@pytest.mark.parametrize(
    "name, folded",
    [
        ("稲妻", "稲妻"),
        ("번개 화살", "번개 화살"),
        ("Молния", "молния"),
        ("Éclair de Glace", "eclair de glace"),
        ("Straße", "strasse"),  # casefold, as _fold
        ("Øde", "øde"),  # ø is a letter of its own, not an accented o
    ],
)
def test_plain_names_fold(name, folded):
    assert fold_printed(name) == folded
