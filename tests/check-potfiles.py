#!/usr/bin/env python3
"""Checks po/POTFILES.in against the sources: every C file that marks strings
for translation is listed, every listed file exists, and the list is sorted.

    check-potfiles.py SOURCE_ROOT
"""

import pathlib
import re
import sys

MARKED = re.compile(r'\b(?:N_|C_|NC_|g_dngettext|ngettext|_)\s*\(\s*"')


def main(argv):
    root = pathlib.Path(argv[1])
    listed = [line.strip() for line in (root / 'po' / 'POTFILES.in').read_text().splitlines()
              if line.strip() and not line.startswith('#')]
    marking = sorted(str(path.relative_to(root))
                     for path in (root / 'cugi').rglob('*.c')
                     if MARKED.search(path.read_text(errors='replace')))
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

    for failure in failures:
        print(failure, file=sys.stderr)
    print(f'{len(marking)} files mark strings, {len(listed)} listed, {len(failures)} problems')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
