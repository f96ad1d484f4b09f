// End-to-end test of the web board: starts `volkhv serve --port 0 --net
// random`, opens the page in Debian's headless Chromium through
// puppeteer-core and plays it like a user. Every check waits for a DOM
// condition (no fixed sleeps). Screenshots go to --out.
//
//   node web/test/e2e.mjs --binary build/volkhv --out build/web-e2e
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';

let puppeteer;
try {
  puppeteer = (await import('puppeteer-core')).default;
} catch (e) {
  console.error('puppeteer-core is missing: run `bash scripts/install-deps.sh` ' +
                '(npm ci in web/test)');
  process.exit(1);
}

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const binary = option('--binary', 'build/volkhv');
const outDir = option('--out', 'build/web-e2e');
const chromium = option('--chromium', process.env.CHROMIUM || '/usr/bin/chromium');
const WAIT = 90000;  // generous: a loaded 2-core machine

// Five mixed pieces on d4, bottom to top.
const TALL_STACK = '4k3/8/8/8/3(RpqbPH+N)4/8/8/4K3 w - - 0 1';
const TALL_STACK_TOKENS = ['R', 'pq', 'b', 'PH', '+N'];

mkdirSync(outDir, { recursive: true });
if (!existsSync(chromium)) {
  console.error(`no browser at ${chromium}: run \`bash scripts/install-deps.sh\``);
  process.exit(1);
}

function startServer() {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ['serve', '--port', '0', '--net', 'random',
                                 '--threads', '1'],
                        { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error('server did not start')),
                             WAIT);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = out.match(/http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[0] });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${out}`));
    });
  });
}

const steps = [];
function step(name) {
  steps.push(name);
  console.log(`[e2e] ${name}`);
}

async function shot(page, name) {
  const file = path.join(outDir, name);
  await page.screenshot({ path: file });
  console.log(`[e2e] screenshot ${file}`);
}

const started = Date.now();
const { child: server, url } = await startServer();
let browser;
let exitCode = 0;
try {
  browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
           '--window-size=1280,900'],
    defaultViewport: { width: 1280, height: 900 },
    protocolTimeout: WAIT * 2,
  });
  const page = await browser.newPage();
  page.setDefaultTimeout(WAIT);
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  const sq = (name) => `.sq[data-square="${name}"]`;
  const waitFor = (fn, ...fnArgs) =>
    page.waitForFunction(fn, { timeout: WAIT, polling: 50 }, ...fnArgs);
  const moveTexts = () => page.$$eval('#move-list .mv[data-ply]',
                                      (els) => els.map((e) => e.firstChild.textContent));

  step('open the page');
  await page.goto(url, { waitUntil: 'load' });
  await waitFor(() => document.body.dataset.ready === 'true');
  await page.$eval('#strength', (e) => { e.value = '16'; });

  step('select e2: its legal targets are highlighted');
  await page.click(sq('e2'));
  await waitFor(() => document.querySelectorAll('.sq.target').length === 2);
  const targets = await page.$$eval('.sq.target', (els) => els.map((e) => e.dataset.square).sort());
  if (targets.join() !== 'e3,e4') throw new Error(`targets of e2: ${targets}`);

  step('play e2-e4 by clicking; the engine replies; the move list updates');
  await page.click(sq('e4'));
  await waitFor(() => document.querySelectorAll('#move-list .mv[data-ply]').length === 2 &&
                      document.getElementById('thinking').hidden);
  let moves = await moveTexts();
  if (moves[0] !== 'e2-e4') throw new Error(`first move ${moves[0]}`);
  const e4 = await page.$$eval(`${sq('e4')} .disc`, (els) => els.map((e) => e.dataset.token));
  if (e4.join() !== 'PH') throw new Error(`e4 holds ${e4}`);
  const lastMarked = await page.$$eval('.sq.last', (els) => els.length);
  if (lastMarked !== 2) throw new Error(`${lastMarked} squares mark the last move`);
  await shot(page, 'web-play.png');

  step('an illegal move is refused with the reason');
  await page.click(sq('d2'));
  await page.click(sq('d5'));
  await waitFor(() => {
    const m = document.getElementById('message');
    return m.classList.contains('error') && /illegal move/i.test(m.textContent);
  });
  const refusal = await page.$eval('#message', (e) => e.textContent);
  console.log(`[e2e]   refused: ${refusal}`);
  moves = await moveTexts();
  if (moves.length !== 2) throw new Error('the illegal move changed the game');

  step('drag a piece: g1 to f3');
  const from = await (await page.$(sq('g1'))).boundingBox();
  const to = await (await page.$(sq('f3'))).boundingBox();
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(from.x + from.width / 2 + 20, from.y + 10, { steps: 3 });
  await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 5 });
  await page.mouse.up();
  await waitFor(() => document.querySelectorAll('#move-list .mv[data-ply]').length === 4 &&
                      document.getElementById('thinking').hidden);
  moves = await moveTexts();
  if (moves[2] !== 'g1-f3') throw new Error(`third move ${moves[2]}`);

  step('navigate back and forth through the moves');
  await page.click('#nav-first');
  await waitFor(() => document.querySelector('.sq[data-square="e2"] .disc') !== null &&
                      !document.querySelector('.sq.last'));
  await page.click('#nav-last');
  await waitFor(() => document.querySelector('#move-list .mv.current')?.dataset.ply === '4');

  step('whole-game analysis: an evaluation per ply and each move\'s rank');
  await page.$eval('#game-visits', (e) => { e.value = '16'; });
  await page.click('#game-analysis-toggle');
  await waitFor(() => /5\/5 positions analysed/.test(
    document.getElementById('game-analysis-note').textContent));
  const ranks = await page.$$eval('#move-list .mv .rank', (els) => els.length);
  if (ranks !== 4) throw new Error(`${ranks} moves show a rank`);
  await page.waitForSelector('#graph polyline');

  step('castle by moving the king two squares');
  await page.select('#engine-side', 'none');
  await page.$eval('#position-text', (e) => { e.value = 'r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1'; });
  await page.click('#setup');
  await waitFor(() => document.getElementById('message').textContent === 'Position set up');
  await page.click(sq('e1'));
  await waitFor(() => document.querySelector('.sq[data-square="g1"]').classList.contains('target'));
  await page.click(sq('g1'));
  await waitFor(() => document.querySelector('#move-list .mv[data-ply="1"]')?.firstChild.textContent === '0-0');
  const castled = await page.$$eval(`${sq('f1')} .disc, ${sq('g1')} .disc`, (els) => els.map((e) => e.dataset.token));
  if (castled.join() !== 'R,K') throw new Error(`after 0-0 f1, g1 hold ${castled}`);

  step('capture en passant in a game loaded from a record');
  await page.$eval('#record-text', (e) => { e.value = '[Game "en passant"]\n1. e2-e4 a7-a6 2. e4-e5 d7-d5\n'; });
  await page.click('#load-record');
  await waitFor(() => document.querySelectorAll('#move-list .mv[data-ply]').length === 4);
  await page.click('#nav-last');
  await waitFor(() => document.querySelector('#move-list .mv.current')?.dataset.ply === '4');
  await page.click(sq('e5'));
  await page.click(sq('d6'));
  await waitFor(() => document.querySelectorAll('.sq[data-square="d6"] .disc').length === 2 &&
                      !document.querySelector('.sq[data-square="d5"] .disc'));
  const passed = await page.$$eval(`${sq('d6')} .disc`, (els) => els.map((e) => e.dataset.token));
  if (passed.join() !== 'pq,PH') throw new Error(`d6 after e5xd6: ${passed}`);

  step('set up a TFEN with a tower of five mixed pieces');
  await page.$eval('#position-text', (e, text) => { e.value = text; }, TALL_STACK);
  await page.click('#setup');
  await waitFor(() => document.querySelectorAll('.sq[data-square="d4"] .disc').length === 5);
  const tower = await page.$$eval(`${sq('d4')} .disc`, (els) => els.map((e) => ({
    token: e.dataset.token, y: e.getBoundingClientRect().top,
    visible: e.getBoundingClientRect().height >= 8,
  })));
  const tokens = tower.map((d) => d.token);
  if (tokens.join() !== TALL_STACK_TOKENS.join()) {
    throw new Error(`d4 draws ${tokens}, expected ${TALL_STACK_TOKENS}`);
  }
  for (let i = 1; i < tower.length; i++) {
    if (!(tower[i].y < tower[i - 1].y)) throw new Error('the tower is not drawn bottom to top');
  }
  if (!tower.every((d) => d.visible)) throw new Error('a piece of the tower is too small to see');
  const promoted = await page.$$eval(`${sq('d4')} .disc.promoted`, (els) => els.map((e) => e.dataset.token));
  if (promoted.join() !== '+N') throw new Error(`promoted marks: ${promoted}`);

  step('choose how many pieces move by clicking the piece in the tower');
  await page.click(`${sq('d4')} .disc[data-layer="2"]`);
  await waitFor(() => document.querySelector('#picker button.chosen')?.dataset.count === '3');
  await shot(page, 'web-tower.png');
  await page.click(sq('f5'));
  await waitFor(() => document.querySelectorAll('.sq[data-square="f5"] .disc').length === 3);
  const split = await page.$$eval(`${sq('d4')} .disc`, (els) => els.map((e) => e.dataset.token));
  if (split.join() !== 'R,pq') throw new Error(`d4 after the split: ${split}`);

  step('live analysis shows top moves and arrows');
  await page.click('#analysis-toggle');
  await waitFor(() => document.querySelectorAll('#top-moves tbody tr').length >= 3 &&
                      document.querySelectorAll('#arrows line.arrow').length >= 1);
  await waitFor(() => /visits/.test(document.getElementById('wdl-text').textContent));
  await shot(page, 'web-analysis.png');
  await page.click('#analysis-toggle');
  await waitFor(() => document.getElementById('analysis-toggle').textContent === 'Start');

  step('switch to Tavlei 11x11 and play a move');
  await page.select('#engine-side', '1');
  await page.select('#game-select', 'tavlei11');
  await waitFor(() => document.querySelectorAll('#board .sq').length === 121 &&
                      document.querySelectorAll('#board .piece-tav').length === 37);
  const king = await page.$eval(`${sq('f6')} .piece-tav`, (e) => e.dataset.token);
  if (king !== 'K') throw new Error(`f6 holds ${king}`);
  await page.click(sq('d1'));
  await waitFor(() => document.querySelectorAll('.sq.target').length === 6);
  await page.click(sq('d4'));
  await waitFor(() => document.querySelectorAll('#move-list .mv[data-ply]').length === 2 &&
                      document.getElementById('thinking').hidden);
  moves = await moveTexts();
  if (moves[0] !== 'd1-d4') throw new Error(`first Tavlei move ${moves[0]}`);
  await shot(page, 'web-tavlei11.png');

  step('flip the board');
  await page.click('#flip');
  await waitFor(() => document.querySelector('#board .sq').dataset.square === 'k1');

  if (pageErrors.length) throw new Error(`page errors: ${pageErrors.join('; ')}`);
  console.log(`[e2e] passed: ${steps.length} steps in ${((Date.now() - started) / 1000).toFixed(1)} s`);
} catch (e) {
  console.error(`[e2e] FAILED at "${steps[steps.length - 1]}": ${e.stack || e}`);
  exitCode = 1;
  if (browser) {
    try {
      const pages = await browser.pages();
      const page = pages[pages.length - 1];
      await page.screenshot({ path: path.join(outDir, 'web-failure.png') });
      console.error(`[e2e] message: ${await page.$eval('#message', (e) => e.textContent)}`);
    } catch (ignored) {
      // The browser is gone; nothing more to show.
    }
  }
} finally {
  if (browser) await browser.close().catch(() => {});
  server.kill('SIGINT');
  const code = await new Promise((resolve) => {
    const timer = setTimeout(() => { server.kill('SIGKILL'); resolve('killed'); }, 20000);
    server.on('exit', (c) => { clearTimeout(timer); resolve(c); });
  });
  if (code !== 0) {
    console.error(`[e2e] the server did not stop cleanly on Ctrl-C (${code})`);
    exitCode = 1;
  } else {
    console.log('[e2e] the server stopped cleanly on SIGINT');
  }
}
process.exit(exitCode);
