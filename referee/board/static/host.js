// The host's page (board --players): the host secret is the link's fragment, sent only as a bearer token.
// It shows the game's join code, lists the seats (release one), confirms the corrections the phones ask for and
// undoes or redoes the last action, whoever took it. When the board moves to a new game, so does the page.
"use strict";
(function () {
  const root = document.getElementById("host");
  if (!root || !root.dataset.game) { return; }
  const secret = window.location.hash.slice(1);
  const api = "/api/games/" + root.dataset.game;
  const lang = document.documentElement.lang;
  const message = document.getElementById("host-message");
  let view = null;

  function request(method, path, body) {
    const headers = { "Authorization": "Bearer " + secret, "Accept-Language": lang };
    if (body !== undefined) { headers["Content-Type"] = "application/json"; }
    return fetch(path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body) })
      .then(function (r) {
        return r.json().catch(function () { return {}; }).then(function (data) { return { ok: r.ok, data: data }; });
      });
  }

  function say(text, bad) { message.textContent = text || ""; message.classList.toggle("bad", Boolean(bad)); }

  function render(v) {
    view = v;
    if (v.current && String(v.current) !== root.dataset.game) { window.location.reload(); return; }  // a new game
    document.getElementById("host-waiting").textContent = v.waiting.text;
    const join = document.getElementById("host-join");
    join.textContent = v.over ? "" : join.dataset.tJoin.replace("{url}", new URL(v.join.url, window.location.href).href)
      .replace("{code}", v.join.code);
    const list = document.getElementById("host-seats");
    list.textContent = "";
    v.seats.forEach(function (s) {
      const li = document.createElement("li");
      li.textContent = s.seat + ": " + (s.taken ? root.dataset.tTaken : root.dataset.tFree) + " ";
      if (s.taken) {
        const b = document.createElement("button");
        b.type = "button"; b.className = "secondary"; b.textContent = root.dataset.tRelease + " " + s.seat;
        b.addEventListener("click", function () {
          request("DELETE", api + "/seats/" + encodeURIComponent(s.seat)).then(function (r) {
            if (!r.ok) { say(r.data.detail, true); }
            read();
          });
        });
        li.appendChild(b);
      }
      list.appendChild(li);
    });
  }

  function button(label, onClick) {
    const b = document.createElement("button");
    b.type = "button"; b.className = "secondary"; b.textContent = label;
    b.addEventListener("click", onClick);
    return b;
  }

  function renderRequests(v) {
    const list = document.getElementById("host-requests");
    list.textContent = "";
    (v.requests || []).forEach(function (a) {
      const li = document.createElement("li");
      const texts = { undo: root.dataset.tAsksUndo, redo: root.dataset.tAsksRedo, amend: root.dataset.tAsksAmend,
        leave: root.dataset.tAsksLeave };
      const text = (texts[a.action] || a.action).replace("{seat}", a.seat).replace("{roll}", String(a.roll));
      li.appendChild(document.createTextNode(text + " "));
      [[root.dataset.tConfirm, true], [root.dataset.tRefuse, false]].forEach(function (pair) {
        li.appendChild(button(pair[0], function () {
          request("POST", api + "/requests/" + encodeURIComponent(a.id), { confirm: pair[1] }).then(function (r) {
            say(r.ok ? "" : r.data.detail, !r.ok);
            read();
          });
        }));
      });
      list.appendChild(li);
    });
  }

  function read() {
    return request("GET", api + "/host").then(function (r) { if (r.ok) { render(r.data); renderRequests(r.data); } else { say(r.data.detail, true); } });
  }

  function correct(action) {
    if (!view) { return; }
    request("POST", api + "/corrections", { action: action, seen: view.version }).then(function (r) {
      say(r.ok ? "" : r.data.detail, !r.ok);
      read();
    });
  }
  document.getElementById("host-undo").addEventListener("click", function () { correct("undo"); });
  document.getElementById("host-redo").addEventListener("click", function () { correct("redo"); });
  if (window.EventSource && root.dataset.stream) {
    const source = new EventSource(new URL(root.dataset.stream, window.location.href));
    source.onmessage = function () { read(); };
  }
  read();
  setInterval(read, 3000);  // requests change no game: the stream does not say when one arrives
})();
