// The Volkhv web board: one page, no framework. Everything about the rules
// comes from the server's JSON API (docs/web-api.md): the page keeps the
// game as (game, start position, moves) and asks the server for each
// position, its legal moves and the engine's opinion.
'use strict';

const $ = (id) => document.getElementById(id);

const S = {
  games: {},          // name -> {width, height, players, initialPosition}
  game: 'tavreli',
  start: '',          // start position ('' = the initial one)
  startSide: 0,       // side to move at the start position
  moves: [],          // the whole line, canonical notation
  view: 0,            // ply shown
  state: null,        // /api/state answer for the shown ply
  flipped: false,
  selected: null,     // square index
  count: 0,           // pieces the selected move takes
  drag: null,
  busy: 0,            // engine-move token
  analysis: null,     // {id, timer, position}
  analysisReport: null,
  gameAnalysis: null, // {id, timer}
  gameReport: null,
  records: [],
  stateRequests: 0,   // loadState's latest request
};

const SIZES = { tavreli: 80, tavlei9: 66, tavlei11: 54 };
const GLYPH = { K: '♚', Q: '♛', R: '♜', B: '♝', N: '♞', P: '♟', H: '♛' };
const NAME = {
  K: 'King (Volkhv)', Q: 'Queen', R: 'Rook', B: 'Bishop', N: 'Knight',
  P: 'Soldier', H: 'Helgi',
};

// ---------------------------------------------------------------- server

async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  let data;
  try {
    data = await res.json();
  } catch (e) {
    data = { error: `HTTP ${res.status}` };
  }
  if (!res.ok) {
    const error = new Error(data.error || `HTTP ${res.status}`);
    error.status = res.status;
    throw error;
  }
  return data;
}

function gameOptions() {
  const steps = parseInt($('prince-steps').value, 10);
  return isTavlei() && steps ? { prince_max_steps: steps } : {};
}

function gameBody(moves, extra) {
  const body = { game: S.game, gameOptions: gameOptions(), moves };
  if (S.start) body.position = S.start;
  return Object.assign(body, extra || {});
}

// ---------------------------------------------------------------- geometry

function info() { return S.games[S.game]; }
function squareName(index) {
  const w = info().width;
  return String.fromCharCode(97 + (index % w)) + (Math.floor(index / w) + 1);
}
function squareIndex(name) {
  const w = info().width;
  return (parseInt(name.slice(1), 10) - 1) * w + (name.charCodeAt(0) - 97);
}
function isTavlei() { return S.game !== 'tavreli'; }
function sideName(side) { return info().players[side]; }
function capital(text) { return text.charAt(0).toUpperCase() + text.slice(1); }
function sideAt(ply) { return (S.startSide + ply) % 2; }

// ---------------------------------------------------------------- messages

function say(text, isError) {
  const m = $('message');
  m.textContent = text || '';
  m.classList.toggle('error', !!isError);
}
function fail(error) { say(error.message || String(error), true); }

// ---------------------------------------------------------------- board

function buildBoard() {
  const board = $('board');
  const { width, height } = info();
  const sq = SIZES[S.game];
  document.documentElement.style.setProperty('--sq', sq + 'px');
  board.innerHTML = '';
  board.className = isTavlei() ? 'tavlei' : 'tavreli';
  board.style.gridTemplateColumns = `repeat(${width}, ${sq}px)`;
  for (let row = 0; row < height; row++) {
    for (let col = 0; col < width; col++) {
      const rank = S.flipped ? row : height - 1 - row;
      const file = S.flipped ? width - 1 - col : col;
      const index = rank * width + file;
      const el = document.createElement('div');
      el.className = 'sq ' + ((rank + file) % 2 === 0 ? 'dark' : 'light');
      el.dataset.index = index;
      el.dataset.square = squareName(index);
      if (isTavlei()) {
        const centre = (width - 1) / 2;
        if (rank === centre && file === centre) el.classList.add('throne');
        if ((rank === 0 || rank === height - 1) &&
            (file === 0 || file === width - 1)) {
          el.classList.add('exit');
        }
      }
      if (col === 0) {
        const c = document.createElement('span');
        c.className = 'coord rank';
        c.textContent = rank + 1;
        el.appendChild(c);
      }
      if (row === height - 1) {
        const c = document.createElement('span');
        c.className = 'coord file';
        c.textContent = String.fromCharCode(97 + file);
        el.appendChild(c);
      }
      board.appendChild(el);
    }
  }
  const svg = $('arrows');
  svg.setAttribute('width', width * sq);
  svg.setAttribute('height', height * sq);
  svg.setAttribute('viewBox', `0 0 ${width * sq} ${height * sq}`);
  $('eval-fill').style.background = isTavlei() ? '#3a2e26' : '#f3f0e8';
  $('eval-bar').style.background = isTavlei() ? '#efe6d2' : '#333';
}

function squareEl(index) {
  return $('board').querySelector(`.sq[data-index="${index}"]`);
}

// A Tavreli token as the notation writes it: K, q, PR, pq~, +N, +h.
function parseToken(token) {
  const promoted = token[0] === '+';
  const letter = promoted ? token[1] : token[0];
  const white = letter === letter.toUpperCase();
  const kind = letter.toUpperCase();
  const piece = { token, white, kind, promoted, sym: '' };
  if (!promoted && kind === 'P') piece.sym = token[1].toUpperCase();
  if (promoted && kind === 'H') piece.sym = 'H';
  return piece;
}

function describe(piece) {
  const colour = piece.white ? 'white' : 'black';
  if (piece.promoted) return `${colour} promoted soldier (${NAME[piece.kind]})`;
  if (piece.kind === 'P') return `${colour} soldier (${NAME[piece.sym]})`;
  return `${colour} ${NAME[piece.kind]}`;
}

function towerEl(stack, sq) {
  const tower = document.createElement('div');
  tower.className = 'tower' + (stack.length === 1 ? ' single' : '');
  const n = stack.length;
  const layer = n === 1 ? sq * 0.8 : Math.min(sq * 0.4, (sq - 4) / n);
  tower.style.justifyContent = n === 1 ? 'center' : 'flex-start';
  tower.style.alignItems = 'center';
  stack.forEach((token, i) => {
    const piece = parseToken(token);
    const disc = document.createElement('div');
    disc.className = 'disc ' + (piece.white ? 'white' : 'black') +
        (piece.promoted ? ' promoted' : '');
    disc.dataset.token = token;
    disc.dataset.layer = i;
    disc.style.height = layer + 'px';
    disc.style.width = n === 1 ? layer + 'px' : '100%';
    disc.style.fontSize = (n === 1 ? sq * 0.58 : Math.min(layer * 1.25, 28)) + 'px';
    const g = document.createElement('span');
    g.className = 'g';
    g.textContent = GLYPH[piece.kind];
    disc.appendChild(g);
    if (piece.sym) {
      const s = document.createElement('span');
      s.className = 'sym';
      s.textContent = piece.sym;
      disc.appendChild(s);
    }
    disc.title = describe(piece);
    tower.appendChild(disc);
  });
  tower.title = 'bottom to top: ' + stack.map((t) => describe(parseToken(t)))
      .join(', ');
  return tower;
}

function tavleiPieceEl(token) {
  const el = document.createElement('div');
  el.className = 'piece-tav ' +
      (token === 't' ? 'att' : token === 'T' ? 'def' : 'king');
  el.dataset.token = token;
  if (token === 'K') el.textContent = '♔';
  el.title = token === 't' ? 'attacker' : token === 'T' ? 'defender' :
      (S.game === 'tavlei9' ? 'prince' : 'king');
  return el;
}

function render() {
  const st = S.state;
  if (!st) return;
  const sq = SIZES[S.game];
  const { width, height } = info();
  for (let index = 0; index < width * height; index++) {
    const el = squareEl(index);
    el.querySelectorAll('.tower, .piece-tav, .height').forEach((x) => x.remove());
    el.classList.remove('last', 'selected', 'target', 'occupied', 'check');
    const stack = st.board[index];
    if (stack.length) {
      el.classList.add('occupied');
      el.appendChild(isTavlei() ? tavleiPieceEl(stack[0]) : towerEl(stack, sq));
      if (stack.length > 1) {
        const badge = document.createElement('span');
        badge.className = 'height';
        badge.textContent = stack.length;
        el.appendChild(badge);
      }
    }
  }
  if (st.lastMove) {
    squareEl(squareIndex(st.lastMove.from)).classList.add('last');
    squareEl(squareIndex(st.lastMove.to)).classList.add('last');
  }
  if (st.inCheck) {
    st.board.forEach((stack, index) => {
      const top = stack[stack.length - 1];
      if (top === (st.sideToMove === 0 ? 'K' : 'k')) {
        squareEl(index).classList.add('check');
      }
    });
  }
  renderSelection();
  renderTurn();
  renderMoveList();
  renderArrows();
  const banner = $('result-banner');
  banner.hidden = !st.result.over;
  banner.textContent = st.result.over ? st.result.text : '';
  $('position-text').value = st.position;
  $('nav-first').disabled = $('nav-prev').disabled = S.view === 0;
  $('nav-next').disabled = $('nav-last').disabled = S.view === S.moves.length;
}

function renderTurn() {
  const st = S.state;
  const dot = isTavlei() ? (st.sideToMove === 0 ? '#2a211b' : '#f3ead6')
                         : (st.sideToMove === 0 ? '#fffdf6' : '#1d1814');
  $('turn').innerHTML = '';
  const d = document.createElement('span');
  d.className = 'dot';
  d.style.background = dot;
  $('turn').appendChild(d);
  $('turn').append(st.result.over ? 'Game over' :
      `${capital(st.player)} to move` + (st.inCheck ? ' — check!' : ''));
}

function movesFrom(index) {
  const name = squareName(index);
  return S.state.legalMoves.filter((m) => m.from === name);
}

function renderSelection() {
  const board = $('board');
  board.querySelectorAll('.selected, .target').forEach((el) =>
    el.classList.remove('selected', 'target'));
  board.querySelectorAll('.disc.chosen').forEach((el) =>
    el.classList.remove('chosen'));
  const picker = $('picker');
  if (S.selected === null) {
    picker.hidden = true;
    return;
  }
  const el = squareEl(S.selected);
  el.classList.add('selected');
  for (const m of movesFrom(S.selected)) {
    if (m.count === S.count) squareEl(squareIndex(m.to)).classList.add('target');
  }
  const stack = S.state.board[S.selected];
  const discs = el.querySelectorAll('.disc');
  discs.forEach((disc, i) => {
    if (i >= stack.length - S.count) disc.classList.add('chosen');
  });
  // The picker: how many pieces of the tower move.
  if (isTavlei() || stack.length < 2) {
    picker.hidden = true;
    return;
  }
  picker.hidden = false;
  picker.innerHTML = '';
  const label = document.createElement('span');
  label.textContent = `Move from ${squareName(S.selected)}:`;
  picker.appendChild(label);
  const counts = new Set(movesFrom(S.selected).map((m) => m.count));
  for (let k = 1; k <= stack.length; k++) {
    const b = document.createElement('button');
    b.dataset.count = k;
    b.disabled = !counts.has(k);
    b.classList.toggle('chosen', k === S.count);
    const mini = document.createElement('span');
    mini.className = 'mini';
    stack.forEach((token, i) => {
      const p = parseToken(token);
      const s = document.createElement('span');
      s.className = (p.white ? 'white' : 'black') +
          (i >= stack.length - k ? ' moving' : '');
      s.textContent = GLYPH[p.kind] + (p.sym || '');
      mini.appendChild(s);
    });
    b.appendChild(mini);
    b.append(k === stack.length ? `all ${k}` : `top ${k}`);
    b.title = `move the top ${k} piece(s)`;
    b.addEventListener('click', () => {
      S.count = k;
      renderSelection();
    });
    picker.appendChild(b);
  }
}

function select(index, count) {
  const moves = movesFrom(index);
  if (!moves.length) {
    S.selected = null;
    renderSelection();
    return false;
  }
  const height = S.state.board[index].length;
  const counts = new Set(moves.map((m) => m.count));
  if (!count || !counts.has(count)) {
    count = counts.has(height) ? height : Math.max(...counts);
  }
  S.selected = index;
  S.count = count;
  renderSelection();
  return true;
}

function moveText(from, to, count) {
  const height = S.state.board[from].length;
  const c = height > 1 ? `(${count})` : '';
  return `${squareName(from)}${c}-${squareName(to)}`;
}

async function tryMove(from, to) {
  const count = S.count;
  const fromName = squareName(from);
  const toName = squareName(to);
  const legal = S.state.legalMoves.find(
    (m) => m.from === fromName && m.to === toName && m.count === count);
  S.selected = null;
  renderSelection();
  if (legal) return playMove(legal.move);
  const other = S.state.legalMoves.find(
    (m) => m.from === fromName && m.to === toName);
  if (other) {
    say(`${count} piece(s) from ${fromName} cannot go to ${toName}; ` +
        `${other.count} can (choose it in the tower or the picker)`, true);
    return;
  }
  // Not legal: the server says why, in the rules' own words.
  try {
    await api('POST', '/api/move',
              gameBody(S.moves.slice(0, S.view),
                       { move: moveText(from, to, count) }));
  } catch (e) {
    say(capital(e.message.replace(/^move '[^']*': /, '')), true);
  }
}

async function playMove(text) {
  if (S.busy) {
    say('Volkhv is thinking; wait for its move (or Undo)', true);
    return;
  }
  try {
    const st = await api('POST', '/api/move',
                         gameBody(S.moves.slice(0, S.view), { move: text }));
    S.moves = st.moves;
    S.view = st.ply;
    S.state = st;
    S.stateRequests++;
    say(`Played ${st.lastMove.move}`);
    onPositionChanged();
    maybeEngineMove();
  } catch (e) {
    fail(e);
  }
}

// ---------------------------------------------------------------- input

function squareAt(x, y) {
  const el = document.elementFromPoint(x, y);
  const sq = el && el.closest('.sq');
  return sq ? parseInt(sq.dataset.index, 10) : null;
}

function onPointerDown(ev) {
  if (!S.state || ev.button !== 0) return;
  const sqEl = ev.target.closest('.sq');
  if (!sqEl) return;
  const index = parseInt(sqEl.dataset.index, 10);
  const disc = ev.target.closest('.disc');
  const stack = S.state.board[index];
  const count = disc ? stack.length - parseInt(disc.dataset.layer, 10) : 0;
  if (S.selected !== null && index !== S.selected) {
    const own = movesFrom(index).length > 0;
    const target = squareEl(index).classList.contains('target');
    if (!own || target) {
      tryMove(S.selected, index);
      return;
    }
  }
  if (S.state.result.over) {
    say(S.state.result.text, true);
    return;
  }
  if (!select(index, count)) {
    if (stack.length) say(`No legal move from ${squareName(index)}`, true);
    return;
  }
  S.drag = { from: index, x: ev.clientX, y: ev.clientY, ghost: null };
  ev.preventDefault();
}

function onPointerMove(ev) {
  const drag = S.drag;
  if (!drag) return;
  if (!drag.ghost) {
    if (Math.hypot(ev.clientX - drag.x, ev.clientY - drag.y) < 6) return;
    const piece = squareEl(drag.from).querySelector('.tower, .piece-tav');
    if (!piece) return;
    const sq = SIZES[S.game];
    const ghost = document.createElement('div');
    ghost.className = 'dragging';
    ghost.style.width = sq + 'px';
    ghost.style.height = sq + 'px';
    ghost.appendChild(piece.cloneNode(true));
    // Only the pieces that move.
    const stack = S.state.board[drag.from];
    ghost.querySelectorAll('.disc').forEach((d, i) => {
      if (i < stack.length - S.count) d.style.visibility = 'hidden';
    });
    document.body.appendChild(ghost);
    drag.ghost = ghost;
  }
  const sq = SIZES[S.game];
  drag.ghost.style.left = ev.clientX - sq / 2 + 'px';
  drag.ghost.style.top = ev.clientY - sq / 2 + 'px';
}

function onPointerUp(ev) {
  const drag = S.drag;
  S.drag = null;
  if (!drag || !drag.ghost) return;
  drag.ghost.remove();
  const to = squareAt(ev.clientX, ev.clientY);
  if (to !== null && to !== drag.from) tryMove(drag.from, to);
}

// ---------------------------------------------------------------- game flow

async function loadState() {
  // Only the answer for the latest request counts (navigation is quick).
  const token = ++S.stateRequests;
  const st = await api('POST', '/api/state',
                       gameBody(S.moves.slice(0, S.view)));
  if (token !== S.stateRequests) return;
  S.state = st;
  S.startSide = ((st.sideToMove - st.ply) % 2 + 2) % 2;
  onPositionChanged();
}

function onPositionChanged() {
  S.selected = null;
  render();
  if (S.analysis) startAnalysis();
}

async function setView(ply) {
  ply = Math.max(0, Math.min(S.moves.length, ply));
  if (ply === S.view && S.state) return;
  S.view = ply;
  try {
    await loadState();
  } catch (e) {
    fail(e);
  }
}

function engineSide() {
  const v = $('engine-side').value;
  return v === 'none' ? null : parseInt(v, 10);
}

function maybeEngineMove() {
  const st = S.state;
  if (!st.result.over && engineSide() === st.sideToMove &&
      S.view === S.moves.length) {
    engineMove();
  }
}

async function engineMove() {
  if (S.busy || S.state.result.over) return;
  const token = Date.now();
  S.busy = token;
  const line = S.moves.slice(0, S.view);
  const strength = Math.max(1, parseInt($('strength').value, 10) || 1);
  const extra = {};
  extra[$('strength-kind').value] = strength;
  $('thinking').hidden = false;
  $('engine-move').disabled = true;
  try {
    const st = await api('POST', '/api/engine-move', gameBody(line, extra));
    if (S.busy !== token || S.view !== line.length) return;
    S.moves = st.moves;
    S.view = st.ply;
    S.state = st;
    S.stateRequests++;
    const e = st.engine;
    const wdl = e.root.wdl.map((x) => Math.round(x * 100));
    say(`Volkhv plays ${e.move} (${e.root.visits} visits, W/D/L ` +
        `${wdl.join('/')} %)`);
    // The bar shows the first player's expected score.
    const w = e.root.sideToMove === 0 ? e.root.wdl[0] : e.root.wdl[2];
    $('eval-fill').style.height = percent(w + e.root.wdl[1] / 2) + '%';
    onPositionChanged();
  } catch (err) {
    fail(err);
  } finally {
    if (S.busy === token) S.busy = 0;
    $('thinking').hidden = true;
    $('engine-move').disabled = false;
  }
}

async function newGame(start) {
  S.busy = 0;
  S.start = start || '';
  S.moves = [];
  S.view = 0;
  S.selected = null;
  S.state = null;
  S.gameReport = null;
  stopGameAnalysis();
  renderGraph();
  await loadState();
  say('');
  maybeEngineMove();
}

async function switchGame(name) {
  S.game = name;
  $('game-select').value = name;
  $('prince-steps-label').hidden = !isTavlei();
  $('prince-steps-label').firstChild.textContent =
      name === 'tavlei9' ? 'Prince moves ' : 'King moves ';
  const players = info().players;
  $('engine-side').options[1].textContent = players[1];
  $('engine-side').options[2].textContent = players[0];
  stopAnalysis();
  $('record-text').value = '';
  $('record-games').hidden = true;
  S.records = [];
  buildBoard();
  await newGame('');
}

function undo() {
  if (!S.moves.length) return;
  S.busy = 0;
  let ply = Math.min(S.view, S.moves.length);
  const engine = engineSide();
  if (ply > 0) ply--;
  if (engine !== null && ply > 0 && sideAt(ply) === engine) ply--;
  S.moves = S.moves.slice(0, ply);
  S.view = ply;
  loadState().catch(fail);
}

// ---------------------------------------------------------------- move list

function renderMoveList() {
  const list = $('move-list');
  list.innerHTML = '';
  const report = S.gameReport;
  const drops = biggestDrops();
  let row = null;
  S.moves.forEach((text, i) => {
    const side = sideAt(i);
    if (side === 0 || i === 0) {
      row = document.createElement('div');
      row.className = 'row';
      const num = document.createElement('span');
      num.className = 'num';
      num.textContent = `${Math.floor((i + S.startSide) / 2) + 1}.`;
      row.appendChild(num);
      if (side === 1) {
        const dots = document.createElement('span');
        dots.textContent = '…';
        row.appendChild(dots);
      }
      list.appendChild(row);
    }
    const span = document.createElement('span');
    span.className = 'mv' + (i + 1 === S.view ? ' current' : '');
    span.dataset.ply = i + 1;
    span.textContent = text;
    const entry = report && report.plies[i];
    if (entry && entry.playedRank) {
      const r = document.createElement('span');
      r.className = 'rank';
      r.textContent = `#${entry.playedRank}`;
      r.title = `the engine's rank for this move among ${entry.candidates}`;
      span.appendChild(r);
    }
    if (drops.has(i)) span.classList.add('blunder');
    span.addEventListener('click', () => setView(i + 1));
    row.appendChild(span);
  });
  const current = list.querySelector('.current');
  if (current) current.scrollIntoView({ block: 'nearest' });
}

// ---------------------------------------------------------------- analysis

function stopAnalysis() {
  const a = S.analysis;
  S.analysis = null;
  S.analysisReport = null;
  if (a) {
    clearTimeout(a.timer);
    if (a.id) api('POST', `/api/analysis/${a.id}/stop`).catch(() => {});
  }
  $('analysis-toggle').textContent = 'Start';
  $('analysis-toggle').classList.remove('active');
  clearAnalysisView();
}

function clearAnalysisView() {
  $('top-moves').querySelector('tbody').innerHTML = '';
  $('wdl-text').textContent = '';
  for (const part of ['w', 'd', 'l']) {
    $('wdl-bar').querySelector('.' + part).style.width =
        part === 'd' ? '34%' : '33%';
  }
  $('eval-fill').style.height = '50%';
  renderArrows();
}

async function startAnalysis() {
  const previous = S.analysis;
  if (previous) {
    clearTimeout(previous.timer);
    if (previous.id) {
      await api('POST', `/api/analysis/${previous.id}/stop`).catch(() => {});
    }
  }
  const a = { id: null, timer: null, position: S.state.position };
  S.analysis = a;
  S.analysisReport = null;
  $('analysis-toggle').textContent = 'Stop';
  $('analysis-toggle').classList.add('active');
  renderArrows();
  if (S.state.result.over) {
    renderAnalysis({ running: false, moveInfos: [] });
    return;
  }
  try {
    const started = await api('POST', '/api/analysis',
                              gameBody(S.moves.slice(0, S.view),
                                       { multiPv: 5 }));
    if (S.analysis !== a) {
      api('POST', `/api/analysis/${started.id}/stop`).catch(() => {});
      return;
    }
    a.id = started.id;
    pollAnalysis(a);
  } catch (e) {
    fail(e);
    if (S.analysis === a) stopAnalysis();
  }
}

async function pollAnalysis(a) {
  if (S.analysis !== a) return;
  try {
    const report = await api('GET', `/api/analysis/${a.id}`);
    if (S.analysis !== a) return;
    S.analysisReport = report;
    renderAnalysis(report);
    if (report.running) {
      a.timer = setTimeout(() => pollAnalysis(a), 400);
    } else {
      $('analysis-toggle').textContent = 'Start';
      $('analysis-toggle').classList.remove('active');
      S.analysis = null;
    }
  } catch (e) {
    fail(e);
  }
}

function percent(x) { return (x * 100).toFixed(1); }

function renderAnalysis(report) {
  const body = $('top-moves').querySelector('tbody');
  body.innerHTML = '';
  const root = report.rootInfo;
  if (root) {
    const side = root.sideToMove;
    // From the first player's side: W = first player wins.
    const w = side === 0 ? root.wdl[0] : root.wdl[2];
    const l = side === 0 ? root.wdl[2] : root.wdl[0];
    const d = root.wdl[1];
    const bar = $('wdl-bar');
    bar.querySelector('.w').style.width = percent(w) + '%';
    bar.querySelector('.d').style.width = percent(d) + '%';
    bar.querySelector('.l').style.width = percent(l) + '%';
    const proven = root.proven ?
        ` — proven ${root.proven} for ${sideName(side)} in ${root.provenPlies} ply` : '';
    $('wdl-text').textContent =
        `${capital(sideName(0))} ${percent(w)}% · draw ${percent(d)}% · ` +
        `${sideName(1)} ${percent(l)}%  (${root.visits} visits${proven})`;
    $('eval-fill').style.height = percent(w + d / 2) + '%';
  }
  for (const m of report.moveInfos || []) {
    const tr = document.createElement('tr');
    const wdl = m.wdl.map((x) => Math.round(x * 100)).join('/');
    const cells = [m.move, m.visits, m.proven ? `${m.proven} (${m.provenPlies})` : wdl,
                   m.pv.slice(0, 8).join(' ')];
    cells.forEach((text, i) => {
      const td = document.createElement('td');
      td.textContent = text;
      if (i === 3) td.className = 'pv';
      tr.appendChild(td);
    });
    tr.title = 'click to play';
    tr.style.cursor = 'pointer';
    tr.addEventListener('click', () => playMove(m.move));
    body.appendChild(tr);
  }
  renderArrows();
}

function renderArrows() {
  const svg = $('arrows');
  svg.innerHTML = '';
  const report = S.analysisReport;
  if (!S.analysis || !report || !report.moveInfos || !S.state ||
      report.position !== S.state.position) {
    return;
  }
  const sq = SIZES[S.game];
  const { width, height } = info();
  const ns = 'http://www.w3.org/2000/svg';
  const defs = document.createElementNS(ns, 'defs');
  defs.innerHTML = '<marker id="head" viewBox="0 0 10 10" refX="5" refY="5" ' +
      'markerWidth="2.4" markerHeight="2.4" orient="auto-start-reverse">' +
      '<path d="M0,0 L10,5 L0,10 z" fill="context-stroke"/></marker>';
  svg.appendChild(defs);
  const centre = (name) => {
    const index = squareIndex(name);
    let file = index % width;
    let rank = Math.floor(index / width);
    if (S.flipped) {
      file = width - 1 - file;
    } else {
      rank = height - 1 - rank;
    }
    return [file * sq + sq / 2, rank * sq + sq / 2];
  };
  const moves = report.moveInfos.slice(0, 3);
  const total = Math.max(1, moves[0] ? moves[0].visits : 1);
  // The best move last, on top of the others.
  moves.map((m, i) => [m, i]).reverse().forEach(([m, i]) => {
    const [x1, y1] = centre(m.from);
    const [x2, y2] = centre(m.to);
    const len = Math.hypot(x2 - x1, y2 - y1);
    const shorten = sq * 0.28;
    const ex = x2 - (x2 - x1) * shorten / len;
    const ey = y2 - (y2 - y1) * shorten / len;
    const line = document.createElementNS(ns, 'line');
    line.setAttribute('x1', x1);
    line.setAttribute('y1', y1);
    line.setAttribute('x2', ex);
    line.setAttribute('y2', ey);
    const share = Math.max(0.25, m.visits / total);
    line.setAttribute('stroke', i === 0 ? '#1f6fd1' : '#2e9b4f');
    line.setAttribute('stroke-opacity', i === 0 ? 0.8 : 0.35 + 0.35 * share);
    line.setAttribute('stroke-width', sq * (0.08 + 0.08 * share));
    line.setAttribute('stroke-linecap', 'round');
    line.setAttribute('marker-end', 'url(#head)');
    line.classList.add('arrow');
    svg.appendChild(line);
  });
}

// ---------------------------------------------------------------- whole game

function stopGameAnalysis() {
  const g = S.gameAnalysis;
  S.gameAnalysis = null;
  if (g) {
    clearTimeout(g.timer);
    if (g.id) api('POST', `/api/game-analysis/${g.id}/stop`).catch(() => {});
  }
  $('game-analysis-toggle').textContent = 'Analyse';
  $('game-analysis-toggle').classList.remove('active');
}

async function startGameAnalysis() {
  stopGameAnalysis();
  if (!S.moves.length) {
    say('Play or load some moves first', true);
    return;
  }
  const visits = Math.max(1, parseInt($('game-visits').value, 10) || 100);
  const g = { id: null, timer: null, moves: S.moves.slice() };
  S.gameAnalysis = g;
  S.gameReport = null;
  $('game-analysis-toggle').textContent = 'Stop';
  $('game-analysis-toggle').classList.add('active');
  try {
    const started = await api('POST', '/api/game-analysis',
                              gameBody(g.moves, { visitsPerPly: visits }));
    g.id = started.id;
    pollGameAnalysis(g);
  } catch (e) {
    fail(e);
    stopGameAnalysis();
  }
}

async function pollGameAnalysis(g) {
  if (S.gameAnalysis !== g) return;
  try {
    const report = await api('GET', `/api/game-analysis/${g.id}`);
    if (S.gameAnalysis !== g) return;
    if (S.moves.join(' ').startsWith(g.moves.join(' ')) && report.plies) {
      S.gameReport = report;
    }
    renderGraph();
    renderMoveList();
    if (report.running) {
      g.timer = setTimeout(() => pollGameAnalysis(g), 500);
    } else {
      S.gameAnalysis = null;
      $('game-analysis-toggle').textContent = 'Analyse';
      $('game-analysis-toggle').classList.remove('active');
    }
  } catch (e) {
    fail(e);
  }
}

// Plies whose move lost the most (at least 10 % of expected score): the
// three biggest.
function biggestDrops() {
  const report = S.gameReport;
  const result = new Set();
  if (!report) return result;
  report.plies
      .filter((p) => p.drop !== undefined && p.drop >= 0.1)
      .sort((a, b) => b.drop - a.drop)
      .slice(0, 3)
      .forEach((p) => result.add(p.ply));
  return result;
}

function renderGraph() {
  const svg = $('graph');
  const report = S.gameReport;
  svg.innerHTML = '';
  svg.style.display = report ? '' : 'none';
  if (!report) {
    $('game-analysis-note').textContent =
        'The evaluation after every ply, each move\'s rank among the ' +
        'engine\'s candidates and the biggest drops.';
    return;
  }
  const total = Math.max(2, report.total);
  const x = (ply) => (ply / (total - 1)) * 300;
  const y = (q) => 45 - q * 42;
  const ns = 'http://www.w3.org/2000/svg';
  const mid = document.createElementNS(ns, 'line');
  mid.setAttribute('x1', 0); mid.setAttribute('x2', 300);
  mid.setAttribute('y1', 45); mid.setAttribute('y2', 45);
  mid.setAttribute('stroke', '#bbb'); mid.setAttribute('stroke-width', 0.5);
  svg.appendChild(mid);
  const points = report.plies.map((p) => `${x(p.ply)},${y(p.q)}`);
  if (points.length) {
    const area = document.createElementNS(ns, 'polygon');
    area.setAttribute('points', `${x(0)},45 ${points.join(' ')} ` +
        `${x(report.plies[report.plies.length - 1].ply)},45`);
    area.setAttribute('fill', 'rgba(140, 47, 27, 0.18)');
    svg.appendChild(area);
    const line = document.createElementNS(ns, 'polyline');
    line.setAttribute('points', points.join(' '));
    line.setAttribute('fill', 'none');
    line.setAttribute('stroke', '#8c2f1b');
    line.setAttribute('stroke-width', 1.5);
    line.setAttribute('vector-effect', 'non-scaling-stroke');
    svg.appendChild(line);
  }
  const drops = biggestDrops();
  for (const ply of drops) {
    const p = report.plies[ply + 1];
    if (!p) continue;
    const c = document.createElementNS(ns, 'circle');
    c.setAttribute('cx', x(p.ply));
    c.setAttribute('cy', y(p.q));
    c.setAttribute('r', 3);
    c.setAttribute('fill', '#d00');
    svg.appendChild(c);
  }
  const cursor = document.createElementNS(ns, 'line');
  cursor.setAttribute('x1', x(S.view)); cursor.setAttribute('x2', x(S.view));
  cursor.setAttribute('y1', 0); cursor.setAttribute('y2', 90);
  cursor.setAttribute('stroke', '#1f6fd1'); cursor.setAttribute('stroke-width', 1);
  cursor.setAttribute('vector-effect', 'non-scaling-stroke');
  svg.appendChild(cursor);
  const notes = [...drops].sort((a, b) => a - b).map((ply) => {
    const p = report.plies[ply];
    return `${Math.floor((ply + S.startSide) / 2) + 1}.${sideAt(ply) ? '..' : ''} ` +
        `${p.played} (−${Math.round(p.drop * 100)}%, best ${p.best})`;
  });
  const done = report.plies.length;
  $('game-analysis-note').textContent =
      (report.running ? `Analysing: ${done}/${report.total} positions. ` :
          `${done}/${report.total} positions analysed. `) +
      (notes.length ? 'Biggest drops: ' + notes.join('; ') :
          'No move lost 10% or more.');
}

// ---------------------------------------------------------------- setup

async function setUp() {
  const text = $('position-text').value.trim();
  try {
    const st = await api('POST', '/api/state',
                         { game: S.game, gameOptions: gameOptions(), position: text });
    stopAnalysis();
    await newGame(st.start);
    say('Position set up');
  } catch (e) {
    fail(e);
  }
}

async function copyPosition() {
  const text = S.state.position;
  $('position-text').value = text;
  try {
    await navigator.clipboard.writeText(text);
    say('Position copied');
  } catch (e) {
    $('position-text').select();
    say('Position selected in the box; copy it with Ctrl-C');
  }
}

async function loadRecord(text) {
  try {
    const answer = await api('POST', '/api/record',
                             { game: S.game, gameOptions: gameOptions(), text });
    S.records = answer.games;
    const select = $('record-games');
    select.innerHTML = '';
    answer.games.forEach((g, i) => {
      const o = document.createElement('option');
      o.value = i;
      o.textContent = `${i + 1}. ${g.name || 'game'} (${g.moves.length} plies)`;
      select.appendChild(o);
    });
    select.hidden = answer.games.length < 2;
    await showRecord(0);
  } catch (e) {
    fail(e);
  }
}

async function showRecord(i) {
  const g = S.records[i];
  stopAnalysis();
  stopGameAnalysis();
  S.start = g.position;
  S.moves = g.moves;
  S.view = 0;
  S.gameReport = null;
  await loadState();
  say(g.error ? `Game ${i + 1}: ${g.error} (kept the moves before it)` :
      `Loaded ${g.name || 'the game'}: ${g.moves.length} plies; step ` +
      'through with ▶ or the arrow keys', !!g.error);
}

async function download() {
  try {
    const answer = await api('POST', '/api/export', gameBody(S.moves, {
      tags: { Game: `Volkhv web board, ${S.game}`,
              Date: new Date().toISOString().slice(0, 10) },
    }));
    const blob = new Blob([answer.text], { type: 'text/plain' });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = `volkhv-${S.game}.txt`;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  } catch (e) {
    fail(e);
  }
}

// ---------------------------------------------------------------- start

async function main() {
  const about = await api('GET', '/api/info');
  for (const g of about.games) S.games[g.name] = g;
  $('server-note').textContent =
      `searches ≤ ${about.limits.maxVisits} visits`;
  const board = $('board');
  board.addEventListener('pointerdown', onPointerDown);
  window.addEventListener('pointermove', onPointerMove);
  window.addEventListener('pointerup', onPointerUp);
  $('game-select').addEventListener('change', (e) => switchGame(e.target.value).catch(fail));
  $('new-game').addEventListener('click', () => { stopAnalysis(); newGame('').catch(fail); });
  $('prince-steps').addEventListener('change', () => { stopAnalysis(); newGame('').catch(fail); });
  $('nav-first').addEventListener('click', () => setView(0));
  $('nav-prev').addEventListener('click', () => setView(S.view - 1));
  $('nav-next').addEventListener('click', () => setView(S.view + 1));
  $('nav-last').addEventListener('click', () => setView(S.moves.length));
  $('flip').addEventListener('click', () => {
    S.flipped = !S.flipped;
    $('eval-bar').classList.toggle('flipped', S.flipped);
    buildBoard();
    render();
  });
  $('engine-move').addEventListener('click', engineMove);
  $('engine-side').addEventListener('change', () => maybeEngineMove());
  $('undo').addEventListener('click', undo);
  $('analysis-toggle').addEventListener('click', () => {
    if (S.analysis) stopAnalysis(); else startAnalysis();
  });
  $('game-analysis-toggle').addEventListener('click', () => {
    if (S.gameAnalysis) stopGameAnalysis(); else startGameAnalysis();
  });
  $('graph').addEventListener('click', (e) => {
    if (!S.gameReport) return;
    const r = $('graph').getBoundingClientRect();
    const total = Math.max(2, S.gameReport.total);
    setView(Math.round((e.clientX - r.left) / r.width * (total - 1)));
  });
  $('setup').addEventListener('click', setUp);
  $('copy-position').addEventListener('click', copyPosition);
  $('load-record').addEventListener('click', () => loadRecord($('record-text').value));
  $('game-file').addEventListener('change', async (e) => {
    const file = e.target.files[0];
    if (!file) return;
    const text = await file.text();
    $('record-text').value = text;
    loadRecord(text);
  });
  $('record-games').addEventListener('change', (e) =>
    showRecord(parseInt(e.target.value, 10)).catch(fail));
  $('download').addEventListener('click', download);
  document.addEventListener('keydown', (e) => {
    if (e.target.closest('textarea, input, select')) return;
    if (e.key === 'ArrowLeft') setView(S.view - 1);
    if (e.key === 'ArrowRight') setView(S.view + 1);
    if (e.key === 'Home') setView(0);
    if (e.key === 'End') setView(S.moves.length);
    if (e.key === 'Escape') { S.selected = null; renderSelection(); }
    if (e.key === 'f') $('flip').click();
  });
  await switchGame('tavreli');
  renderGraph();
  document.body.dataset.ready = 'true';
}

main().catch(fail);
