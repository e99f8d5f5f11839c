#!/usr/bin/env python3
"""Lists the public declarations of the library products that have no `///` doc comment.

Usage: scripts/undocumented.py [--count] [TARGET ...]   (default: HyzerDomain HyzerKit HyzerSync HyzerEngine)

A declaration is public when it says `public` or `open`, or when it stands where Swift makes it
public without saying so: a case of a public enum, a requirement of a public protocol, a member
of a `public extension`. Members of a non-public type are not counted, nor is anything inside a
function or property body. A declaration is documented when the line before it (attribute lines
and `#if` lines aside) is a `///` comment or ends a `/** … */` block. This reads lines, not Swift's
syntax tree: it assumes the package's formatting (swift-format, braces on the declaration's line).
Exits 1 when any declaration is undocumented, 0 otherwise (docs/embedding.md, "API docs").
"""

import pathlib
import re
import sys

DEFAULT_TARGETS = ["HyzerDomain", "HyzerKit", "HyzerSync", "HyzerEngine"]

MODIFIERS = {
    "public", "open", "internal", "private", "fileprivate", "package", "static", "class", "final",
    "convenience", "required", "override", "mutating", "nonmutating", "nonisolated", "indirect",
    "lazy", "dynamic", "weak", "unowned", "consuming", "borrowing", "distributed", "isolated",
}
TYPE_KEYWORDS = {"struct", "class", "enum", "actor", "protocol", "extension"}
MEMBER_KEYWORDS = {"func", "var", "let", "init", "subscript", "typealias", "case", "associatedtype", "deinit"}


def strip_strings(line: str) -> str:
    """The line without string literals and without a trailing `//` comment, so braces count true."""
    line = re.sub(r'"(?:\\.|[^"\\])*"', '""', line)
    index = line.find("//")
    return line if index < 0 else line[:index]


def parse_declaration(line: str):
    """(modifiers, keyword, text) when the line declares something, else None."""
    text = re.sub(r"^(@\w+(\([^)]*\))?\s*)+", "", line.strip())
    words = re.findall(r"[A-Za-z_]\w*(?:\([^)]*\))?", text)
    modifiers = []
    for position, word in enumerate(words):
        bare = word.split("(")[0]
        if bare == "class":
            following = words[position + 1].split("(")[0] if position + 1 < len(words) else ""
            if following in MEMBER_KEYWORDS or following in MODIFIERS:
                modifiers.append(word)  # `class func`, `class var`
                continue
            return modifiers, "class", text
        if bare in MODIFIERS:
            modifiers.append(word)
            continue
        if bare in TYPE_KEYWORDS or bare in MEMBER_KEYWORDS:
            return modifiers, bare, text
        return None
    return None


def documented(lines, index) -> bool:
    """Whether a doc comment stands right above line `index` (attributes and `#if` aside)."""
    i = index - 1
    while i >= 0:
        previous = lines[i].strip()
        if previous.startswith("@") or previous.startswith("#if") or previous.startswith("#else") \
                or previous.startswith("#endif") or previous.startswith("#elseif"):
            i -= 1
            continue
        return previous.startswith("///") or previous.endswith("*/")
    return False


def scan(path: pathlib.Path):
    """Yields (line number, declaration, is documented) for each public declaration in the file."""
    lines = path.read_text(encoding="utf-8").splitlines()
    # Each context: (kind, members public, members implicitly public).
    stack = [("type", True, False)]
    pending = None
    in_multiline_string = False
    for index, raw in enumerate(lines):
        if raw.count('"""') % 2 == 1:
            in_multiline_string = not in_multiline_string
            continue
        if in_multiline_string:
            continue
        stripped = raw.strip()
        if stripped.startswith("//") or stripped.startswith("*") or stripped.startswith("/*"):
            continue
        code = strip_strings(raw)
        kind, members_public, implicit = stack[-1]
        declaration = parse_declaration(code) if kind == "type" else None
        if declaration is not None:
            modifiers, keyword, text = declaration
            bare = {m.split("(")[0] for m in modifiers}
            explicit_public = "public" in bare or "open" in bare
            restricted = bare & {"private", "fileprivate", "internal", "package"} or any(
                m in ("private", "fileprivate", "internal", "package") for m in modifiers)
            is_public = members_public and (explicit_public or (implicit and not restricted))
            if keyword == "extension":
                pending = ("type", True, explicit_public)
            elif keyword in TYPE_KEYWORDS:
                pending = ("type", is_public, is_public and keyword in ("enum", "protocol"))
                if keyword == "protocol":
                    pending = ("protocol", is_public, is_public)
            else:
                pending = ("code", False, False)
            if keyword == "case" and stack[-1][0] == "type" and not implicit and not explicit_public:
                is_public = False
            if is_public and keyword not in ("extension", "deinit"):
                yield index + 1, raw.strip().rstrip(" {"), documented(lines, index)
        for character in code:
            if character == "{":
                if pending is not None:
                    context = pending
                    if context[0] == "protocol":
                        context = ("type", context[1], context[2])
                    stack.append(context)
                    pending = None
                else:
                    stack.append(("code", False, False))
            elif character == "}":
                if len(stack) > 1:
                    stack.pop()
        if declaration is not None and pending is not None and pending[0] == "code" and "{" not in code:
            # A stored property or a requirement: its line ends the declaration.
            if not code.rstrip().endswith(("(", ",", "->", "=")):
                pending = None


def main() -> int:
    arguments = sys.argv[1:]
    count_only = "--count" in arguments
    targets = [a for a in arguments if not a.startswith("--")] or DEFAULT_TARGETS
    root = pathlib.Path(__file__).resolve().parent.parent / "Sources"
    missing_total = 0
    for target in targets:
        total = 0
        missing = []
        for path in sorted((root / target).rglob("*.swift")):
            for number, text, is_documented in scan(path):
                total += 1
                if not is_documented:
                    missing.append(f"{path.relative_to(root.parent)}:{number}: {text}")
        if not count_only:
            for entry in missing:
                print(entry)
        print(f"{target}: {total - len(missing)} of {total} public declarations documented, {len(missing)} without")
        missing_total += len(missing)
    return 1 if missing_total else 0


if __name__ == "__main__":
    sys.exit(main())
