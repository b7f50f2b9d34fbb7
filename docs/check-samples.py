#!/usr/bin/python3
"""Runs the code samples of the guide pages, so that they stay true.

    check-samples.py gjs PAGE GJS
    check-samples.py vala PAGE VALAC MESON BUILD_ROOT

gjs: each ```js block of PAGE that is a whole module (it starts with an
import) runs under GJS and must exit 0; without a GPU the samples take
their no-GPU path. Each other block is a fragment of a program: it is
parsed, as the body of an async function after the page's imports, and
not run.

vala: the ```vala block with a main() is built with valac against the
build tree (its C compiled with -Werror=incompatible-pointer-types, as GCC 14
does by default) and run; then the ```meson block builds it once more, as
a Meson project finding cugi-1.0 through pkg-config, and that is run too.

Exit status: 0 when every sample passes, 1 otherwise, 77 (skipped) when a
tool is missing.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

TIMEOUT = 120


def blocks(page, language):
    with open(page, encoding='utf-8') as f:
        return re.findall(r'^```' + language + r'\n(.*?)^```$', f.read(), re.M | re.S)


def run(command, cwd, env=None):
    """Runs command; returns True when it exits 0, printing its output."""
    print('$', ' '.join(command), flush=True)
    result = subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            universal_newlines=True, timeout=TIMEOUT)
    print(result.stdout, end='')
    if result.returncode != 0:
        print('FAIL: exit status %d' % result.returncode)
    return result.returncode == 0


def check_gjs(page, gjs, scratch):
    samples = blocks(page, 'js')
    modules = [s for s in samples if s.startswith('import ')]
    if not modules:
        print('FAIL: %s has no whole module to run' % page)
        return False
    imports = ''.join(line + '\n' for line in modules[0].splitlines() if line.startswith('import '))
    ok = True
    for number, sample in enumerate(samples):
        path = os.path.join(scratch, 'sample%d.js' % number)
        with open(path, 'w', encoding='utf-8') as f:
            if sample in modules:
                f.write(sample)
            else:
                # Declared, never called: GJS parses the fragment only.
                f.write(imports + 'async function fragment() {\n' + sample + '}\n')
        ok = run([gjs, '-m', path], scratch) and ok
    return ok


def check_vala(page, valac, meson, build_root, scratch):
    programs = [s for s in blocks(page, 'vala') if re.search(r'^int main \(', s, re.M)]
    projects = blocks(page, 'meson')
    if len(programs) != 1 or len(projects) != 1:
        print('FAIL: %s should have one Vala program and one meson.build' % page)
        return False
    target = re.search(r"executable\('(\w+)', '([\w.-]+\.vala)'", projects[0])
    if target is None:
        print('FAIL: the meson.build of %s builds no Vala source' % page)
        return False
    name, source = target.groups()
    with open(os.path.join(scratch, source), 'w', encoding='utf-8') as f:
        f.write(programs[0])
    with open(os.path.join(scratch, 'meson.build'), 'w', encoding='utf-8') as f:
        f.write(projects[0])

    vapidir = os.path.join(build_root, 'cugi')
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(build_root, 'meson-uninstalled'),
               VALAFLAGS='--vapidir ' + vapidir)
    ok = (run([valac, '--pkg', 'cugi-1.0', '--vapidir', vapidir, '-X', '-Werror=incompatible-pointer-types',
               '-o', 'valac-sample', source], scratch, env) and
          run([os.path.join(scratch, 'valac-sample')], scratch, env))
    return (run([meson, 'setup', 'build'], scratch, env) and
            run([meson, 'compile', '-C', 'build'], scratch, env) and
            run([os.path.join(scratch, 'build', name)], scratch, env)) and ok


def main():
    language, page, tools = sys.argv[1], sys.argv[2], sys.argv[3:]
    missing = [tool for tool in tools[:2] if shutil.which(tool) is None]
    if missing:
        print('SKIP: %s not found' % ', '.join(missing))
        return 77
    with tempfile.TemporaryDirectory() as scratch:
        if language == 'gjs':
            ok = check_gjs(page, tools[0], scratch)
        else:
            ok = check_vala(page, tools[0], tools[1], os.path.abspath(tools[2]), scratch)
    print('OK: the samples of %s' % os.path.basename(page) if ok else 'FAIL: the samples of %s' % page)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
