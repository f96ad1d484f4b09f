#!/usr/bin/env python3
"""A blunder suite from match games against alpha-beta: how often a search
plays a move that a deeper alpha-beta search sees losing material.

  extract GAMES.pgn SUITE.json [--player NAME] [--jumps N] [--controls M]
      The positions before NAME's moves in a `volkhv match` game file whose
      opponent is an alphabeta: player (its comments carry its score): N
      where the alpha-beta's own score rose by at least --min-jump pawns
      over NAME's move, and M where it moved by less than 0.3 (controls),
      drawn at random (--seed).
  run SUITE.json MOVES.json --binary B [--net F] [--go "movetime 1000"]
      [--option KEY=VALUE ...]
      The move `volkhv engine` plays in each position, a fresh search each.
  judge SUITE.json MOVES.json ... --binary B [--depth D]
      Each move's loss in pawns: the alpha-beta score at depth D - 1 of the
      position after the judge's own depth-D move, less that after the
      move. Judgements are cached in SUITE.json.judge-dD.json.

The alpha-beta judge is the baseline the ladder plays against, so a loss
here is what that opponent would see; docs/results.md, "The root search's
veto", has the figures and commands.
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys


def die(message):
    sys.exit('blunder-suite: ' + message)


def read_games(path):
    """Games of a PGN file: their tags and (move, comment) plies."""
    games, tags, body = [], None, []

    def close():
        if tags is not None:
            tokens = re.findall(r'\{[^}]*\}|\S+', ' '.join(body))
            plies = []
            for token in tokens:
                if token.startswith('{'):
                    if plies:
                        plies[-1][1] = token[1:-1]
                elif not re.fullmatch(r'\d+\.+|1-0|0-1|1/2-1/2|\*', token):
                    plies.append([token, None])
            games.append({'tags': tags, 'plies': plies})

    try:
        lines = open(path, encoding='utf-8').read().splitlines()
    except OSError as e:
        die('cannot read %s: %s' % (path, e.strerror))
    for line in lines:
        tag = re.fullmatch(r'\[(\w+) "(.*)"\]', line.strip())
        if tag and tag.group(1) == 'Event':
            close()
            tags, body = {}, []
        if tag and tags is not None:
            tags[tag.group(1)] = tag.group(2)
        elif line.strip() and tags is not None:
            body.append(line)
    close()
    return games


def alphabeta_score(comment):
    """Pawns from an alpha-beta comment such as '+0.40/5'; None for mates."""
    m = re.match(r'([+-]?)(\d+(?:\.\d+)?)/\d+', comment or '')
    if not m:
        return None
    return -float(m.group(2)) if m.group(1) == '-' else float(m.group(2))


def extract(args):
    jumps, controls = [], []
    for number, game in enumerate(read_games(args.games), 1):
        tags = game['tags']
        if args.player not in (tags.get('White'), tags.get('Black')):
            continue
        side = 0 if tags.get('White') == args.player else 1
        plies = game['plies']
        for i in range(1, len(plies) - 1):
            if i % 2 != side:
                continue
            before = alphabeta_score(plies[i - 1][1])
            after = alphabeta_score(plies[i + 1][1])
            # A move without the player's comment is an opening's random ply.
            if before is None or after is None or plies[i][1] is None:
                continue
            jump = round(after - before, 2)  # as the comments give it
            position = {'game': number, 'ply': i, 'tfen': tags.get('TFEN', ''),
                        'moves': [p[0] for p in plies[:i]],
                        'played': plies[i][0], 'jump': jump}
            if jump >= args.min_jump:
                jumps.append(position)
            elif abs(jump) < 0.3:
                controls.append(position)
    if not jumps and not controls:
        die('%s: no move of %s with alpha-beta scores around it'
            % (args.games, args.player))
    rng = random.Random(args.seed)
    suite = (rng.sample(jumps, min(args.jumps, len(jumps))) +
             rng.sample(controls, min(args.controls, len(controls))))
    with open(args.suite, 'w') as f:
        json.dump(suite, f)
    print('%s: %d positions (%d of %d jumps, %d of %d controls)'
          % (args.suite, len(suite), min(args.jumps, len(jumps)), len(jumps),
             min(args.controls, len(controls)), len(controls)))


class Engine:
    """A `volkhv engine` process spoken to over its UCI-style protocol."""

    def __init__(self, command):
        try:
            self.process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True, bufsize=1)
        except OSError as e:
            die('cannot start %s: %s' % (command[0], e.strerror))
        self.command = command
        self.send('uci')
        self.read_until('uciok')

    def send(self, line):
        self.process.stdin.write(line + '\n')
        self.process.stdin.flush()

    def read_until(self, prefix):
        lines = []
        while True:
            line = self.process.stdout.readline()
            if not line:
                die('%s ended: %s' % (' '.join(self.command),
                                      self.process.stderr.read().strip()))
            line = line.strip()
            lines.append(line)
            if line.startswith('info string error'):
                die('%s: %s' % (' '.join(self.command), line))
            if line.startswith(prefix):
                return lines

    def search(self, position, extra_moves, go):
        """(best move, last score in pawns for the side to move or None)."""
        self.send('ucinewgame')
        moves = position['moves'] + extra_moves
        tfen = position['tfen']
        self.send(('position tfen %s' % tfen if tfen else 'position startpos')
                  + (' moves ' + ' '.join(moves) if moves else ''))
        self.send('go ' + go)
        lines = self.read_until('bestmove')
        score = None
        for line in lines:
            m = re.search(r'score (cp|mate) (-?\d+)', line)
            if m:
                value = int(m.group(2))
                score = value / 100 if m.group(1) == 'cp' else (
                    100.0 if value > 0 else -100.0)
        return lines[-1].split()[1], score

    def close(self):
        self.send('quit')
        self.process.wait()


def load_suite(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        die('cannot read suite %s: %s' % (path, e))


def run(args):
    suite = load_suite(args.suite)
    engine = Engine([args.binary, 'engine', '--game', args.game, '--net',
                     args.net, '--threads', str(args.threads)])
    for option in args.option:
        key, sep, value = option.partition('=')
        if not sep:
            die("--option '%s': expected KEY=VALUE" % option)
        engine.send('setoption name %s value %s' % (key, value))
    engine.send('isready')
    engine.read_until('readyok')
    moves = [engine.search(p, [], args.go)[0] for p in suite]
    engine.close()
    with open(args.moves, 'w') as f:
        json.dump(moves, f)


def judge(args):
    suite = load_suite(args.suite)
    cache_path = '%s.judge-d%d.json' % (args.suite, args.depth)
    cache = {}
    if os.path.exists(cache_path):
        cache = load_suite(cache_path)
    engine = Engine([args.binary, 'engine', '--game', args.game, '--player',
                     'alphabeta:depth=%d' % args.depth])

    def value_after(k, move):
        key = '%d|%s' % (k, move)
        if key not in cache:
            _, score = engine.search(suite[k], [move],
                                     'depth %d' % (args.depth - 1))
            # No score: the move ended the game, and the mover won it.
            cache[key] = -score if score is not None else 100.0
        return cache[key]

    best = []
    for k, position in enumerate(suite):
        key = '%d|best' % k
        if key not in cache:
            cache[key] = engine.search(position, [], 'depth %d' % args.depth)[0]
        best.append(value_after(k, cache[key]))
    for path in args.moves:
        moves = load_suite(path)
        if len(moves) != len(suite):
            die('%s: %d moves for %d positions' % (path, len(moves), len(suite)))
        losses = [max(0.0, best[k] - value_after(k, m))
                  for k, m in enumerate(moves)]
        print('%s: %d positions, %d moves lose >= 1 pawn, %d >= 0.5, '
              'mean loss %.3f (each capped at 5)'
              % (path, len(losses), sum(x >= 1 for x in losses),
                 sum(x >= 0.5 for x in losses),
                 sum(min(x, 5.0) for x in losses) / len(losses)))
    engine.close()
    with open(cache_path, 'w') as f:
        json.dump(cache, f)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest='command', required=True)
    p = sub.add_parser('extract')
    p.add_argument('games')
    p.add_argument('suite')
    p.add_argument('--player', default='net')
    p.add_argument('--min-jump', type=float, default=1.0)
    p.add_argument('--jumps', type=int, default=60)
    p.add_argument('--controls', type=int, default=60)
    p.add_argument('--seed', type=int, default=1)
    p = sub.add_parser('run')
    p.add_argument('suite')
    p.add_argument('moves')
    p.add_argument('--binary', required=True)
    p.add_argument('--game', default='tavreli')
    p.add_argument('--net', default='auto')
    p.add_argument('--threads', type=int, default=1)
    p.add_argument('--go', default='movetime 1000')
    p.add_argument('--option', action='append', default=[])
    p = sub.add_parser('judge')
    p.add_argument('suite')
    p.add_argument('moves', nargs='+')
    p.add_argument('--binary', required=True)
    p.add_argument('--game', default='tavreli')
    p.add_argument('--depth', type=int, default=5)
    args = parser.parse_args()
    if getattr(args, 'depth', 2) < 2:
        die('--depth must be at least 2')
    {'extract': extract, 'run': run, 'judge': judge}[args.command](args)


if __name__ == '__main__':
    main()
