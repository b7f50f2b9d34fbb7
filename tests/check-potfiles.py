#!/usr/bin/env python3
"""Checks the translatable messages of the sources:

- every C file under cugi/ that marks strings for translation is listed in
  po/POTFILES.in, every listed file exists, and the list is sorted;
- no message is built from a string literal and a macro, as in
  _("%" G_GSIZE_FORMAT " bytes"): xgettext keeps only the literal before the
  macro ("%"), so the catalogue never matches the message the program asks for;
- xgettext, run with the arguments of po/meson.build over po/POTFILES.in,
  prints no warning.

    check-potfiles.py SOURCE_ROOT XGETTEXT [XGETTEXT_ARGUMENT...]
"""

import pathlib
import re
import subprocess
import sys
import tempfile

MARKED = re.compile(r'\b(?:N_|C_|NC_|g_dngettext|ngettext|_)\s*\(\s*"')

# The keywords of po/meson.build and the (1-based) arguments that are messages.
MESSAGE_ARGUMENTS = {
    '_': (1,), 'N_': (1,), 'C_': (2,), 'NC_': (2,),
    'g_dcgettext': (2,), 'g_dngettext': (2, 3), 'g_dpgettext2': (3,),
}
CALL = re.compile(r'\b(' + '|'.join(MESSAGE_ARGUMENTS) + r')\s*\(')
# What a C argument is made of, one token at a time: a string or character
# literal, a comment, a bracket, a comma, or anything else up to one of those.
TOKEN = re.compile(r'''
    (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<char>'(?:[^'\\\n]|\\.)*')
  | (?P<comment>/\*.*?\*/|//[^\n]*)
  | (?P<space>\s+)
  | (?P<open>[([{])
  | (?P<close>[)\]}])
  | (?P<comma>,)
  | (?P<other>[^"'/\s()\[\]{},]+|/)
''', re.VERBOSE | re.DOTALL)


def call_arguments(text, start):
    """The arguments of the call whose '(' ends at @start, each as a list of
    (kind, text) tokens, comments and spaces left out."""
    arguments = [[]]
    depth = 0
    for match in TOKEN.finditer(text, start):
        kind = match.lastgroup
        if kind == 'open':
            depth += 1
        elif kind == 'close':
            if depth == 0:
                return arguments
            depth -= 1
        elif kind == 'comma' and depth == 0:
            arguments.append([])
            continue
        if kind not in ('comment', 'space'):
            arguments[-1].append((kind, match.group()))
    return arguments


def without_comments(text):
    """@text with its comments blanked (so that an example in a comment
    counts for nothing), line numbers kept."""
    return ''.join(re.sub(r'[^\n]', ' ', match.group()) if match.lastgroup == 'comment'
                   else match.group() for match in TOKEN.finditer(text))


def mixed_messages(path, text):
    """'file:line: message' for every message argument that joins string
    literals with anything else (a format macro, most often)."""
    found = []
    for call in CALL.finditer(text):
        arguments = call_arguments(text, call.end())
        for position in MESSAGE_ARGUMENTS[call.group(1)]:
            if position > len(arguments):
                continue
            tokens = arguments[position - 1]
            kinds = {kind for kind, _ in tokens}
            if 'string' in kinds and kinds != {'string'}:
                line = text.count('\n', 0, call.start()) + 1
                spelled = ' '.join(token for _, token in tokens)
                found.append(f'{path}:{line}: {call.group(1)}() message is not a plain '
                             f'string literal (format numbers with %lu and a cast, or into '
                             f'a string first): {spelled}')
    return found


def run_xgettext(root, xgettext, arguments, pot):
    """Writes the catalogue template of po/POTFILES.in to @pot; returns
    xgettext's warnings and errors."""
    run = subprocess.run([xgettext, *arguments, '--directory', str(root),
                          '--files-from', str(root / 'po' / 'POTFILES.in'),
                          '--output', str(pot)],
                         capture_output=True, text=True, check=False)
    problems = [line for line in run.stderr.splitlines() if line.strip()]
    if run.returncode != 0:
        problems.append(f'xgettext exited with {run.returncode}')
    return problems


def xgettext_problems(root, xgettext, arguments):
    """xgettext's warnings over po/POTFILES.in, and how many messages it found."""
    with tempfile.TemporaryDirectory() as scratch:
        pot = pathlib.Path(scratch) / 'cugi.pot'
        problems = run_xgettext(root, xgettext, arguments, pot)
        messages = pot.read_text().count('\nmsgid "') - 1 if pot.exists() else 0
    return problems, messages


def main(argv):
    root = pathlib.Path(argv[1])
    xgettext, xgettext_arguments = argv[2], argv[3:]
    listed = [line.strip() for line in (root / 'po' / 'POTFILES.in').read_text().splitlines()
              if line.strip() and not line.startswith('#')]
    sources = {str(path.relative_to(root)): without_comments(path.read_text(errors='replace'))
               for pattern in ('*.c', '*.h') for path in (root / 'cugi').rglob(pattern)}
    marking = sorted(name for name, text in sources.items() if MARKED.search(text))
    failures = []

    unlisted = sorted(set(marking) - set(listed))
    if unlisted:
        failures.append('mark strings for translation but are not in po/POTFILES.in: '
                        + ', '.join(unlisted))
    gone = [name for name in listed if not (root / name).is_file()]
    if gone:
        failures.append('listed in po/POTFILES.in but missing: ' + ', '.join(gone))
    if listed != sorted(listed):
        failures.append('po/POTFILES.in is not sorted')
    if not marking:
        failures.append('no source marks a string for translation: is the root right?')

    for name in listed:
        if (root / name).is_file():
            text = without_comments((root / name).read_text(errors='replace'))
            failures += mixed_messages(name, text)

    warnings, messages = xgettext_problems(root, xgettext, xgettext_arguments)
    failures += ['xgettext: ' + warning for warning in warnings]
    if messages == 0:
        failures.append('xgettext found no message')

    for failure in failures:
        print(failure, file=sys.stderr)
    print(f'{len(marking)} files mark strings, {len(listed)} listed, '
          f'{messages} messages, {len(failures)} problems')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
