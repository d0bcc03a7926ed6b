"""The README's guidance tables say what ``migrate`` does per section; the words must match the rules.

Each row's last cell is a list of ``<word> ID, ID; <word> ID`` parts. The word is decided by the
rule's own metadata and ``migrate``'s plan, so a rule whose safety level changes, or a row that
forgets a rule its "covered by" cell names, fails here.
"""

from __future__ import annotations

import re

from trtcodemod.registry import all_rules
from support import REPO

README = REPO / "README.md"
RULE_ID = re.compile(r"TRT\d{3}")
#: The rules whose "none" fix migrate carries out as a lift (state, optional inputs).
LIFTED = {"TRT703", "TRT721"}
WORDS = ("fixed", "verified", "proved", "lifted", "named")


def expected_word(rule_id: str) -> str:
    """What migrate does with a located finding of ``rule_id`` (see ``migrate/plan.py`` ``decide``)."""
    info = {i.id: i for i in all_rules()}[rule_id]
    level = info.fix.value
    if rule_id in LIFTED:
        return "lifted"
    if level == "safe":
        return "fixed"
    if level == "none":
        return "named"
    return "proved" if info.proof is not None else "verified"


def guidance_rows() -> list[tuple[str, str, str]]:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Guidance coverage"):text.index("## Migrate a model")]
    rows = []
    for line in section.splitlines():
        if not line.startswith("| ") or line.startswith("| section") or line.startswith("| ---"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        assert len(cells) == 3, f"a guidance row needs three cells: {line}"
        rows.append((cells[0], cells[1], cells[2]))
    return rows


def said(cell: str) -> dict[str, str]:
    """``{rule: word}`` from a migrate cell; a parenthesis is a remark, not a claim."""
    claims: dict[str, str] = {}
    for part in re.sub(r"\([^)]*\)", "", cell).split(";"):
        words = part.split()
        if not words or words[0] not in WORDS:
            continue
        for rule_id in RULE_ID.findall(part):
            claims[rule_id] = words[0]
    return claims


def test_every_section_has_a_migrate_verdict() -> None:
    rows = guidance_rows()
    assert len(rows) >= 40  # four documents' sections
    for section, _covered, cell in rows:
        assert cell, f"{section}: no migrate verdict"
        assert said(cell) or cell.startswith(("nothing to fix", "named by")), f"{section}: {cell!r}"


def test_each_word_matches_what_migrate_does_with_the_rule() -> None:
    wrong = []
    for section, _covered, cell in guidance_rows():
        for rule_id, word in said(cell).items():
            if word != expected_word(rule_id):
                wrong.append(f"{section}: {rule_id} is '{expected_word(rule_id)}', the README says '{word}'")
    assert not wrong, "\n".join(wrong)


def test_every_rule_a_row_covers_has_its_verdict() -> None:
    missing = []
    for section, covered, cell in guidance_rows():
        for rule_id in set(RULE_ID.findall(covered)) - set(said(cell)) - set(RULE_ID.findall(cell)):
            missing.append(f"{section}: {rule_id}")
    assert not missing, "rules named in 'covered by' with no migrate verdict:\n" + "\n".join(missing)
