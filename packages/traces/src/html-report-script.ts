/**
 * The report page's script, inlined so the page loads nothing. It draws only the rows in view
 * (a plain 100k-row table takes tens of seconds to lay out), keeps the filtered order in one
 * Int32Array, and fills the evidence panel only when a row is chosen.
 *
 * Kept as plain ES2020 text: it runs in the browser, never in Node.
 */
export const htmlReportScript = `
(() => {
  'use strict';
  const data = JSON.parse(document.getElementById('candor-data').textContent);
  const OUTCOMES = ['success', 'partial', 'error', 'denied', 'unknown'];
  const MARKS = { success: '\\u2713', partial: '\\u25d0', error: '\\u2717', denied: '\\u2298', unknown: '?' };
  // Column order of each row in the data; see html-report.ts.
  const T = 0, TOOL = 1, OUT = 2, ID = 3, ARGS = 4, WORD = 5, FIELD = 6, DENIAL = 7, EVIDENCE = 8,
    LENGTH = 9, EXIT = 10, START = 11, END = 12, LINE = 13, HARNESS = 14;
  const rows = data.rows;
  const ROW = 28;
  const viewport = document.getElementById('viewport');
  const spacer = document.getElementById('spacer');
  const outcomeSelect = document.getElementById('outcome');
  const toolSelect = document.getElementById('tool');
  const traceSelect = document.getElementById('trace');
  const shown = document.getElementById('shown');
  const details = document.getElementById('details');
  const empty = document.getElementById('empty');
  let order = new Int32Array(0);
  let selected = -1;
  const pool = [];

  const text = (tag, value, className) => {
    const node = document.createElement(tag);
    node.textContent = value;
    if (className) node.className = className;
    return node;
  };

  const counts = {};
  for (const word of OUTCOMES) counts[word] = 0;
  for (const row of rows) counts[OUTCOMES[row[OUT]]] += 1;
  const countList = document.getElementById('counts');
  for (const word of OUTCOMES) {
    if (word === 'partial' && counts.partial === 0) continue;
    const item = document.createElement('li');
    const button = document.createElement('button');
    button.type = 'button';
    button.dataset.outcome = word;
    button.className = word;
    button.setAttribute('aria-pressed', 'false');
    button.title = 'Show only ' + word + ' calls';
    button.append(text('span', MARKS[word], 'mark'), word + ' ', text('b', String(counts[word]), 'count'));
    button.addEventListener('click', () => {
      outcomeSelect.value = outcomeSelect.value === word ? 'all' : word;
      applyFilters();
    });
    item.append(button);
    countList.append(item);
  }
  document.getElementById('total').textContent = String(rows.length);

  const option = (select, value, label) => {
    const node = document.createElement('option');
    node.value = value;
    node.textContent = label;
    select.append(node);
  };
  for (const word of OUTCOMES) option(outcomeSelect, word, MARKS[word] + ' ' + word);
  data.tools.forEach((tool, index) => option(toolSelect, String(index), tool === '' ? '(unnamed tool)' : tool));
  data.traces.forEach((trace, index) => option(traceSelect, String(index), trace));
  if (data.traces.length < 2) traceSelect.parentElement.hidden = true;

  function applyFilters() {
    const outcome = outcomeSelect.value === 'all' ? -1 : OUTCOMES.indexOf(outcomeSelect.value);
    const tool = toolSelect.value === 'all' ? -1 : Number(toolSelect.value);
    const trace = traceSelect.value === 'all' ? -1 : Number(traceSelect.value);
    const next = new Int32Array(rows.length);
    let length = 0;
    for (let index = 0; index < rows.length; index += 1) {
      const row = rows[index];
      if (outcome !== -1 && row[OUT] !== outcome) continue;
      if (tool !== -1 && row[TOOL] !== tool) continue;
      if (trace !== -1 && row[T] !== trace) continue;
      next[length] = index;
      length += 1;
    }
    order = next.subarray(0, length);
    for (const button of countList.querySelectorAll('button'))
      button.setAttribute('aria-pressed', String(button.dataset.outcome === outcomeSelect.value));
    shown.textContent = 'Showing ' + length + ' of ' + rows.length + ' calls';
    empty.hidden = length !== 0;
    spacer.style.height = length * ROW + 'px';
    viewport.scrollTop = 0;
    render();
  }

  function fill(node, index) {
    const row = rows[index];
    const word = OUTCOMES[row[OUT]];
    node.dataset.index = String(index);
    node.dataset.outcome = word;
    node.setAttribute('aria-selected', String(index === selected));
    const cells = node.children;
    cells[0].className = word;
    cells[0].firstChild.textContent = MARKS[word];
    cells[0].lastChild.textContent = word;
    cells[1].textContent = data.traces[row[T]];
    const tool = data.tools[row[TOOL]];
    cells[2].textContent = tool === '' ? '(unnamed tool)' : tool;
    cells[3].textContent = row[ARGS];
    cells[3].title = row[ARGS];
    cells[4].textContent = row[ID];
  }

  function rowNode() {
    const node = document.createElement('div');
    node.className = 'row';
    node.setAttribute('role', 'row');
    node.tabIndex = 0;
    const outcome = document.createElement('span');
    outcome.append(text('span', '', 'mark'), text('span', ''));
    node.append(outcome, text('span', ''), text('span', ''), text('span', ''), text('span', ''));
    spacer.append(node);
    return node;
  }

  function render() {
    const first = Math.max(0, Math.floor(viewport.scrollTop / ROW) - 5);
    const last = Math.min(order.length, Math.ceil((viewport.scrollTop + viewport.clientHeight) / ROW) + 5);
    let used = 0;
    for (let position = first; position < last; position += 1) {
      const node = pool[used] || (pool[used] = rowNode());
      node.hidden = false;
      node.style.top = position * ROW + 'px';
      fill(node, order[position]);
      used += 1;
    }
    for (let index = used; index < pool.length; index += 1) pool[index].hidden = true;
    document.body.dataset.rendered = String(used);
  }

  function evidence(index) {
    const row = rows[index];
    const word = OUTCOMES[row[OUT]];
    const facts = [
      ['outcome', MARKS[word] + ' ' + word],
      ['tool', data.tools[row[TOOL]] || '(unnamed tool)'],
      ['call id', row[ID]],
      ['trace', data.files[row[T]] + ' (' + data.harnesses[row[HARNESS]] + ', line ' + row[LINE] + ')'],
      ['vendor word', row[WORD] === null ? (word === 'unknown' ? 'no outcome reported' : 'none') : '"' + row[WORD] + '"'],
      ['vendor field', row[FIELD] === null ? '(the word itself)' : row[FIELD]],
      ['exit code', row[EXIT] === null ? 'none' : String(row[EXIT])],
      ['denial reason', row[DENIAL] === null ? 'none' : row[DENIAL]],
      ['overruled by', row[EVIDENCE] === null ? 'nothing' : row[EVIDENCE]],
      ['result length', row[LENGTH] === null ? 'no result seen' : row[LENGTH] + ' characters'],
      ['started', row[START] === null ? 'not recorded' : row[START]],
      ['ended', row[END] === null ? 'not recorded' : row[END]],
      ['arguments', row[ARGS] === '' ? '(none)' : row[ARGS]],
    ];
    const started = Date.parse(row[START]);
    const ended = Date.parse(row[END]);
    if (Number.isFinite(started) && Number.isFinite(ended)) facts.splice(12, 0, ['duration', ended - started + ' ms']);
    const list = document.createElement('dl');
    for (const [term, value] of facts) list.append(text('dt', term), text('dd', value));
    details.replaceChildren(text('h2', 'Evidence'), list);
    details.hidden = false;
  }

  function choose(target) {
    const node = target.closest('.row[data-index]');
    if (!node) return;
    selected = Number(node.dataset.index);
    evidence(selected);
    render();
  }
  spacer.addEventListener('click', (event) => choose(event.target));
  spacer.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      choose(event.target);
    }
  });
  let frame = 0;
  viewport.addEventListener('scroll', () => {
    if (frame === 0) frame = requestAnimationFrame(() => { frame = 0; render(); });
  });
  window.addEventListener('resize', render);
  for (const select of [outcomeSelect, toolSelect, traceSelect]) select.addEventListener('change', applyFilters);
  applyFilters();
  document.body.dataset.ready = String(performance.now());
})();
`;
