#!/usr/bin/python3
"""A profile by function from icount's --profile file (tests/icount/icount.cpp).

    symbolize.py PROFILE BINARY [EXE] [-n N]

Names the offsets that PROFILE records for executable EXE (default: every executable whose path ends in
BINARY's file name, and "/", the path a detached mount of husk's binary reads as once husk re-executed itself
from it) with BINARY's symbols (nm), and prints the N functions (default 40) with the most instructions:
first by instructions in the function itself (self), then by instructions from its call to its return
(callees included; a recursive function counts its inner calls again)."""
import bisect
import collections
import os
import subprocess
import sys


def symbols(binary):
    table = []
    out = subprocess.run(['nm', '-C', '--defined-only', '-S', binary], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        parts = line.split(' ', 3)
        if len(parts) == 4 and parts[2] in 'tTwWi':
            table.append((int(parts[0], 16), int(parts[1], 16), parts[3]))
    table.sort()
    return table


def main():
    args = [a for a in sys.argv[1:]]
    top = 40
    if '-n' in args:
        i = args.index('-n')
        top = int(args[i + 1])
        del args[i:i + 2]
    if len(args) < 2:
        sys.exit(__doc__)
    profile, binary = args[0], args[1]
    wanted = {args[2]} if len(args) > 2 else None
    table = symbols(binary)
    starts = [s[0] for s in table]

    def name(offset):
        i = bisect.bisect_right(starts, offset) - 1
        if i >= 0 and offset < table[i][0] + max(table[i][1], 1):
            return table[i][2]
        return '?%x' % offset

    base = os.path.basename(binary)
    self_by, call_by = collections.Counter(), collections.Counter()
    total = 0
    with open(profile) as f:
        for line in f:
            kind, rest = line.rstrip('\n').split(' ', 1)
            exe, offset, count = rest.rsplit(' ', 2)
            if wanted is not None and exe not in wanted:
                continue
            if wanted is None and exe != '/' and os.path.basename(exe) != base:
                continue
            offset, count = int(offset, 16), int(count)
            if kind == 'self':
                self_by[name(offset)] += count
                total += count
            else:
                call_by[name(offset)] += count
    print('%d instructions' % total)
    for title, counter in (('self', self_by), ('callees included', call_by)):
        print('\n%-12s %6s  function (%s)' % ('instructions', '%', title))
        for function, count in counter.most_common(top):
            print('%12d %5.1f%%  %s' % (count, 100.0 * count / max(total, 1), function[:160]))


main()
