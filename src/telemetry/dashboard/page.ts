/**
 * The dashboard page: one self-contained HTML document (no external assets), one card per robot
 * with a live plot of every active clause's normalised margin ρ/|τ| and its warning band (axes, and
 * time since the episode started), the gate state with its cause, an acknowledged E-STOP banner once
 * the gate state confirms the e-stop, e-stop / release / success / failure buttons, the current
 * episode, counters and the recent events (gate events and faults, judge faults among them). Clause lines use colours that are never the red/amber of violation and
 * warning. After login the login box gives way to the user's name. The history shown on load comes
 * from the broker (each robot's retained margins/history, merged by the server with what it has
 * seen since), not only what arrives after the page opened. Each latched e-stop is listed with who
 * pressed it and its own reset button (logged-in operators); the list, the banner and the reset's
 * outcome follow the gate state the robot publishes, never the button press.
 */
export const DASHBOARD_HTML = String.raw`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>armguard — live pilot</title>
<link rel="icon" href="data:,">
<style>
  :root { --bg:#0f1216; --card:#1a1f26; --fg:#e6e9ee; --muted:#8b95a3; --ok:#2fbf71; --warn:#f0b429; --filt:#3aa0ff; --hold:#e5484d; }
  * { box-sizing: border-box; }
  body { margin:0; font:15px/1.4 system-ui, sans-serif; background:var(--bg); color:var(--fg); }
  header { display:flex; flex-wrap:wrap; gap:8px; align-items:center; justify-content:space-between; padding:10px 14px; background:#161a20; position:sticky; top:0; z-index:2; }
  header h1 { font-size:17px; margin:0; }
  #login { display:flex; gap:6px; flex-wrap:wrap; align-items:center; }
  #login.in input, #login.in #loginBtn { display:none; }
  #login:not(.in) #logoutBtn { display:none; }
  .caption { font-size:11px; color:var(--muted); }
  .ack { display:none; background:var(--hold); color:#fff; font-weight:800; letter-spacing:.04em; text-align:center; border-radius:8px; padding:8px; }
  .ack.on { display:block; }
  .latched { display:flex; flex-direction:column; gap:6px; }
  .latched:empty { display:none; }
  .latch { display:flex; flex-wrap:wrap; gap:6px; align-items:center; justify-content:space-between; border:1px solid var(--hold); border-radius:8px; padding:6px 8px; font-size:13px; }
  .latch button { background:#4a2326; min-height:36px; }
  input { background:#0f1216; color:var(--fg); border:1px solid #333c48; border-radius:6px; padding:6px 8px; width:9em; }
  button { border:0; border-radius:8px; padding:9px 12px; font-weight:600; color:#fff; background:#36404d; cursor:pointer; min-height:40px; }
  button.estop { background:var(--hold); font-size:17px; flex:1 1 100%; min-height:52px; letter-spacing:.05em; }
  button:disabled { opacity:.45; cursor:not-allowed; }
  main { display:grid; grid-template-columns:repeat(auto-fill, minmax(320px, 1fr)); gap:12px; padding:12px; }
  .card { background:var(--card); border-radius:12px; padding:12px; display:flex; flex-direction:column; gap:8px; }
  .top { display:flex; justify-content:space-between; align-items:center; gap:8px; }
  .robot { font-weight:700; font-size:16px; }
  .state { padding:3px 10px; border-radius:999px; font-weight:700; text-transform:uppercase; font-size:13px; }
  .state.armed { background:var(--ok); color:#04210f; } .state.warning { background:var(--warn); color:#2a1d00; }
  .state.filtering { background:var(--filt); color:#001a33; } .state.hold { background:var(--hold); color:#fff; }
  .cause { color:var(--muted); font-size:13px; min-height:1.4em; word-break:break-word; }
  canvas { width:100%; height:180px; background:#11151a; border-radius:8px; }
  .legend { display:flex; flex-wrap:wrap; gap:4px 10px; font-size:12px; color:var(--muted); }
  .legend span::before { content:""; display:inline-block; width:10px; height:3px; margin-right:4px; vertical-align:middle; background:var(--c); }
  .buttons { display:flex; flex-wrap:wrap; gap:6px; }
  .buttons button { flex:1 1 30%; }
  .buttons button.estop { flex:1 1 100%; }
  .meta { display:grid; grid-template-columns:auto 1fr; gap:2px 10px; font-size:12px; color:var(--muted); }
  .events { list-style:none; margin:0; padding:0; font-size:12px; color:var(--muted); max-height:9.5em; overflow-y:auto; }
  .events li { padding:1px 0; word-break:break-word; } .events li.fault { color:#ff9c9f; }
  #status { font-size:12px; color:var(--muted); }
  #empty { padding:24px; color:var(--muted); }
</style>
</head>
<body>
<header>
  <h1>armguard · live pilot</h1>
  <form id="login" autocomplete="on">
    <input id="user" name="username" placeholder="operator" autocomplete="username">
    <input id="pass" name="password" type="password" placeholder="password" autocomplete="current-password">
    <button id="loginBtn" type="submit">Log in</button>
    <span id="who" data-testid="who"></span>
    <button id="logoutBtn" type="button" data-testid="logout">Log out</button>
  </form>
  <div id="status" data-testid="status">connecting…</div>
</header>
<main id="cards"><div id="empty">Waiting for robots on the broker…</div></main>
<script>
(() => {
  // Clause colours: blues, violets, cyans, greys — never the red of a violation or the amber of the band.
  const COLORS = ['#3aa0ff','#b68cff','#4dd0e1','#90a4ae','#7986cb','#4db6ac','#ce93d8','#81d4fa','#c5cae9'];
  const PAD = { l: 44, r: 8, t: 8, b: 30 };
  const WINDOW_S = 20;
  const EVENTS_SHOWN = 30;
  const robots = new Map();
  let ws, loggedIn = false, messages = 0;
  const $ = (id) => document.getElementById(id);

  function card(robot) {
    let r = robots.get(robot);
    if (r) return r;
    $('empty')?.remove();
    const el = document.createElement('section');
    el.className = 'card';
    el.dataset.robot = robot;
    el.innerHTML =
      '<div class="top"><span class="robot"></span><span class="state armed" data-testid="state">?</span></div>' +
      '<div class="cause" data-testid="cause"></div>' +
      '<div class="ack" data-testid="estop-ack">E-STOP ACKNOWLEDGED — the arm is held</div>' +
      '<div class="latched" data-testid="estop-latched"></div>' +
      '<canvas width="640" height="360" aria-label="normalised margins ρ/|τ| over the last 20 s"></canvas>' +
      '<div class="caption">ρ/|τ| per clause · red below 0 = violated · amber = warning band · time since the episode started</div>' +
      '<div class="legend"></div>' +
      '<div class="buttons">' +
      '<button class="estop" data-act="estop" data-testid="estop">E-STOP</button>' +
      '<button data-act="release" data-testid="release">Release</button>' +
      '<button data-act="success" data-testid="success">Success</button>' +
      '<button data-act="failure" data-testid="failure">Failure</button></div>' +
      '<div class="meta"><span>episode</span><span data-testid="episode">—</span>' +
      '<span>updates</span><span data-testid="updates">0</span>' +
      '<span>last</span><span data-testid="last">—</span>' +
      '<span>reply</span><span data-testid="reply">—</span></div>' +
      '<ol class="events" data-testid="events" aria-label="recent gate events and faults, newest first"></ol>';
    el.querySelector('.robot').textContent = robot;
    el.querySelectorAll('button').forEach((b) => b.addEventListener('click', () => act(robot, b.dataset.act)));
    $('cards').appendChild(el);
    r = { el, series: new Map(), band: {}, updates: 0, tNow: 0, t0: null };
    robots.set(robot, r);
    refreshButtons();
    return r;
  }

  function act(robot, what) {
    if (!ws || ws.readyState !== 1) return;
    if (what === 'estop') ws.send(JSON.stringify({ type: 'estop', robot }));
    else if (what === 'release') ws.send(JSON.stringify({ type: 'release', robot }));
    else ws.send(JSON.stringify({ type: 'label', robot, success: what === 'success' }));
  }

  function refreshButtons() {
    document.querySelectorAll('button[data-act]').forEach((b) => {
      if (b.dataset.act !== 'estop') b.disabled = !loggedIn;
      b.title = b.dataset.act === 'estop' ? 'Hold the arm now' : loggedIn ? '' : 'Log in to use';
    });
  }

  // One row per latched e-stop, from the gate state: who pressed it and a reset that names them.
  function showLatched(robot, r, pressed) {
    const box = r.el.querySelector('[data-testid=estop-latched]');
    box.textContent = '';
    for (const p of pressed) {
      const row = document.createElement('div');
      row.className = 'latch';
      row.dataset.testid = 'estop-latch';
      const who = document.createElement('span');
      who.textContent = 'E-STOP pressed by ' + p.by + (typeof p.t === 'number' ? ' (gate clock ' + p.t.toFixed(2) + ' s)' : '');
      const b = document.createElement('button');
      b.type = 'button';
      b.dataset.act = 'estop-reset';
      b.dataset.testid = 'estop-reset';
      b.dataset.by = p.by;
      b.textContent = 'Reset e-stop pressed by ' + p.by;
      b.addEventListener('click', () => {
        if (ws && ws.readyState === 1) ws.send(JSON.stringify({ type: 'estop-reset', robot, pressedBy: p.by }));
      });
      row.append(who, b);
      box.appendChild(row);
    }
    refreshButtons();
  }

  function onTelemetry(topic, p) {
    const parts = topic.split('/');
    const robot = parts[2];
    const kind = parts.slice(3).join('/');
    if (!robot) return;
    const r = card(robot);
    if (kind === 'margins') {
      if (r.tNow > p.t) return; // history replayed behind live data
      r.updates++;
      r.tNow = p.t;
      r.band = p.band || {};
      for (const [name, m] of Object.entries(p.margins || {})) {
        let s = r.series.get(name);
        if (!s) { s = []; r.series.set(name, s); }
        s.push([p.t, m]);
        while (s.length && s[0][0] < p.t - WINDOW_S) s.shift();
      }
      r.el.querySelector('[data-testid=updates]').textContent = String(r.updates);
      r.el.querySelector('[data-testid=last]').textContent = r.t0 === null ? 'gate clock ' + Number(p.t).toFixed(2) + ' s' : 'episode t = ' + (p.t - r.t0).toFixed(2) + ' s';
      draw(r);
    } else if (kind === 'gate') {
      const st = r.el.querySelector('[data-testid=state]');
      st.textContent = p.state;
      st.className = 'state ' + p.state;
      r.el.querySelector('[data-testid=cause]').textContent = p.cause || '';
      // Acknowledged only when the gate state itself confirms the e-stop (a latch field when the
      // payload has one, else a hold whose cause is the e-stop); the button press alone never shows it.
      const latch = p.estop ?? p.eStop ?? p.estopLatched;
      const confirmed = p.state === 'hold' && (latch === true || (latch && typeof latch === 'object' && latch.latched === true) || /^e-stop\b/.test(p.cause || ''));
      r.el.querySelector('[data-testid=estop-ack]').classList.toggle('on', !!confirmed);
      showLatched(robot, r, latch && typeof latch === 'object' && Array.isArray(latch.pressed) ? latch.pressed.filter((x) => x && typeof x.by === 'string') : []);
    } else if (kind === 'episode') {
      if (p.phase === 'start' && typeof p.t === 'number') r.t0 = p.t;
      r.el.querySelector('[data-testid=episode]').textContent = p.episode + ' (' + p.phase + ')' + (p.task ? ' · ' + p.task : '');
    } else if (kind === 'events') {
      if (/refused|invalid/.test(p.kind)) r.el.querySelector('[data-testid=reply]').textContent = p.detail;
      // The event list: faults (judge faults with their cause among them), refusals, storage, newest first.
      const list = r.el.querySelector('[data-testid=events]');
      const li = document.createElement('li');
      li.className = String(p.kind);
      li.textContent = (r.t0 === null || typeof p.t !== 'number' ? '' : (p.t - r.t0).toFixed(1) + ' s · ') + p.kind + ': ' + p.detail;
      list.prepend(li);
      while (list.children.length > EVENTS_SHOWN) list.lastElementChild.remove();
    }
  }

  function draw(r) {
    const c = r.el.querySelector('canvas');
    const g = c.getContext('2d');
    const W = c.width, H = c.height, lo = -0.5, hi = 1.5;
    const pw = W - PAD.l - PAD.r, ph = H - PAD.t - PAD.b;
    const y = (v) => PAD.t + ph - ((Math.max(lo, Math.min(hi, v)) - lo) / (hi - lo)) * ph;
    const x = (t) => PAD.l + pw - ((r.tNow - t) / WINDOW_S) * pw;
    g.clearRect(0, 0, W, H);
    const eps = Math.max(0, ...Object.values(r.band));
    g.fillStyle = 'rgba(229,72,77,0.12)';
    g.fillRect(PAD.l, y(0), pw, y(lo) - y(0));
    g.fillStyle = 'rgba(240,180,41,0.15)';
    g.fillRect(PAD.l, y(eps), pw, y(0) - y(eps));
    // axes: ρ/|τ| ticks on the left, time since the episode started along the bottom
    g.font = '18px system-ui, sans-serif'; g.fillStyle = '#8b95a3'; g.strokeStyle = '#2a313b'; g.lineWidth = 1;
    g.textAlign = 'right'; g.textBaseline = 'middle';
    for (const v of [-0.5, 0, 0.5, 1, 1.5]) {
      g.beginPath(); g.moveTo(PAD.l, y(v)); g.lineTo(PAD.l + pw, y(v)); g.stroke();
      g.fillText(v.toFixed(1), PAD.l - 6, y(v));
    }
    const origin = r.t0 === null ? 0 : r.t0;
    g.textAlign = 'center'; g.textBaseline = 'top';
    const first = Math.ceil((r.tNow - WINDOW_S - origin) / 5) * 5;
    for (let s = first; s <= r.tNow - origin; s += 5) {
      g.beginPath(); g.moveTo(x(origin + s), PAD.t + ph); g.lineTo(x(origin + s), PAD.t + ph + 5); g.stroke();
      g.fillText(s.toFixed(0) + ' s', x(origin + s), PAD.t + ph + 7);
    }
    g.strokeStyle = '#e5484d'; g.lineWidth = 1.5;
    g.beginPath(); g.moveTo(PAD.l, y(0)); g.lineTo(PAD.l + pw, y(0)); g.stroke();
    c.dataset.axis = r.t0 === null ? 'gate clock (no episode started yet)' : 'time since episode start (s)';
    const legend = r.el.querySelector('.legend');
    legend.innerHTML = '';
    let i = 0;
    for (const [name, s] of r.series) {
      const color = COLORS[i++ % COLORS.length];
      g.strokeStyle = color; g.lineWidth = 2.5; g.beginPath();
      let started = false;
      for (const [t, m] of s) {
        if (m === null) { started = false; continue; }
        if (!started) { g.moveTo(x(t), y(m)); started = true; } else g.lineTo(x(t), y(m));
      }
      g.stroke();
      const span = document.createElement('span');
      span.style.setProperty('--c', color);
      const last = s.length ? s[s.length - 1][1] : null;
      span.textContent = name + ' ' + (last === null ? '—' : last.toFixed(2));
      legend.appendChild(span);
    }
  }

  function connect() {
    ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/ws');
    ws.onopen = () => { $('status').textContent = 'live'; };
    ws.onclose = () => { $('status').textContent = 'disconnected — retrying'; setTimeout(connect, 1000); };
    ws.onmessage = (ev) => {
      let m; try { m = JSON.parse(ev.data); } catch { return; }
      messages++;
      if (m.type === 'telemetry') onTelemetry(m.topic, m.payload);
      else if (m.type === 'login-result') {
        loggedIn = !!m.ok;
        $('who').textContent = m.ok ? 'logged in as ' + m.username : (m.reason || '');
        $('login').classList.toggle('in', loggedIn);
        if (loggedIn) $('pass').value = '';
        refreshButtons();
      } else if (m.type === 'command-result') {
        const r = robots.get(m.robot);
        if (r) r.el.querySelector('[data-testid=reply]').textContent = m.command + ': ' + (m.ok ? (m.confirmed ? 'confirmed by the gate (' + m.state + ')' : 'sent') : m.reason);
      }
    };
  }

  $('login').addEventListener('submit', (e) => {
    e.preventDefault();
    if (ws && ws.readyState === 1) ws.send(JSON.stringify({ type: 'login', username: $('user').value, password: $('pass').value }));
  });
  $('logoutBtn').addEventListener('click', () => {
    if (ws && ws.readyState === 1) ws.send(JSON.stringify({ type: 'logout' }));
  });
  connect();
})();
</script>
</body>
</html>
`;
