// The dashboard: API key, scope picker and stats, and the four views as tabs.
import { apiKey, graphql } from './api.js'
import { $, h, when } from './dom.js'
import { PICKER, STATS } from './queries.js'
import * as download from './download.js'
import * as entities from './entities.js'
import * as forget from './forget.js'
import * as search from './search.js'
import * as timeline from './timeline.js'

const views = { search, timeline, entities, forget }
let scope = null
let activeTab = 'search'

// What every view reads: the open scope, the asOf instant (UTC) or null, the error banner.
const page = {
  scope: () => scope,
  // datetime-local has no zone: the page reads and shows every time in UTC.
  asOf: () => ($('#as-of').value ? new Date(`${$('#as-of').value}Z`).toISOString() : null),
  fail: error => { $('#error').textContent = error.message; $('#error').hidden = false },
  ok: () => { $('#error').hidden = true },
  // After a change (forget): the counts anew, and the picker without a scope that is gone.
  changed: async () => { await showStats(scope); await loadPicker() },
}

function scopeLabel (s) {
  const ids = [['user', s.userId], ['agent', s.agentId], ['run', s.runId]]
    .filter(([, id]) => id).map(([field, id]) => `${field} ${id}`)
  return ids.join(' · ')
}

async function loadPicker () {
  const data = await graphql(PICKER)
  const v = data.viewer
  $('#viewer').textContent = `key: ${v.principal} (users ${v.userIds.join(', ')})`
  const picker = $('#scope-picker')
  picker.replaceChildren(h('option', { value: '' }, '— choose a scope —'),
    ...data.scopes.map(s => h('option', { value: JSON.stringify(
      { userId: s.userId, agentId: s.agentId, runId: s.runId }) },
    `${scopeLabel(s)} (${s.memories} memories)`)))
  return data.scopes
}

async function openScope (asked) {
  const clean = Object.fromEntries(['userId', 'agentId', 'runId']
    .filter(field => asked[field]).map(field => [field, asked[field]]))
  $('#scope-user').value = clean.userId || ''
  $('#scope-agent').value = clean.agentId || ''
  $('#scope-run').value = clean.runId || ''
  scope = null
  $('#stats').textContent = ''
  Object.values(views).forEach(view => view.reset())
  download.reset()
  try {
    await showStats(clean) // refused here when the key may not touch the scope
    scope = clean
    page.ok()
    views[activeTab].show(page)
  } catch (error) {
    page.fail(error)
  }
}

async function showStats (asked) {
  const data = await graphql(STATS, { scope: asked })
  const s = data.stats
  const types = data.entityTypeCounts.map(t => `${t.type} ${t.count}`).join(', ')
  $('#stats').textContent = `${s.memories} memories (${s.currentMemories} current, ` +
    `${s.superseded} superseded) · ${s.messages} messages · ${s.entities} entities` +
    (types ? ` (${types})` : '') + ` · said ${when(s.firstSaidAt)} – ${when(s.lastSaidAt)}`
}

function showTab (name) {
  activeTab = name
  for (const button of document.querySelectorAll('#tabs button')) {
    button.classList.toggle('active', button.dataset.tab === name)
  }
  for (const tab of Object.keys(views)) $(`#tab-${tab}`).hidden = tab !== name
  if (scope) views[name].show(page)
}

// Who the key is and the scopes it may read; opens the largest scope when none is open.
async function load () {
  document.body.dataset.ready = 'false'
  try {
    const scopes = await loadPicker()
    page.ok()
    if (scopes.length) {
      $('#scope-picker').selectedIndex = 1
      await openScope(scopes[0])
    }
  } catch (error) {
    page.fail(error)
  }
  document.body.dataset.ready = 'true' // for tests and screenshots: the first load is done
}

function wire () {
  $('#api-key').value = apiKey.get()
  $('#key-form').onsubmit = event => {
    event.preventDefault()
    apiKey.set($('#api-key').value.trim())
    load()
  }
  $('#key-clear').onclick = () => { apiKey.set(''); $('#api-key').value = ''; load() }
  $('#scope-picker').onchange = event =>
    event.target.value && openScope(JSON.parse(event.target.value))
  $('#scope-form').onsubmit = event => {
    event.preventDefault()
    $('#scope-picker').value = ''
    openScope({ userId: $('#scope-user').value.trim(), agentId: $('#scope-agent').value.trim(),
      runId: $('#scope-run').value.trim() })
  }
  $('#as-of').onchange = () => scope && views[activeTab].show(page)
  for (const button of document.querySelectorAll('#tabs button')) {
    button.onclick = () => showTab(button.dataset.tab)
  }
  Object.values(views).forEach(view => view.init(page))
  download.init(page)
}

wire()
load()
