// Screenshot of Neo4j Browser in headless Chromium, in real time (docs/browser.md).
// Chromium's --virtual-time-budget runs the page's timers ahead of its Bolt WebSocket, so
// Browser never gets past "Connecting..."; this drives Chromium over the DevTools protocol.
//
//   node --experimental-websocket bench/results/ui/browser_screenshot.mjs URL OUT.png \
//        [--wait MS] [--click-runnable N | --next-slide _ | --eval JS]... [--port 9333]
//
// After the wait, each step in order, 4 s apart: --click-runnable N clicks the run icon of the
// N-th runnable block shown (0-based; 0 on the guide's first slide sets $user), --next-slide _
// turns the guide's page, --eval JS prints what JS evaluates to in the page.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'

const args = process.argv.slice(2)
const [url, out] = args
const option = (name, fallback) => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : fallback
}
const waitMs = Number(option('--wait', '15000'))
const port = option('--port', '9333')
const steps = args.flatMap((a, i) => (['--click-runnable', '--next-slide', '--eval'].includes(a) ? [[a, args[i + 1]]] : []))

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))
const profile = mkdtempSync('/tmp/browser-screenshot-')
const chromium = spawn('chromium', ['--headless', '--no-sandbox', '--disable-gpu',
  `--remote-debugging-port=${port}`, `--user-data-dir=${profile}`, 'about:blank'],
{ stdio: 'ignore' })

let targets
for (let i = 0; i < 100 && !targets; i++) {
  await sleep(200)
  try { targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json() } catch {}
}
const socket = new WebSocket(targets.find(t => t.type === 'page').webSocketDebuggerUrl)
await new Promise(resolve => socket.addEventListener('open', resolve))
let lastId = 0
const pending = new Map()
socket.addEventListener('message', event => {
  const message = JSON.parse(event.data)
  if (pending.has(message.id)) { pending.get(message.id)(message.result); pending.delete(message.id) }
  if (message.method === 'Network.responseReceived' && !message.params.response.url.includes('/browser/'))
    console.log('fetched', message.params.response.status, message.params.response.url)
})
const send = (method, params = {}) => new Promise(resolve => {
  pending.set(++lastId, resolve)
  socket.send(JSON.stringify({ id: lastId, method, params }))
})
const evaluate = async expression =>
  (await send('Runtime.evaluate', { expression, returnByValue: true })).result.value

await send('Network.enable')
await send('Emulation.setDeviceMetricsOverride', { width: 1400, height: 900, deviceScaleFactor: 1, mobile: false })
await send('Page.navigate', { url })
await sleep(waitMs)
for (const [step, value] of steps) {
  const clicked = step === '--eval' ? await evaluate(value) : step === '--next-slide'
    ? await evaluate(`(() => { const b = document.querySelector('[data-testid="nextSlide"]'); b && b.click(); return !!b })()`)
    : await evaluate(`(() => { const icons = [...document.querySelectorAll('pre.runnable > i')].filter(i => i.offsetParent); icons[${Number(value)}]?.click(); return icons.length })()`)
  console.log(step, value, '->', clicked)
  await sleep(4000)
}
const shot = await send('Page.captureScreenshot', { format: 'png' })
writeFileSync(out, Buffer.from(shot.data, 'base64'))
console.log('saved', out)
socket.close()
const exited = new Promise(resolve => chromium.on('exit', resolve))
chromium.kill()
await exited
rmSync(profile, { recursive: true, force: true })
process.exit(0)
