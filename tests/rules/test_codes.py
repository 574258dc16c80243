"""The problem-code registry (validator/codes.py) is the one list of codes: every code the
source can emit is registered with the severities it is raised at, nothing registered is
unused, real validations only report registered codes, and the table of docs/report.md is
the one generated from it (scripts/build_code_table.py).

The source scan reads validator/ with `ast`. A code reaches a report through:
- `Problem(code, message, citation, severity, ...)` (positional or keywords);
- `ParseIssue(line, message, text, code)` (severity: info when in NOTE_CODES, warning when
  in WARNING_CODES, else error;
  resolve.py turns each into a Problem), and ParseIssue's own default code;
- helpers that pass one of their parameters on as a Problem's code (`_info(code, ...)`,
  `_supplementary(size_code=..., invalid_code=...)`), found by following the parameter;
- a local name assigned a literal (`code = "a" if ... else "b"`, `code, rule = (...)`);
- an event report row, `dict(..., code="unreadable", severity="error", ...)`;
- code sets and comparisons (`NOTE_CODES`, `_POOL_CODES`, `p.code == "..."`): not emitted
  there, but a misspelt code in one would silently never match.
"""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from support import load_cards

from validator.codes import CODES, SEVERITIES, Code, lookup

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "validator"
PAGE = ROOT / "docs" / "report.md"

# Severity names as the source writes them (model.ERROR or Severity.ERROR).
_SEVERITY_NAMES = {"ERROR": "error", "WARNING": "warning", "INFO": "info"}
#: Code arguments that are not literals and are not followed: resolve.py copies each
#: ParseIssue's code into its Problem, and ParseIssue codes are scanned where they are made.
_DYNAMIC_OK = {("validator/rules/resolve.py", "issue.code")}
#: (callee, positional index of its code, index of its severity or None).
_MAKERS = {"Problem": (0, 3), "ParseIssue": (3, None)}


@dataclass
class Scan:
    """What the source scan found: each code with the severities it is raised at (empty when
    only referenced), and the code arguments it could not read."""

    raised: dict[str, set[str]] = field(default_factory=dict)
    referenced: dict[str, set[str]] = field(default_factory=dict)  # code -> where
    parse_codes: set[str] = field(default_factory=set)
    note_codes: set[str] = field(default_factory=set)
    warning_codes: set[str] = field(default_factory=set)
    unresolved: set[tuple[str, str]] = field(default_factory=set)

    def raise_(self, code: str, severities: set[str], where: str) -> None:
        self.raised.setdefault(code, set()).update(severities)
        self.referenced.setdefault(code, set()).add(where)

    def refer(self, code: str, where: str) -> None:
        self.referenced.setdefault(code, set()).add(where)


def _strings(node: ast.AST | None) -> set[str] | None:
    """The string literals an expression can be: a literal, either branch of `a if c else
    b`, a set/frozenset/tuple of literals; None when it is anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, ast.IfExp):
        a, b = _strings(node.body), _strings(node.orelse)
        return a | b if a is not None and b is not None else None
    if isinstance(node, (ast.Set, ast.Tuple, ast.List)):
        parts = [_strings(e) for e in node.elts]
        return set().union(*parts) if all(p is not None for p in parts) else None
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("frozenset", "set")
        and len(node.args) == 1
    ):
        return _strings(node.args[0])
    return None


def _severities(node: ast.AST | None, func: ast.AST | None = None) -> set[str] | None:
    """The severities an argument can be (absent: Problem's default, error), through a local
    assigned one in the function; None when it is anything else."""
    if node is None:
        return {"error"}
    if isinstance(node, ast.IfExp):
        a, b = _severities(node.body, func), _severities(node.orelse, func)
        return a | b if a is not None and b is not None else None
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)
    if name in _SEVERITY_NAMES:
        return {_SEVERITY_NAMES[name]}
    if isinstance(node, ast.Name) and func is not None:
        values = [_severities(value) for value in _assigned(func, node.id)]
        if values and all(v is not None for v in values):
            return set().union(*values)  # type: ignore[arg-type]
    return None


def _assigned(func: ast.AST, name: str) -> list[ast.AST]:
    """The values a function assigns to a plain local name."""
    return [
        node.value
        for node in ast.walk(func)
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
    ]


def _argument(call: ast.Call, index: int | None, name: str) -> ast.AST | None:
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    if index is not None and index < len(call.args):
        return call.args[index]
    return None


def _local_values(func: ast.AST | None, name: str) -> set[str] | None:
    """The literals assigned to `name` in a function, through `a, b = (x, y)` and either
    branch of a conditional of tuples; None when some assignment is not literal."""
    if func is None:
        return None
    found: set[str] = set()
    seen = False
    for node in ast.walk(func):
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if isinstance(target, ast.Name) and target.id == name:
                values = _strings(node.value)
            elif isinstance(target, ast.Tuple) and any(
                isinstance(e, ast.Name) and e.id == name for e in target.elts
            ):
                index = [getattr(e, "id", None) for e in target.elts].index(name)
                branches = (
                    [node.value.body, node.value.orelse]
                    if isinstance(node.value, ast.IfExp)
                    else [node.value]
                )
                parts = [
                    _strings(b.elts[index]) if isinstance(b, ast.Tuple) else None for b in branches
                ]
                values = set().union(*parts) if all(p is not None for p in parts) else None
            else:
                continue
            seen = True
            if values is None:
                return None
            found |= values
    return found if seen else None


def _parameters(func: ast.FunctionDef) -> list[str]:
    return [a.arg for a in func.args.posonlyargs + func.args.args]


def scan(root: Path = SOURCE) -> Scan:
    result = Scan()
    trees = {
        str(p.relative_to(root.parent)): ast.parse(p.read_text(encoding="utf-8"))
        for p in sorted(root.rglob("*.py"))
    }
    parents: dict[ast.AST, ast.AST] = {}
    for tree in trees.values():
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                parents[child] = node

    def enclosing(node: ast.AST) -> ast.FunctionDef | None:
        while node in parents:
            node = parents[node]
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return node  # type: ignore[return-value]
        return None

    # Helpers: a function whose parameter becomes a Problem's code is a maker too, with that
    # parameter's position; followed until no new helper appears (helpers of helpers).
    makers: dict[str, dict[str, tuple[int | None, set[str] | None]]] = {
        "Problem": {"code": (0, None)},
        "ParseIssue": {"code": (3, None)},
    }
    sites: list[tuple[str, ast.Call, str, ast.AST, set[str] | None]] = []
    changed = True
    while changed:
        changed, sites = False, []
        for path, tree in trees.items():
            for call in ast.walk(tree):
                if not isinstance(call, ast.Call):
                    continue
                callee = getattr(call.func, "id", getattr(call.func, "attr", None))
                for param, (index, sev) in makers.get(callee, {}).items():
                    arg = _argument(call, index, param)
                    if arg is None:
                        continue
                    if callee == "Problem":
                        sev = _severities(_argument(call, 3, "severity"), enclosing(call))
                    sites.append((path, call, callee, arg, sev))
                    func = enclosing(call)
                    if (
                        isinstance(arg, ast.Name)
                        and func is not None
                        and arg.id in _parameters(func) + [a.arg for a in func.args.kwonlyargs]
                        and callee in ("Problem", "ParseIssue") | makers.keys()
                    ):
                        params = _parameters(func)
                        position = params.index(arg.id) if arg.id in params else None
                        entry = (position, sev)
                        if makers.get(func.name, {}).get(arg.id) != entry:
                            makers.setdefault(func.name, {})[arg.id] = entry
                            changed = True

    for path, call, callee, arg, sev in sites:
        where = f"{path}:{call.lineno}"
        func = enclosing(call)
        if (
            isinstance(arg, ast.Name)
            and func is not None
            and func.name in makers
            and arg.id in makers[func.name]
        ):
            continue  # a helper's parameter: its callers' literals are the codes
        values = _strings(arg)
        if values is None and isinstance(arg, ast.Name):
            values = _local_values(func, arg.id)
        if values is None:
            result.unresolved.add((path, ast.unparse(arg)))
            continue
        for code in values:
            if callee == "ParseIssue":
                result.parse_codes.add(code)
                result.refer(code, where)
            else:
                result.raise_(code, sev or set(), where)

    for path, tree in trees.items():
        for node in ast.walk(tree):
            where = f"{path}:{getattr(node, 'lineno', 0)}"
            # ParseIssue's default code (model.py): `code: str = "unreadable-line"`.
            if isinstance(node, ast.ClassDef) and node.name == "ParseIssue":
                for stmt in node.body:
                    if (
                        isinstance(stmt, ast.AnnAssign)
                        and getattr(stmt.target, "id", "") == "code"
                        and (values := _strings(stmt.value))
                    ):
                        result.parse_codes |= values
                        for code in values:
                            result.refer(code, where)
            # Sets of problem codes at module level: NOTE_CODES, _POOL_CODES, DATE_NOTES (the
            # service's dicts of HTTP error codes, _HTTP_CODES, are another namespace).
            if (
                isinstance(node, ast.Assign)
                and isinstance(parents.get(node), ast.Module)
                and not isinstance(node.value, ast.Dict)
            ):
                names = [getattr(t, "id", "") for t in node.targets]
                if any(n.endswith(("_CODES", "_NOTES")) for n in names):
                    values = _strings(node.value)
                    assert values is not None, f"{where}: {names[0]} is not a set of literals"
                    if "NOTE_CODES" in names:
                        result.note_codes |= values
                    if "WARNING_CODES" in names:
                        result.warning_codes |= values
                    for code in values:
                        result.refer(code, where)
            # Comparisons with a problem's code: `p.code == "x"`, `p.code in {...}` (not an
            # exception's `exc.code`: library error codes, validator/errors.py, are another
            # namespace).
            if (
                isinstance(node, ast.Compare)
                and isinstance(node.left, ast.Attribute)
                and node.left.attr == "code"
                and ast.unparse(node.left.value) != "exc"
            ):
                for comparator in node.comparators:
                    for code in _strings(comparator) or ():
                        result.refer(code, where)
            # An event report's own row: dict(base, code="unreadable", severity="error").
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "dict":
                code = _strings(_argument(node, None, "code"))
                severity = _strings(_argument(node, None, "severity"))
                if code and code != {""} and severity:
                    for c in code:
                        result.raise_(c, severity, where)
    for code in result.parse_codes:
        result.raise_(code, {_parse_severity(result, code)}, "ParseIssue")
    return result


def _parse_severity(scan: Scan, code: str) -> str:
    """The severity resolve.py gives a parse issue of this code."""
    if code in scan.note_codes:
        return "info"
    return "warning" if code in scan.warning_codes else "error"


SCAN = scan()


def test_the_scan_finds_the_codes_of_every_kind_of_site() -> None:
    # One of each way a code is written, so a scan that stops seeing one kind fails here
    # rather than passing with fewer codes.
    expected = {
        "banned": {"error"},
        "duplicate-listing": {"info"},  # literal; via _info
        "sticker-sheets": {"info"},
        "sticker-sheets-invalid": {"error"},  # keywords
        "oathbreaker-missing": {"error"},  # tuple assigned to a local
        "deck-too-large": {"error"},  # conditional assigned to a local
        "ignored-field": {"info"},
        "unreadable-line": {"error"},  # ParseIssue
        "unreadable": {"error"},  # an event report row
        "legality-date-uncertain": {"info", "warning"},
    }
    for code, severities in expected.items():
        assert SCAN.raised.get(code) == severities, code


def test_every_code_the_source_uses_is_registered() -> None:
    missing = {code: sorted(where) for code, where in SCAN.referenced.items() if code not in CODES}
    assert not missing, f"codes used in validator/ but not in validator/codes.py: {missing}"


def test_every_registered_code_is_used() -> None:
    stale = sorted(set(CODES) - set(SCAN.raised))
    assert not stale, f"codes in validator/codes.py that nothing in validator/ raises: {stale}"


def test_registered_severities_are_the_ones_the_source_raises() -> None:
    for code, severities in SCAN.raised.items():
        if code in CODES:
            assert set(CODES[code].severities) == severities, code


def test_no_code_argument_the_scan_cannot_read() -> None:
    # A code computed some new way would escape the registry: write it as a literal (or a
    # helper's parameter), or add the site here with the reason it is safe.
    assert SCAN.unresolved == _DYNAMIC_OK


def test_note_codes_are_the_registered_info_input_codes() -> None:
    # NOTE_CODES decides a parse issue's severity (resolve.py): the registry must agree.
    assert SCAN.note_codes
    for code in SCAN.parse_codes:
        assert CODES[code].severity == _parse_severity(SCAN, code), code


def test_registry_entries_are_well_formed() -> None:
    for key, entry in CODES.items():
        assert key == entry.code
        assert entry.severity in SEVERITIES and set(entry.severities) <= set(SEVERITIES)
        assert entry.citation and entry.meaning and "\n" not in entry.meaning, key
        assert entry.code == entry.code.lower() and " " not in entry.code, key


def test_lookup() -> None:
    assert lookup("too-many-copies") == CODES["too-many-copies"]
    assert lookup("too-many-copies").citation == "CR 100.2a"
    with pytest.raises(KeyError, match="no-such-code.*not a deckcheck problem code"):
        lookup("no-such-code")


def test_code_rejects_a_severity_that_is_not_one() -> None:
    with pytest.raises(ValueError, match="fatal"):
        Code("x", "fatal", "CR 100.1", "x")


# Real validations: every problem reported is registered, at a severity the registry allows.
_CARDS = load_cards("cards_core.json")

_DECKS = [
    ("modern", "4 Lightning Bolt\n4 Lightning Bolt\n20 Mountain\n1 No Such Card\n4\n"),
    ("modern", "4 Lightning Bolt\n56 Mountain\n\nSideboard\n16 Mountain\n"),
    ("commander", "Commander\n1 Lightning Bolt\n\nDeck\n4 Lightning Bolt\n94 Mountain\n"),
    ("vintage", "2 Black Lotus\n58 Island\n"),
    ("commander", "98 Mountain\n"),
]


@pytest.mark.parametrize("fmt,text", _DECKS)
def test_real_validations_report_only_registered_codes(core_db: str, fmt: str, text: str) -> None:
    from validator.api import open_db, validate

    report = validate(text, fmt, cards=open_db(core_db))
    assert report.problems
    for problem in report.problems:
        entry = lookup(problem.code)
        assert problem.severity.value in entry.severities, (problem.code, problem.severity)


def test_real_validations_cover_several_areas(core_db: str) -> None:
    from validator.api import open_db, validate

    cards = open_db(core_db)
    seen = {p.code for fmt, text in _DECKS for p in validate(text, fmt, cards=cards).problems}
    assert {
        "too-many-copies",
        "unknown-card",
        "unreadable-line",
        "sideboard-too-large",
        "deck-too-small",
    } <= seen


def _build_module():
    spec = importlib.util.spec_from_file_location(
        "build_code_table", ROOT / "scripts" / "build_code_table.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_docs_table_is_the_generated_one() -> None:
    build = _build_module()
    table = build.render()
    page = PAGE.read_text(encoding="utf-8")
    assert build.replaced(page, table) == page, (
        "docs/report.md's problem-code table is stale: run python scripts/build_code_table.py"
    )
    for code in CODES:
        assert f"| `{code}` |" in table


def test_build_script_check_mode(tmp_path: Path) -> None:
    out = tmp_path / "report.md"
    out.write_text(
        "# Report\n\n<!-- problem-codes:start -->\nold\n<!-- problem-codes:end -->\nafter\n",
        encoding="utf-8",
    )
    script = str(ROOT / "scripts" / "build_code_table.py")
    env_run = dict(capture_output=True, text=True, cwd=ROOT)
    checked = subprocess.run([sys.executable, script, "--output", str(out), "--check"], **env_run)
    assert checked.returncode == 1 and "stale" in checked.stderr
    written = subprocess.run([sys.executable, script, "--output", str(out)], **env_run)
    assert written.returncode == 0, written.stderr
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# Report\n") and text.endswith("after\n")
    assert _build_module().render() in text
    again = subprocess.run([sys.executable, script, "--output", str(out), "--check"], **env_run)
    assert again.returncode == 0, again.stderr


def test_the_codes_of_unknown_names_are_the_ones_a_sync_bringing_the_card_settles():
    """`Code.unknown_names` marks the codes whose cards are names the card data does not know:
    the re-check judges a deck with one again after each sync that brings such a card."""
    from validator.codes import UNKNOWN_NAMES

    newer = {
        code
        for code, entry in CODES.items()
        if entry.undecidable and "when the card is newer than the card data" in entry.settled_by
    }
    assert {"unknown-card", "commander-unknown"} <= newer <= UNKNOWN_NAMES
    # Warnings too: a dated list's or points list's unknown name counts once the card comes.
    assert {"list-unknown-card", "points-unknown-card"} <= UNKNOWN_NAMES
    for code in UNKNOWN_NAMES:
        meaning = CODES[code].meaning
        assert "no card" in meaning or "no known card" in meaning or "does not know" in meaning
