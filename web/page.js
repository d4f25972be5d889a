// The page: controls in, the engine's own outputs drawn. Every number comes from a rooflineplan
// command run in WebAssembly (engine.js, web/page_api.cpp): the point's JSON report, the table the
// terminal prints, the three charts' SVG, the explain story and the plan. This file only lays
// them out and formats a few of the report's numbers for reading; it computes none of them.
'use strict';

// ---- the engine ---------------------------------------------------------------------------
var Module = {
  print: function () {},
  printErr: function (text) { console.warn(text); },
};

// engine.js defines its own globals (run, out, err, FS...): the page keeps to a scope of its own.
(function () {

// Runs `rooflineplan ARGS...`; returns {exit, out, err}.
function run(args) {
  return JSON.parse(Module.ccall('rp_run', 'string', ['string'], [JSON.stringify(args.map(String))]));
}

// ---- state, all of it in the address ------------------------------------------------------
const defaults = {
  model: 'llama-2-7b', gpu: 'a100-80gb', batch: 1, prompt: 512, gen: 256, context: '', weights: '', kv: '',
  tp: 1, view: 'roofline', lang: 'en', modeltext: '', gputext: '', modelfile: '', gpufile: '',
  rate: 10, ttft: '1 s', tpot: '50 ms', plantp: '1,2,4,8', plangpus: 'a100-80gb,h100-sxm,l40s', prices: '',
};
const state = Object.assign({}, defaults);

// The address is the whole state: what it leaves out is the default, not what was there before.
// A link may give the keys as a query too (index.html?model=Qwen/Qwen3-8B); the hash, which the
// page writes, wins, and the first write folds the query into it.
function readAddress() {
  Object.assign(state, defaults);
  for (const params of [new URLSearchParams(location.search), new URLSearchParams(location.hash.slice(1))]) {
    for (const key of Object.keys(defaults)) {
      if (!params.has(key)) continue;
      const v = params.get(key);
      state[key] = typeof defaults[key] === 'number' ? Number(v) : v;
    }
  }
}

function writeAddress() {
  const params = new URLSearchParams();
  for (const key of Object.keys(defaults)) {
    if (String(state[key]) !== String(defaults[key])) params.set(key, state[key]);
  }
  history.replaceState(null, '', location.pathname + '#' + params.toString());
}

// Pasted text travels in the address as base64 of its UTF-8 bytes.
function encodeText(text) {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text)));
}
function decodeText(b64) {
  return new TextDecoder().decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
}

// A pasted model or GPU is written where the loaders read files; a config.json keeps its name,
// which is how the loader tells it from a YAML description.
function specFile(kind, b64) {
  const text = decodeText(b64);
  const path = '/user/' + kind + (text.trimStart().startsWith('{') ? '.json' : '.yaml');
  Module.FS.writeFile(path, text);
  return path;
}

function modelArg() { return state.modeltext ? specFile('model', state.modeltext) : state.model; }
function gpuArg() { return state.gputext ? specFile('gpu', state.gputext) : state.gpu; }

// The flags of the point on screen, as the command line takes them.
function pointFlags() {
  const f = ['--model', modelArg(), '--gpu', gpuArg(), '--batch', state.batch, '--prompt', state.prompt,
    '--gen', state.gen, '--tp', state.tp];
  if (state.context !== '') f.push('--context', state.context);
  if (state.weights) f.push('--weights', state.weights);
  if (state.kv) f.push('--kv', state.kv);
  return f;
}

// ---- formatting (for reading only: the report's numbers, rounded to three digits) ----------
const prefixes = [[1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k'], [1, '']];
function si(x, unit) {
  if (x === null || x === undefined) return 'n/a';
  if (x === 0) return '0 ' + unit;
  for (const [scale, p] of prefixes) {
    if (Math.abs(x) >= scale * 0.9995) return (x / scale).toPrecision(3) + ' ' + p + unit;
  }
  return x.toPrecision(3) + ' ' + unit;
}
function seconds(x) {
  if (x === null || x === undefined) return 'n/a';
  if (x === 0) return '0 s';
  const units = [[1, 's'], [1e-3, 'ms'], [1e-6, 'us'], [1e-9, 'ns']];
  for (const [scale, u] of units) {
    if (Math.abs(x) >= scale * 0.9995) return (x / scale).toPrecision(3) + ' ' + u;
  }
  return (x / 1e-9).toPrecision(3) + ' ns';
}
function count(x) {
  if (x === null || x === undefined) return 'n/a';
  if (Math.abs(x) >= 999.5) return Math.round(x).toLocaleString('en-US');
  return String(Number(x.toPrecision(3)));
}
function escapeHtml(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
}
function figure(id, label, value, text) {
  return `<div class="figure"><span class="label">${label}</span><span id="${id}" data-value="${value}">${escapeHtml(text)}</span></div>`;
}

// ---- drawing one point ----------------------------------------------------------------------
const $ = (id) => document.getElementById(id);

// The status line: what is on screen, or why nothing is.
function showStatus(text, bad) {
  $('status').textContent = text;
  $('status').classList.toggle('bad', !!bad);
}

// A command that failed: its message in the error box and the status line, and the views, which
// would show the last point that worked as if it were this one, hidden until one works again.
let failed = false;
function showFailure(answer) {
  failed = !!answer;
  $('error').hidden = !answer;
  $('error').textContent = answer ? answer.err.trim() : '';
  if (!answer) return;
  $('warnings').innerHTML = $('headline').innerHTML = '';
  for (const v of document.querySelectorAll('.view')) v.hidden = true;
  showStatus(`${answer.err.trim().split('\n')[0]} (exit ${answer.exit})`, true);
}

function drawHeadline(r) {
  const d = r.decode, p = r.prefill;
  $('headline').innerHTML =
    figure('decode-step', 'decode step', d.step_time, seconds(d.step_time)) +
    figure('decode-tokens', 'tokens/s', d.tokens_per_s, count(d.tokens_per_s) + ' tokens/s') +
    figure('decode-bound', 'decode is', d.bound, d.bound + '-bound') +
    figure('ttft', 'prefill (TTFT)', p.time, seconds(p.time)) +
    figure('prefill-bound', 'prefill is', p.bound, p.bound + '-bound') +
    figure('critical-batch', 'critical batch', r.critical_batch.weights_only, 'B* ' + count(r.critical_batch.weights_only)) +
    figure('expected-step', 'expected step', d.expected.step_time, seconds(d.expected.step_time));
}

function drawLedger(m) {
  const parts = [['weights', m.weights], ['KV cache', m.kv_cache], ['activations', m.activations], ['reserve', m.reserve]];
  const scale = Math.max(m.total, m.capacity);
  let bar = '';
  parts.forEach(([name, bytes], i) => {
    if (bytes === null || bytes <= 0) return;
    bar += `<div class="seg seg${i}" style="width:${(100 * bytes) / scale}%" title="${name}: ${si(bytes, 'B')}"></div>`;
  });
  const capacityAt = (100 * m.capacity) / scale;
  const legend = parts.map(([name, bytes], i) => `<span class="key seg${i}"></span>${name} ${si(bytes, 'B')}`).join(' ');
  $('ledger').innerHTML =
    `<div class="bar">${bar}<div class="capacity" style="left:${capacityAt}%" title="capacity"></div></div>` +
    `<p class="legend">${legend}; total <b id="memory-total" data-value="${m.total}">${si(m.total, 'B')}</b> of ` +
    `${si(m.capacity, 'B')}: <b class="${m.fits ? 'fits' : 'nofit'}">${m.fits ? 'fits' : 'does not fit'}</b>` +
    (m.max_batch !== null ? `; at most batch ${count(m.max_batch)}` : '') + '</p>';
}

function drawPhases(r) {
  const p = r.prefill, d = r.decode;
  const rows = [
    ['FLOPs', si(p.flops, 'FLOP'), si(d.flops, 'FLOP')],
    ['bytes', si(p.bytes, 'B'), si(d.bytes, 'B')],
    [`intensity (ridge ${count(r.gpu.ridge_point)} FLOP/B)`, si(p.intensity, 'FLOP/B'), si(d.intensity, 'FLOP/B')],
    ['compute time', seconds(p.compute_time), seconds(d.compute_time)],
    ['memory time', seconds(p.memory_time), seconds(d.memory_time)],
    ['communication time', seconds(p.comm_time), seconds(d.comm_time)],
    ['time (bound)', seconds(p.time) + ' (TTFT)', seconds(d.step_time)],
    ['bound', p.bound, d.bound],
    ['expected (10–90%)', `${seconds(p.expected.time)} (${seconds(p.expected.low)}–${seconds(p.expected.high)})`,
      `${seconds(d.expected.step_time)} (${seconds(d.expected.low)}–${seconds(d.expected.high)})`],
    ['tokens/s', '', count(d.tokens_per_s)],
  ];
  $('phases').innerHTML = '<table><thead><tr><th></th><th>prefill</th><th>decode step</th></tr></thead><tbody>' +
    rows.map((row) => '<tr>' + row.map((c, i) => (i ? `<td>${escapeHtml(c)}</td>` : `<th>${escapeHtml(c)}</th>`)).join('') + '</tr>').join('') +
    '</tbody></table>';
}

function drawChart(kind) {
  const path = `/out/${kind}.svg`;
  // The charts speak the story's language (plot --lang), chosen on the explain view.
  const a = run(['plot', ...pointFlags(), '--kind', kind, '--lang', state.lang, '--out', path]);
  $('chart-' + kind).innerHTML = a.exit === 0 ? Module.FS.readFile(path, { encoding: 'utf8' }) : `<pre>${escapeHtml(a.err)}</pre>`;
}

// The story, with the roofline drawn as SVG where the terminal draws it in characters: explain
// --plot writes the chart to a file and leaves a blank line in its place, before the self-test.
function drawExplain() {
  const path = '/out/explain.svg';
  const story = run(['explain', ...pointFlags(), '--lang', state.lang, '--plot', path]);
  if (story.exit !== 0) {
    $('explain').textContent = story.err;
    $('explain-chart').innerHTML = $('explain-quiz').textContent = '';
    return;
  }
  const gap = story.out.lastIndexOf('\n\n');
  $('explain').textContent = story.out.slice(0, gap);
  $('explain-chart').innerHTML = Module.FS.readFile(path, { encoding: 'utf8' });
  $('explain-quiz').textContent = story.out.slice(gap + 2);
}

// A model named by a preset's name or its Hugging Face id (the address, the id field) is shown as
// that preset, resolved by the engine as --model resolves it; a name it does not know is refused
// as a command's bad flag is, exit 2.
function resolveModel() {
  if (state.modeltext || choices.models.includes(state.model)) return null;
  const a = JSON.parse(Module.ccall('rp_model_preset', 'string', ['string'], [state.model]));
  if (a.error) return { exit: 2, err: 'error: ' + a.error };
  state.model = a.id;
  return null;
}

// Recomputes and redraws the whole view: the commands a terminal would run for this state.
function update() {
  const started = performance.now();
  const refused = resolveModel();
  writeAddress();
  const json = refused || run([...pointFlags(), '--format', 'json']);
  showFailure(json.exit !== 0 ? json : null);
  syncControls();
  window.rooflineplan.updates += 1;  // a redraw, of the views or of an error
  if (failed) return;
  const r = JSON.parse(json.out);
  $('warnings').innerHTML = r.warnings.map((w) => `<p>⚠ ${escapeHtml(w)}</p>`).join('');
  drawHeadline(r);
  drawLedger(r.memory);
  drawPhases(r);
  $('table-text').textContent = run(pointFlags()).out;
  for (const kind of ['roofline', 'batch', 'context']) drawChart(kind);
  drawExplain();
  if (window.rooflineplan.planCsv !== undefined) plan();  // a plan made once follows the controls
  window.rooflineplan.lastUpdateMs = performance.now() - started;
  showStatus(`${r.model.name} on ${r.gpu.name}: recomputed in ${window.rooflineplan.lastUpdateMs.toFixed(1)} ms`);
}

// ---- controls -------------------------------------------------------------------------------
// Logarithmic sliders: position 0..1 ↔ a whole number between lo and hi.
const sliders = { batch: [1, 1024], prompt: [1, 131072], gen: [1, 32768], context: [1, 1048576] };
function toValue(key, t) {
  const [lo, hi] = sliders[key];
  return Math.round(Math.exp(Math.log(lo) + t * (Math.log(hi) - Math.log(lo))));
}
function toPosition(key, v) {
  const [lo, hi] = sliders[key];
  return (Math.log(Math.max(v, lo)) - Math.log(lo)) / (Math.log(hi) - Math.log(lo));
}

function options(select, values, labels) {
  select.innerHTML = values.map((v, i) => `<option value="${escapeHtml(v)}">${escapeHtml(labels ? labels[i] : v)}</option>`).join('');
}

function syncControls() {
  for (const key of ['batch', 'prompt', 'gen']) {
    $(key).value = toPosition(key, state[key]);
    $(key + '-out').textContent = state[key];
  }
  const auto = state.context === '';
  $('context-auto').checked = auto;
  $('context').disabled = auto;
  const shown = auto ? state.prompt + Math.floor(state.gen / 2) : Number(state.context);
  $('context').value = toPosition('context', shown);
  $('context-out').textContent = shown;
  for (const key of ['weights', 'kv', 'tp']) $(key).value = String(state[key]);
  // A pasted or uploaded model or GPU is the one selected, under its own entry, not the preset it replaced.
  for (const kind of ['model', 'gpu']) {
    const text = state[kind + 'text'], file = state[kind + 'file'];
    const own = $(kind).querySelector('option.own');
    own.hidden = own.disabled = !text;
    own.textContent = file ? 'uploaded: ' + file : 'pasted ' + (kind === 'gpu' ? 'GPU' : 'model');
    $(kind).value = text ? own.value : String(state[kind]);
  }
  // The id field keeps a name the engine could not resolve, beside its error.
  if (state.modeltext || choices.models.includes(state.model)) $('model-id').value = '';
  else $('model-id').value = state.model;
  for (const b of document.querySelectorAll('#tabs button')) b.classList.toggle('on', b.dataset.view === state.view);
  for (const v of document.querySelectorAll('.view')) v.hidden = failed || v.id !== 'view-' + state.view;
  // The point's warnings and figures belong to the point's views; the plan shows its own.
  $('warnings').hidden = $('headline').hidden = state.view === 'plan';
  for (const b of document.querySelectorAll('.lang button')) b.classList.toggle('on', b.dataset.lang === state.lang);
}

// Slider drags redraw once per frame, however many input events arrive.
let pending = false;
function schedule() {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => { pending = false; update(); });
}

// The file a text box's text was read from, until the text is edited: the name its entry shows.
const uploaded = { model: '', gpu: '' };

function bindControls() {
  const modelIds = choices.models, gpuIds = choices.gpus;
  if (!modelIds.includes('/examples/7b.yaml')) modelIds.push('/examples/7b.yaml');
  if (!gpuIds.includes('/examples/a100.yaml')) gpuIds.push('/examples/a100.yaml');
  // Each list's first entry, hidden until used, stands for a pasted or uploaded spec (syncControls).
  options($('model'), [':own', ...modelIds], ['', ...modelIds.map((m) => (m.startsWith('/') ? 'seed example: ' + m.slice(1) : m))]);
  options($('gpu'), [':own', ...gpuIds], ['', ...gpuIds.map((g) => (g.startsWith('/') ? 'seed example: ' + g.slice(1) : g))]);
  for (const kind of ['model', 'gpu']) $(kind).options[0].className = 'own';
  $('model-ids').innerHTML = Object.entries(choices.model_hf_ids)
    .map(([preset, id]) => `<option value="${escapeHtml(id)}">${escapeHtml(preset)}</option>`).join('');
  $('model-id').addEventListener('change', () => {
    const name = $('model-id').value.trim();
    if (!name) return;
    Object.assign(state, { model: name, modeltext: '', modelfile: '' });
    schedule();
  });
  options($('weights'), ['', ...choices.weight_formats], ["the model's", ...choices.weight_formats]);
  options($('kv'), ['', ...choices.dtypes], ["the model's", ...choices.dtypes]);
  options($('tp'), ['1', '2', '4', '8', '16']);
  for (const key of ['batch', 'prompt', 'gen', 'context']) {
    $(key).addEventListener('input', () => {
      state[key] = toValue(key, Number($(key).value));
      if (key !== 'context' && state.context !== '' && Number(state.context) < state.prompt) state.context = state.prompt;
      schedule();
    });
  }
  $('context-auto').addEventListener('change', () => {
    state.context = $('context-auto').checked ? '' : state.prompt + Math.floor(state.gen / 2);
    schedule();
  });
  for (const key of ['model', 'gpu', 'weights', 'kv', 'tp']) {
    $(key).addEventListener('change', () => {
      if ($(key).value === ':own') return;  // the pasted spec, already in use
      state[key] = typeof defaults[key] === 'number' ? Number($(key).value) : $(key).value;
      // Choosing a preset is leaving the pasted one.
      if (key === 'model' || key === 'gpu') state[key + 'text'] = state[key + 'file'] = '';
      schedule();
    });
  }
  $('seed').addEventListener('click', () => {
    Object.assign(state, { model: '/examples/7b.yaml', gpu: '/examples/a100.yaml', batch: 1, prompt: 512, gen: 256,
      context: '', weights: '', kv: '', tp: 1, modeltext: '', gputext: '', modelfile: '', gpufile: '' });
    schedule();
  });
  for (const [kind, file] of [['model', 'model-file'], ['gpu', 'gpu-file']]) {
    $(file).addEventListener('change', async () => {
      const f = $(file).files[0];
      if (!f) return;
      $(kind + '-text').value = await f.text();
      uploaded[kind] = f.name;
    });
    $(kind + '-text').addEventListener('input', () => { uploaded[kind] = ''; });
  }
  $('use-text').addEventListener('click', () => {
    for (const kind of ['model', 'gpu']) {
      const text = $(kind + '-text').value;
      state[kind + 'text'] = text.trim() ? encodeText(text) : '';
      state[kind + 'file'] = text.trim() ? uploaded[kind] : '';
    }
    schedule();
  });
  $('clear-text').addEventListener('click', () => {
    state.modeltext = state.gputext = state.modelfile = state.gpufile = '';
    schedule();
  });
  for (const b of document.querySelectorAll('#tabs button')) {
    b.addEventListener('click', () => { state.view = b.dataset.view; syncControls(); writeAddress(); });
  }
  for (const b of document.querySelectorAll('.lang button')) {
    b.addEventListener('click', () => { state.lang = b.dataset.lang; schedule(); });
  }
  $('bench').addEventListener('click', benchmark);
  bindPlan(gpuIds.filter((g) => !g.startsWith('/')));
  if (state.view === 'plan') plan();  // a link to the plan view shows its plan
  window.addEventListener('hashchange', () => { readAddress(); syncControls(); schedule(); });
}

// ---- plan -----------------------------------------------------------------------------------
function bindPlan(gpuIds) {
  const chosen = state.plangpus.split(',');
  const prices = state.prices ? state.prices.split(',') : [];
  $('plan-gpus').innerHTML += gpuIds.map((g) => {
    const i = chosen.indexOf(g);
    return `<label class="gpu"><input type="checkbox" value="${g}"${i >= 0 ? ' checked' : ''}> ${g} ` +
      `<input class="price" data-gpu="${g}" type="number" min="0" step="any" placeholder="$/h" value="${i >= 0 && prices[i] ? prices[i] : ''}"></label>`;
  }).join('');
  $('plan-rate').value = state.rate;
  $('plan-ttft').value = state.ttft;
  $('plan-tpot').value = state.tpot;
  $('plan-tp').value = state.plantp;
  $('plan-form').addEventListener('submit', (e) => { e.preventDefault(); plan(); });
}

function plan() {
  const gpus = [...document.querySelectorAll('#plan-gpus input[type=checkbox]:checked')].map((c) => c.value);
  const prices = gpus.map((g) => document.querySelector(`.price[data-gpu="${g}"]`).value.trim());
  Object.assign(state, { rate: Number($('plan-rate').value), ttft: $('plan-ttft').value, tpot: $('plan-tpot').value,
    plantp: $('plan-tp').value, plangpus: gpus.join(','), prices: prices.every((p) => p) ? prices.join(',') : '' });
  writeAddress();
  const flags = ['plan', '--model', modelArg(), '--gpu', gpus.join(','), '--rate', state.rate, '--ttft', state.ttft,
    '--tpot', state.tpot, '--tp', state.plantp, '--prompt', state.prompt, '--gen', state.gen];
  if (state.weights) flags.push('--weights', state.weights);
  if (state.kv) flags.push('--kv', state.kv);
  if (state.prices) flags.push('--price', state.prices);
  const table = run([...flags, '--format', 'markdown']);
  // What the plan command says on stderr beside its table: the candidates it skipped and why.
  $('plan-warnings').innerHTML = table.exit === 0
    ? table.err.split('\n').filter((l) => l.trim()).map((l) => `<p>⚠ ${escapeHtml(l)}</p>`).join('') : '';
  if (table.exit !== 0) {
    $('plan-title').textContent = table.err;
    $('plan-table').innerHTML = '';
    $('plan-csv').hidden = true;
    return;
  }
  $('plan-title').textContent = prices.every((p) => p) ? '' : 'Enter a price for every GPU to rank by cost; ranked by GPU count.';
  $('plan-table').innerHTML = markdownTables(table.out);
  const csv = run([...flags, '--format', 'csv']);
  $('plan-csv').href = URL.createObjectURL(new Blob([csv.out], { type: 'text/csv' }));
  $('plan-csv').hidden = false;
  window.rooflineplan.planCsv = csv.out;
}

// The Markdown the plan command prints, as HTML: its pipe tables become tables, other lines
// paragraphs. Cells are text (the Markdown sink escapes `|` as `\|`).
function markdownTables(md) {
  let html = '', rows = [];
  const flush = () => {
    if (!rows.length) return;
    const cells = (line) => line.replace(/^\||\|$/g, '').split(/(?<!\\)\|/).map((c) => escapeHtml(c.trim().replace(/\\\|/g, '|')));
    const body = rows.filter((l, i) => i !== 1);
    html += '<table><thead><tr>' + cells(body[0]).map((c) => `<th>${c}</th>`).join('') + '</tr></thead><tbody>' +
      body.slice(1).map((l) => '<tr>' + cells(l).map((c) => `<td>${c}</td>`).join('') + '</tr>').join('') + '</tbody></table>';
    rows = [];
  };
  for (const line of md.split('\n')) {
    if (line.startsWith('|')) { rows.push(line); continue; }
    flush();
    if (line.trim()) html += `<p>${escapeHtml(line.replace(/^#+\s*/, ''))}</p>`;
  }
  flush();
  return html;
}

// ---- benchmark --------------------------------------------------------------------------------
// The batch sweep 1–1024 as `rooflineplan sweep` runs it (every point evaluated by the engine,
// written as CSV), timed in this page. Reported, never asserted.
function benchmark() {
  const flags = ['sweep', ...pointFlags().filter((f, i, all) => f !== '--batch' && all[i - 1] !== '--batch'),
    '--batch', '1..1024:+1', '--format', 'csv'];
  const warm = run(flags);  // once to warm up
  if (warm.exit !== 0) {
    $('bench-result').textContent = warm.err.trim();  // no points to time
    return null;
  }
  const times = [];
  let rows = 0;
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const a = run(flags);
    times.push(performance.now() - t0);
    rows = a.out.trim().split('\n').length - 1;
  }
  times.sort((a, b) => a - b);
  const median = times[2];
  window.rooflineplan.bench = { points: rows, median_ms: median, runs_ms: times };
  $('bench-result').textContent = `${rows} points in ${median.toFixed(1)} ms (median of 5; ` +
    `${((1000 * median) / rows).toFixed(1)} us a point, CSV included)`;
  return window.rooflineplan.bench;
}

// ---- start ----------------------------------------------------------------------------------
window.rooflineplan = { ready: false, updates: 0, run, state, update, benchmark, plan };
let choices;  // rp_choices: the presets and format names, from the engine's tables

function start() {
  // Where pasted specs are written and the charts' SVG files are read from.
  Module.FS.mkdir('/user');
  Module.FS.mkdir('/out');
  readAddress();
  choices = JSON.parse(Module.ccall('rp_choices', 'string', [], []));
  bindControls();
  for (const kind of ['model', 'gpu']) {
    if (!state[kind + 'text']) continue;
    $(kind + '-text').value = decodeText(state[kind + 'text']);
    uploaded[kind] = state[kind + 'file'];
  }
  update();
  window.rooflineplan.ready = true;
}
Module.onRuntimeInitialized = start;

// What stops the engine, or the page, is said in the status line, not left under "starting the
// engine…": engine.js missing (web/index.html opened from the source tree, where nothing is
// built), a script that throws, the WebAssembly module aborting. This runs before engine.js loads.
function showBroken(why) {
  showStatus((window.rooflineplan.ready ? 'the page stopped: ' : 'the engine did not start: ') + why, true);
}
window.addEventListener('error', (e) => {
  if (e.target instanceof HTMLScriptElement) {
    showBroken(e.target.getAttribute('src') + ' could not be loaded (build the page: cmake --preset web && ' +
      'cmake --build --preset web, then open build-web/page/index.html)');
  } else if (e.target === window) {
    showBroken(e.message);
  }
}, true);  // capture: a script that fails to load sends an error that does not bubble
Module.onAbort = (what) => showBroken('the WebAssembly engine aborted: ' + what);

})();
