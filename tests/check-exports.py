#!/usr/bin/env python3
"""Checks the ABI of libcugi: it exports only cugi_ symbols, and (given the
GIR) every function the API declares is exported.

    check-exports.py NM LIBRARY [GIR]
"""

import subprocess
import sys
import xml.etree.ElementTree as ET

CORE = 'http://www.gtk.org/introspection/core/1.0'
C = 'http://www.gtk.org/introspection/c/1.0'


def exported_symbols(nm, library):
    out = subprocess.run([nm, '-D', '--defined-only', library],
                         check=True, capture_output=True, text=True).stdout
    # "ADDRESS TYPE NAME"; versioned names carry "@VERSION".
    return {line.split()[-1].split('@')[0] for line in out.splitlines() if line.strip()}


def declared_functions(gir):
    root = ET.parse(gir).getroot()
    tags = ('function', 'method', 'constructor')
    return {node.get(f'{{{C}}}identifier')
            for tag in tags
            for node in root.iter(f'{{{CORE}}}{tag}')
            if node.get(f'{{{C}}}identifier')}


def main(argv):
    nm, library = argv[1], argv[2]
    symbols = exported_symbols(nm, library)
    failures = []

    foreign = sorted(s for s in symbols if not s.startswith('cugi_'))
    if foreign:
        failures.append('exported without the cugi_ prefix: ' + ', '.join(foreign))
    if 'cugi_init' not in symbols:
        failures.append('cugi_init is not exported: is this libcugi?')

    if len(argv) > 3:
        missing = sorted(declared_functions(argv[3]) - symbols)
        if missing:
            failures.append('declared in the API but not exported (mark them '
                            'CUGI_AVAILABLE_IN_x_y): ' + ', '.join(missing))

    for failure in failures:
        print(failure, file=sys.stderr)
    print(f'{len(symbols)} symbols exported, {len(failures)} problems')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
