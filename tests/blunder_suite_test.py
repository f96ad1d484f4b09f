#!/usr/bin/env python3
"""scripts/blunder-suite.py end to end: extract from a real match file, a
search's moves, the judge's losses on a hand-made position, bad input."""
import json
import os
import subprocess
import sys
import tempfile

BINARY = sys.argv[1]
SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                      'scripts', 'blunder-suite.py')
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print('FAILED: ' + what)


def suite_cmd(*args):
    return subprocess.run([sys.executable, SCRIPT] + list(args),
                          capture_output=True, text=True, timeout=600)


with tempfile.TemporaryDirectory() as tmp:
    def path(name):
        return os.path.join(tmp, name)

    # A match against alpha-beta: its comments carry its scores.
    match = subprocess.run(
        [BINARY, 'match', '--game', 'tavreli', '--player',
         'mcts:net=random,visits=2,name=net', '--player', 'alphabeta:depth=1',
         '--games', '2', '--seed', '1', '--quiet', '--pgn-out', path('g.pgn')],
        capture_output=True, text=True, timeout=600)
    check(match.returncode == 0, 'the match ran: ' + match.stderr)
    r = suite_cmd('extract', path('g.pgn'), path('s.json'), '--jumps', '3',
                  '--controls', '2')
    check(r.returncode == 0, 'extract ran: ' + r.stderr)
    suite = json.load(open(path('s.json')))
    check(0 < len(suite) <= 5, 'extract took at most 3 + 2 positions')
    for p in suite:
        # Colours swap in a pair: the net is White in game 1, Black in 2.
        check(p['ply'] % 2 == p['game'] - 1, 'a position before its move')
        check(len(p['moves']) == p['ply'], 'a position is the plies before it')
    # Every position replays: a search answers a move in each.
    r = suite_cmd('run', path('s.json'), path('m.json'), '--binary', BINARY,
                  '--net', 'random', '--go', 'nodes 8')
    check(r.returncode == 0, 'run ran: ' + r.stderr)
    check(len(json.load(open(path('m.json')))) == len(suite), 'a move each')

    # White to move: the black queen on d5 hangs to the white queen on d1,
    # and the white queen hangs to it.
    hanging = [{'game': 1, 'ply': 0, 'tfen': '3k4/8/8/3q4/8/8/8/3Q2K1 w - - 0 1',
                'moves': [], 'played': '', 'jump': 0}]
    json.dump(hanging, open(path('h.json'), 'w'))
    json.dump(['d1xd5'], open(path('take.json'), 'w'))
    json.dump(['g1-f1'], open(path('wait.json'), 'w'))
    r = suite_cmd('judge', path('h.json'), path('take.json'),
                  path('wait.json'), '--binary', BINARY, '--depth', '2')
    check(r.returncode == 0, 'judge ran: ' + r.stderr)
    lines = r.stdout.splitlines()
    check(len(lines) == 2, 'a line per moves file: ' + r.stdout)
    if len(lines) == 2:
        check('0 moves lose >= 1 pawn' in lines[0], 'the capture loses nothing: '
              + lines[0])
        check('1 moves lose >= 1 pawn' in lines[1], 'the wait loses the queen: '
              + lines[1])

    # Bad input: one line naming the problem, a non-zero exit.
    r = suite_cmd('run', path('h.json'), path('x.json'), '--binary', BINARY,
                  '--net', 'random', '--option', 'no_such_option=1')
    check(r.returncode != 0 and 'no_such_option' in r.stderr
          and len(r.stderr.strip().splitlines()) == 1,
          'an unknown option is refused: ' + r.stderr)
    r = suite_cmd('judge', path('h.json'), path('s.json'), '--binary', BINARY)
    check(r.returncode != 0 and 'moves for' in r.stderr,
          'a moves file of another length is refused: ' + r.stderr)

print('%d failures' % len(failures))
sys.exit(1 if failures else 0)
