#!/usr/bin/env python3
"""Checks cugi's layering (docs/overview.md, "Layers") from the built objects.

    check-layers.py [--nm NM] [--layers LAYERS]... BINARY...

Each BINARY is a library or program Meson built (libcugi, cugi-info,
libcugi-gst); its
objects are read from BINARY.p/, where Meson's ninja backend puts them. For
every object, nm tells the global symbols it defines and those it uses; a use
of a symbol another object defines is a call from one file to the other
(static functions, and static inline ones of headers, link no files, so they
are left out). LAYERS (cugi/layers.txt) puts each file in a layer; given
more than once, each file's layers lie above those of the files before it
(cugi/gst/layers.txt, above libcugi's: a call from libcugi into libcugi-gst
is an upward call). Two kinds
of call break the layering:
  upward  a file calls a file of a higher layer;
  cycle   a file calls a file of its own layer, and the two are on a loop of
          such calls (the loops left once upward calls are taken away: each
          loop of files holds at least one upward or one such call, so
          removing every listed call leaves no loop).
The check fails on any call of either kind, and prints each with the
symbols it uses.
"""

import argparse
import collections
import glob
import os
import subprocess
import sys

SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENERATED_PREFIX = 'meson-generated_'
# nm's letters for symbols an object defines for others to use (lower-case
# letters are local, but 'u', a unique global) and for those it uses.
DEFINED_TYPES = set('ABCDGIRSTVWu')
UNDEFINED_TYPES = set('Uvw')


class LayerError(Exception):
    pass


def read_layers(paths):
    """Returns ({file name: (layer index, layer name)}, {file name: path}), the
    layers of @paths stacked in their order."""
    layer_of, entry_of = {}, {}
    layer_names = []
    for path in paths:
        read_layer_file(path, layer_of, entry_of, layer_names)
    return layer_of, entry_of


def read_layer_file(path, layer_of, entry_of, layer_names):
    first_layer = len(layer_names)
    with open(path, encoding='utf-8') as stream:
        for number, line in enumerate(stream, 1):
            line = line.split('#', 1)[0].strip()
            if not line:
                continue
            if line.startswith('[') and line.endswith(']'):
                layer_names.append(line[1:-1])
                continue
            if len(layer_names) == first_layer:
                raise LayerError(f'{path}:{number}: {line} comes before any [layer]')
            # Objects are known by their source's file name, so those are unique.
            name = os.path.basename(line)
            if name in layer_of:
                raise LayerError(f'{path}:{number}: {name} is in two layers')
            layer_of[name] = (len(layer_names) - 1, layer_names[-1])
            entry_of[name] = line


def source_name(object_path):
    """cugi-buffer.c.o -> cugi-buffer.c; meson-generated_.._cugi-enums.c.o -> cugi-enums.c."""
    name = os.path.basename(object_path)[:-len('.o')]
    generated = name.startswith(GENERATED_PREFIX)
    if generated:
        name = name[len(GENERATED_PREFIX):]
        while name.startswith('.._'):
            name = name[len('.._'):]
    return name, generated


def is_stale(name, source_dir):
    """Whether no source file has this name: the object of a deleted file,
    which ninja leaves behind."""
    return not any(name in files for _, _, files in os.walk(source_dir))


def read_symbols(nm, object_path):
    out = subprocess.run([nm, '-P', object_path], check=True, capture_output=True,
                         text=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 2:
            continue
        if fields[1] in DEFINED_TYPES:
            defined.add(fields[0])
        elif fields[1] in UNDEFINED_TYPES:
            used.add(fields[0])
    return defined, used


def call_graph(nm, binaries, layer_of, layers_path):
    """Returns {(caller file, callee file): {symbols}} and the files seen."""
    definers = collections.defaultdict(set)
    uses = {}
    for binary in binaries:
        objects = sorted(glob.glob(os.path.join(glob.escape(binary + '.p'), '*.o')))
        if not objects:
            raise LayerError(f'no objects in {binary}.p/: is {binary} built with Meson\'s ninja backend?')
        for object_path in objects:
            name, generated = source_name(object_path)
            if name not in layer_of:
                if not generated and is_stale(name, os.path.dirname(layers_path)):
                    print(f'note: {object_path} left out: no source file {name}', file=sys.stderr)
                    continue
                raise LayerError(f'{name} is in no layer: add it to {layers_path}')
            defined, used = read_symbols(nm, object_path)
            for symbol in defined:
                definers[symbol].add(name)
            uses.setdefault(name, set()).update(used)
    edges = collections.defaultdict(set)
    for caller, symbols in uses.items():
        for symbol in symbols:
            # A symbol defined twice (weak copies) ties no file to one other.
            if len(definers.get(symbol, ())) == 1:
                callee = next(iter(definers[symbol]))
                if callee != caller:
                    edges[(caller, callee)].add(symbol)
    return edges, set(uses)


def strongly_connected(files, edges):
    """Tarjan's algorithm: the components of more than one file."""
    successors = collections.defaultdict(list)
    for caller, callee in edges:
        successors[caller].append(callee)
    index, lowlink, on_stack, stack, components = {}, {}, set(), [], []

    def visit(node):
        index[node] = lowlink[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in successors[node]:
            if successor not in index:
                visit(successor)
                lowlink[node] = min(lowlink[node], lowlink[successor])
            elif successor in on_stack:
                lowlink[node] = min(lowlink[node], index[successor])
        if lowlink[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(component)

    for node in sorted(files):
        if node not in index:
            visit(node)
    return components


def find_violations(edges, files, layer_of):
    """Returns ({(kind, caller, callee): {symbols}}, the loops of all calls)."""
    violations = {}
    level_edges = {}
    for (caller, callee), symbols in edges.items():
        if layer_of[caller][0] < layer_of[callee][0]:
            violations[('upward', caller, callee)] = set(symbols)
        else:
            level_edges[(caller, callee)] = symbols
    component_of = {}
    for number, component in enumerate(strongly_connected(files, level_edges)):
        component_of.update(dict.fromkeys(component, number))
    for (caller, callee), symbols in level_edges.items():
        if caller in component_of and component_of[caller] == component_of.get(callee):
            violations[('cycle', caller, callee)] = set(symbols)
    return violations, strongly_connected(files, edges)


def format_violation(key, symbols):
    kind, caller, callee = key
    return f'{kind} {caller} -> {callee} : {" ".join(sorted(symbols))}'


def main(argv):
    parser = argparse.ArgumentParser(description='Checks that cugi\'s files call only their own and lower layers, in no loop.')
    parser.add_argument('--nm', default='nm')
    parser.add_argument('--layers', action='append',
                        help='a layer table (cugi/layers.txt, the default); again for one above it')
    parser.add_argument('binaries', nargs='+', metavar='BINARY')
    args = parser.parse_args(argv[1:])

    try:
        layer_paths = args.layers or [os.path.join(SOURCE_ROOT, 'cugi', 'layers.txt')]
        layer_of, entry_of = read_layers(layer_paths)
        # Stale objects are looked for under the first table's folder (cugi/).
        edges, files = call_graph(args.nm, args.binaries, layer_of, layer_paths[0])
        missing = sorted(set(layer_of) - files)
        if missing:
            raise LayerError('in the layer table but built into none of the binaries: '
                             + ', '.join(entry_of[name] for name in missing))
        violations, loops = find_violations(edges, files, layer_of)
    except LayerError as error:
        print(error, file=sys.stderr)
        return 1

    for key in sorted(violations):
        print('not allowed (remove the call): ' + format_violation(key, violations[key]),
              file=sys.stderr)
    for loop in loops:
        print(f'loop of {len(loop)} files: {", ".join(sorted(loop))}', file=sys.stderr)
    upward_calls = sum(len(symbols) for (kind, _, _), symbols in violations.items()
                       if kind == 'upward')
    files_in_loops = sum(len(loop) for loop in loops)
    print(f'{upward_calls} upward calls, {files_in_loops} files in cycles, '
          f'{len(layer_of)} files in {len(set(layer_of.values()))} layers')
    return 1 if violations or loops else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
