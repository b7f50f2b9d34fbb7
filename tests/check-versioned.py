#!/usr/bin/env python3
"""Checks that cugi's public API says when each part of it appeared:

- every declaration in a public header (one guarded by "Only <cugi/cugi.h>
  can be included directly", plus any header named on the command line, such
  as generated ones) carries a versioned macro, CUGI_AVAILABLE_IN_x_y or
  CUGI_DEPRECATED_IN_x_y[_FOR (f)], never the unversioned
  CUGI_AVAILABLE_IN_ALL;
- every gtk-doc comment of a public name (a function, type, macro, property
  or signal the public headers name) has a "Since:" line;
- given the GIR, every function, type, constant, property and signal in it
  has a version (g-ir-scanner takes it from "Since:").

    check-versioned.py SOURCE_DIR [--gir GIR] [HEADER...]
    check-versioned.py SOURCE_DIR --fix VERSION

--fix marks what lacks a version as available in VERSION (e.g. 0.1): the
macro becomes CUGI_AVAILABLE_IN_x_y, the doc comment gains "Since: VERSION".
It rewrites each file at once, so that it can run while others edit the tree.
"""

import argparse
import pathlib
import re
import sys
import xml.etree.ElementTree as ET

PUBLIC_GUARD = 'Only <cugi/cugi.h> can be included directly'
# Where the macros are defined rather than used.
MACROS_HEADER = 'cugi-version-macros.h'

VERSIONED = (r'CUGI_AVAILABLE_IN_\d+_\d+'
             r'|CUGI_DEPRECATED_IN_\d+_\d+(?:_FOR\s*\([^()]*\))?')
DECORATOR = re.compile(r'(?:' + VERSIONED + r'|CUGI_AVAILABLE_IN_ALL'
                       r'|CUGI_DEPRECATED(?:_FOR\s*\([^()]*\))?'
                       r'|CUGI_UNAVAILABLE\s*\([^()]*\))\s*')
# A macro used as a statement of its own, with no ';' after it.
STATEMENT_MACRO = re.compile(r'(G_[A-Z_]+)\s*\(')
# Statement macros that declare exported functions.
DECLARING_MACROS = ('G_DECLARE_FINAL_TYPE', 'G_DECLARE_DERIVABLE_TYPE',
                    'G_DECLARE_INTERFACE')

# A gtk-doc comment: "/**" alone on its line, " * NAME:" next.
DOC_COMMENT = re.compile(r'^(?P<indent>[ \t]*)/\*\*[ \t]*\n'
                         r'(?P<body>(?:(?P=indent) \*(?!/).*\n)+?)'
                         r'(?P=indent) \*/', re.M)
DOC_NAME = re.compile(r' \* ([A-Za-z_]\w*)((?::{1,2}[\w-]+)?):')

CORE = '{http://www.gtk.org/introspection/core/1.0}'
GLIB = '{http://www.gtk.org/introspection/glib/1.0}'


def strip_comments(text):
    return re.sub(r'/\*.*?\*/|//[^\n]*', ' ', text, flags=re.S)


def strip_preprocessor(text):
    return re.sub(r'^[ \t]*#(?:[^\n]*\\\n)*[^\n]*', ' ', text, flags=re.M)


def closing_paren(text, start):
    """Index just past the parenthesis that closes the one at @start."""
    depth = 0
    for index in range(start, len(text)):
        if text[index] == '(':
            depth += 1
        elif text[index] == ')':
            depth -= 1
            if depth == 0:
                return index + 1
    return len(text)


def statements(text):
    """Yields (decorator or None, statement) for a header's top level."""
    code = strip_preprocessor(strip_comments(text))
    code = re.sub(r'\bG_(?:BEGIN|END)_DECLS\b', ' ', code)
    pos, decorator = 0, None
    while True:
        while pos < len(code) and code[pos].isspace():
            pos += 1
        if pos >= len(code):
            return
        match = DECORATOR.match(code, pos)
        if match:
            decorator = match.group(0).strip()
            pos = match.end()
            continue
        match = STATEMENT_MACRO.match(code, pos)
        if match:
            end = closing_paren(code, match.end() - 1)
            yield decorator, code[pos:end]
            pos, decorator = end, None
            if code[pos:pos + 1] == ';':
                pos += 1
            continue
        depth, end = 0, pos
        while end < len(code) and not (code[end] == ';' and depth == 0):
            depth += code[end] in '({'
            depth -= code[end] in ')}'
            end += 1
        yield decorator, code[pos:end]
        pos, decorator = end + 1, None


def declared_name(statement):
    """The function a statement declares, or None if it declares none."""
    macro = STATEMENT_MACRO.match(statement)
    if macro:
        if macro.group(1) not in DECLARING_MACROS:
            return None
        return statement[macro.end():].split(',')[1].strip() + '_get_type'
    if re.match(r'(?:typedef|struct|enum|union|static)\b', statement):
        return None
    name = re.search(r'(\w+)\s*\(', statement)
    return name.group(1) if name else None


def is_public_header(path):
    return PUBLIC_GUARD in path.read_text()


def uses_macros(header):
    """Whether @header's declarations use the macros, not define them."""
    return header.name != MACROS_HEADER


def public_names(headers):
    names = set()
    for header in headers:
        names.update(re.findall(r'[A-Za-z_]\w*', strip_comments(header.read_text())))
    return names


def check_declarations(header, failures):
    for decorator, statement in statements(header.read_text()):
        name = declared_name(statement)
        if name is None:
            continue
        if decorator is None:
            failures.append(f'{header}: {name} is declared without CUGI_AVAILABLE_IN_x_y')
        elif not re.fullmatch(VERSIONED, decorator):
            failures.append(f'{header}: {name} is declared with {decorator}, '
                            'not with the version it appeared in (CUGI_AVAILABLE_IN_x_y)')


def undated_doc_comments(text, names):
    """Yields the doc comments of public names that have no Since: line."""
    for comment in DOC_COMMENT.finditer(text):
        body = comment.group('body')
        first = body.splitlines()[0][len(comment.group('indent')):]
        name = DOC_NAME.match(first)
        if name and name.group(1) in names and not re.search(r'^\s*\* Since:', body, re.M):
            yield comment, name.group(1) + name.group(2)


def add_since(text, names, version):
    def dated(comment):
        indent, body = comment.group('indent'), comment.group('body')
        if body.splitlines()[-1].rstrip() != indent + ' *':
            body += indent + ' *\n'
        return f'{indent}/**\n{body}{indent} * Since: {version}\n{indent} */'

    pieces, pos = [], 0
    for comment, _ in undated_doc_comments(text, names):
        pieces += [text[pos:comment.start()], dated(comment)]
        pos = comment.end()
    return ''.join(pieces) + text[pos:]


def check_gir(gir, failures):
    root = ET.parse(gir).getroot()
    dated = ('function', 'method', 'constructor', 'class', 'record', 'enumeration',
             'bitfield', 'constant', 'callback', 'property', f'{GLIB}signal', 'boxed')
    for node in root.iter():
        tag = node.tag.replace(CORE, '')
        if tag not in dated or node.get('version'):
            continue
        # Class structs come with G_DECLARE_*_TYPE and have no comment.
        if node.get(f'{GLIB}is-gtype-struct-for'):
            continue
        failures.append(f'{gir}: {tag.replace(GLIB, "")} {node.get("name")} has no version '
                        '(add "Since:" to its doc comment)')


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument('source_dir', type=pathlib.Path)
    parser.add_argument('headers', nargs='*', type=pathlib.Path)
    parser.add_argument('--gir', type=pathlib.Path)
    parser.add_argument('--fix', metavar='VERSION')
    args = parser.parse_args(argv[1:])

    library_dir = args.source_dir / 'cugi'
    sources = sorted(library_dir.glob('*.c'))
    headers = [h for h in sorted(library_dir.glob('*.h')) + sorted(library_dir.glob('*.h.in'))
               if is_public_header(h)] + args.headers
    names = public_names(headers)

    if args.fix:
        macro = 'CUGI_AVAILABLE_IN_' + args.fix.replace('.', '_')
        for path in headers + sources:
            text = path.read_text()
            fixed = add_since(text, names, args.fix)
            if path in headers and uses_macros(path):
                fixed = re.sub(r'\bCUGI_AVAILABLE_IN_ALL\b', macro, fixed)
            if fixed != text:
                path.write_text(fixed)
                print(f'{path}: updated')
        return 0

    failures = []
    for header in filter(uses_macros, headers):
        check_declarations(header, failures)
    for path in headers + sources:
        for comment, name in undated_doc_comments(path.read_text(), names):
            failures.append(f'{path}: the doc comment of {name} has no "Since:" line')
    if args.gir:
        check_gir(args.gir, failures)

    for failure in failures:
        print(failure, file=sys.stderr)
    print(f'{len(headers)} public headers and {len(sources)} sources checked, '
          f'{len(failures)} problems')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
