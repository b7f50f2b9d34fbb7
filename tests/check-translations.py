#!/usr/bin/env python3
"""Checks every translation of po/LINGUAS: msgfmt --check accepts it (c-format
placeholders of the same kinds in the same order, plural forms, header), and,
merged with the messages the sources have now, it has no untranslated and no
fuzzy message. A message added or changed in the sources fails this test
until it is translated:

    meson compile -C BUILD cugi-1.0-update-po    # then translate po/LANG.po

    check-translations.py SOURCE_ROOT MSGFMT MSGMERGE MSGATTRIB XGETTEXT [XGETTEXT_ARGUMENT...]
"""

import importlib
import pathlib
import re
import subprocess
import sys
import tempfile

potfiles = importlib.import_module('check-potfiles')


def statistics(msgfmt, catalogue):
    """msgfmt --check's problems with @catalogue, then its numbers of
    untranslated and fuzzy messages."""
    run = subprocess.run([msgfmt, '--check', '--statistics', '--output-file', '/dev/null',
                          str(catalogue)], capture_output=True, text=True, check=False)
    counts = {kind: int(number) for number, kind in
              re.findall(r'(\d+) (translated|fuzzy|untranslated)', run.stderr)}
    problems = [] if run.returncode == 0 else run.stderr.splitlines()
    return problems, counts.get('translated', 0), counts.get('untranslated', 0), counts.get('fuzzy', 0)


def lacking(msgattrib, merged):
    """The msgids of @merged that are untranslated or fuzzy."""
    return [line for selection in ('--untranslated', '--only-fuzzy')
            for line in subprocess.run([msgattrib, '--no-obsolete', '--no-wrap', selection, str(merged)],
                                       capture_output=True, text=True, check=True).stdout.splitlines()
            if line.startswith('msgid ') and line != 'msgid ""']


def main(argv):
    root = pathlib.Path(argv[1])
    msgfmt, msgmerge, msgattrib, xgettext = argv[2:6]
    xgettext_arguments = argv[6:]
    languages = (root / 'po' / 'LINGUAS').read_text().split()
    failures = []
    if not languages:
        failures.append('po/LINGUAS lists no language')

    with tempfile.TemporaryDirectory() as scratch:
        pot = pathlib.Path(scratch) / 'cugi.pot'
        failures += ['xgettext: ' + problem
                     for problem in potfiles.run_xgettext(root, xgettext, xgettext_arguments, pot)]
        for language in languages:
            catalogue = root / 'po' / f'{language}.po'
            problems, translated, untranslated, fuzzy = statistics(msgfmt, catalogue)
            failures += [f'{language}.po: {problem}' for problem in problems]
            print(f'{language}.po: {translated} translated, {fuzzy} fuzzy, {untranslated} untranslated')
            if untranslated or fuzzy:
                failures.append(f'{language}.po has {untranslated} untranslated and {fuzzy} fuzzy messages')

            merged = pathlib.Path(scratch) / f'{language}.po'
            subprocess.run([msgmerge, '--quiet', '--output-file', str(merged), str(catalogue), str(pot)],
                           check=True)
            _, _, untranslated, fuzzy = statistics(msgfmt, merged)
            if untranslated or fuzzy:
                failures.append(f'{language}.po lacks {untranslated + fuzzy} messages the sources have '
                                f'now ({untranslated} new, {fuzzy} changed): run `meson compile -C BUILD '
                                f'cugi-1.0-update-po` and translate them:')
                failures += ['  ' + msgid for msgid in lacking(msgattrib, merged)]

    for failure in failures:
        print(failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
