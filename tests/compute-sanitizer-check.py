#!/usr/bin/env python3
"""compute-sanitizer-check.py: the GPU tests under compute-sanitizer's memcheck,
with CUDA API errors reported.

    compute-sanitizer-check.py --expected FILE [--print-found] TEST...

Runs each GPU test program under `compute-sanitizer --tool memcheck
--report-api-errors all` and fails on
  - any memory error memcheck reports (out-of-bounds or misaligned accesses;
    leaks of device memory at exit are not checked: the tests' own checks
    cover what cugi frees) and any CUDA API error, that is not one of the
    tests' deliberate error cases listed in FILE, one per line:
    `test cuFunction CUDA_ERROR_X caller`, with caller the innermost function
    of libcugi or the test that made the call, or
    `test memcheck Invalid-__global__-write kernel` for a faulting kernel;
  - a test that fails under the sanitizer.
Users run compute-sanitizer over their own programs: cugi's own probing
must not show up there. Without compute-sanitizer or a GPU it reports a TAP
skip (TAP tests skip through their plan, not exit status 77).
"""
import argparse
import ctypes
import os
import re
import shutil
import subprocess
import sys

API_ERROR = re.compile(r'Program hit (CUDA_ERROR_\w+) \(error \d+\) due to .* on CUDA API call to (\w+)')
MEMORY_ERROR = re.compile(r'^========= (Invalid |Misaligned |Uninitialized |Race |Barrier )')
FRAME = re.compile(r'Host Frame:\s*(\S*?)\s*(?:\[0x[0-9a-f]+\])?\s*(?:in (\S+))?$')
FRAME_MODULE = re.compile(r'^=========\s+in (\S+)')
# The faulting kernel: "at fault+0x70" (or "at 0x70 in fault", older tools).
KERNEL = re.compile(r'^=========\s+at (?:0x[0-9a-f]+ in )?([A-Za-z_$][\w$]*)')


def find_sanitizer():
    candidates = [os.environ.get('CUGI_COMPUTE_SANITIZER'), shutil.which('compute-sanitizer'),
                  '/usr/local/cuda/bin/compute-sanitizer']
    return next((c for c in candidates if c and os.access(c, os.X_OK)), None)


def gpu_present():
    try:
        cuda = ctypes.CDLL('libcuda.so.1')
    except OSError:
        return False
    count = ctypes.c_int(0)
    return cuda.cuInit(0) == 0 and cuda.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value > 0


def caller_of(frames):
    """The innermost frame in libcugi or the test program, by function name."""
    for function, module in frames:
        if function and module and 'libcuda' not in module and 'compute-sanitizer' not in module:
            return function.split('(')[0]
    return '?'


def parse(output):
    """Errors as (function or 'memcheck', error, caller or kernel)."""
    errors = []
    lines = output.splitlines()
    for index, line in enumerate(lines):
        match = API_ERROR.search(line)
        if match:
            frames = []
            for following in lines[index + 1:index + 80]:
                if API_ERROR.search(following) or 'ERROR SUMMARY' in following:
                    break
                frame = FRAME.search(following)
                if frame:
                    frames.append([frame.group(1), frame.group(2)])
                    continue
                module = FRAME_MODULE.search(following)
                if module and frames and frames[-1][1] is None:
                    frames[-1][1] = module.group(1)
            errors.append((match.group(2), match.group(1), caller_of(frames)))
        elif MEMORY_ERROR.search(line):
            kind = '-'.join(line.lstrip('= ').split(' of size')[0].split())
            kernel = next((m.group(1) for m in map(KERNEL.search, lines[index + 1:index + 4]) if m), '?')
            errors.append(('memcheck', kind, kernel))
    return errors


def read_expected(path):
    expected = set()
    with open(path, encoding='utf-8') as f:
        for line in f:
            fields = line.split('#', 1)[0].split()
            if fields:
                if len(fields) != 4:
                    sys.exit(f'{path}: expected "test cuFunction CUDA_ERROR_X caller": {line.strip()}')
                expected.add(tuple(fields))
    return expected


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--expected', required=True)
    parser.add_argument('--print-found', action='store_true',
                        help='print every API error found in the expectation file format')
    parser.add_argument('tests', nargs='+')
    args = parser.parse_args()

    sanitizer = find_sanitizer()
    if sanitizer is None:
        print('1..0 # SKIP compute-sanitizer not found (set CUGI_COMPUTE_SANITIZER)')
        return 0
    if not gpu_present():
        print('1..0 # SKIP no CUDA driver or no GPU')
        return 0

    expected = read_expected(args.expected)
    print(f'1..{len(args.tests)}')
    failed = 0
    for number, test in enumerate(args.tests, 1):
        name = os.path.basename(test)
        command = [sanitizer, '--tool', 'memcheck', '--report-api-errors', 'all',
                   '--print-limit', '10000', '--error-exitcode', '0', test]
        run = subprocess.run(command, capture_output=True, text=True, errors='replace')
        errors = parse(run.stdout + run.stderr)
        problems = []
        for function, error, caller in errors:
            if args.print_found:
                print(f'# found: {name} {function} {error} {caller}')
            if (name, function, error, caller) not in expected:
                problems.append(f'unexpected: {function} {error} from {caller}')
        if run.returncode not in (0, 77):
            problems.append(f'the test failed under the sanitizer (exit {run.returncode})')
            problems += ['  ' + line for line in run.stdout.splitlines()[-20:]]
        for problem in sorted(set(problems)):
            print(f'# {name}: {problem}')
        status = 'not ok' if problems else 'ok'
        print(f'{status} {number} {name}: {len(errors)} reports, {len(problems)} unexpected')
        failed += bool(problems)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
