// The phone's page (board --players): take a seat with the code, then play this seat's turns through the
// players' JSON API. Every sentence comes from the server in the page's language (the API's answers and the
// page's data attributes). The seat's token is an HttpOnly cookie; the page keeps only its CSRF token.
// After a sleep the page reads the game again from the server (the event stream says when it changed).
"use strict";
(function () {
  const root = document.getElementById("phone");
  if (!root || !root.dataset.game) { return; }
  const game = root.dataset.game;
  const api = "/api/games/" + game;
  const lang = document.documentElement.lang;
  const store = window.localStorage;
  const csrfKey = "uw_csrf_" + game;
  const $ = function (id) { return document.getElementById(id); };
  const message = $("message");
  let view = null;       // the game as this seat last read it
  let busy = false;
  let verdictTimer = null;

  function say(text, bad) {
    message.textContent = text || "";
    message.classList.toggle("bad", Boolean(bad));
  }

  function request(method, path, body) {
    const headers = { "Accept": "application/json", "Accept-Language": lang };
    if (body !== undefined) { headers["Content-Type"] = "application/json"; }
    const csrf = store.getItem(csrfKey);
    if (csrf) { headers["X-CSRF-Token"] = csrf; }
    return fetch(path, { method: method, headers: headers, credentials: "same-origin",
      body: body === undefined ? undefined : JSON.stringify(body) })
      .then(function (r) {
        return r.json().catch(function () { return {}; }).then(function (data) { return { ok: r.ok, status: r.status, data: data }; });
      });
  }

  function show(id, on) { $(id).hidden = !on; }

  function render(v) {
    view = v;
    $("join-form").hidden = true;
    $("table").hidden = false;
    $("seat-title").textContent = root.dataset.tSeated.replace("{seat}", v.seat) +
      (v.your_turn && !v.over ? " " + root.dataset.tYourTurn : "");
    $("waiting").textContent = v.waiting.text;
    const recent = $("recent");   // what is happening: the last actions, newest first
    recent.textContent = "";
    $("recent-title").hidden = !(v.recent || []).length;
    (v.recent || []).forEach(function (line) {
      const li = document.createElement("li");
      li.textContent = line;
      recent.appendChild(li);
    });
    const mine = v.your_turn && !v.over;
    const phase = v.phase;
    show("word-form", mine && (phase === "action" || phase === "last_words"));
    show("discard-form", mine && (phase === "action" || phase === "last_words"));
    show("roll-form", mine && (phase === "sanity" || phase === "psychotherapy"));
    show("skip-button", mine && phase === "psychotherapy");
    const virtual = v.dice === "virtual";   // the referee rolls: nothing to type
    $("roll").hidden = virtual;
    $("roll-label").hidden = virtual;
    $("roll-button").textContent = virtual ? $("roll-button").dataset.tVirtual : $("roll-button").dataset.tPhysical;
    show("close-button", mine && phase === "spell_binding");
    show("bind-form", !v.over && phase === "spell_binding" && !mine);
    show("undo-button", v.can_undo);
    show("ask-undo", !v.can_undo && !v.over);
    show("next-game", v.over);
  }

  function read() {
    return request("GET", api + "/play").then(function (r) {
      if (r.ok) { render(r.data); if (message.classList.contains("bad") && message.textContent === root.dataset.tOffline) { say("", false); } return; }
      if (r.status === 401) { $("table").hidden = true; $("join-form").hidden = false; return; }
      say(r.data.detail, true);
    }).catch(function () {
      say(root.dataset.tOffline, true);
      setTimeout(function () { if (view) { read(); } }, 3000);  // until the board answers again
    });
  }

  function act(body) {
    if (busy || !view) { return; }
    busy = true;
    body.seen = view.version;
    request("POST", api + "/actions", body).then(function (r) {
      busy = false;
      if (r.ok) {
        say((r.data.notes || []).join(" "), false);
        render(r.data);
        $("word").value = ""; $("letters").value = ""; $("roll").value = ""; $("bind-word").value = "";
        $("verdict").textContent = "";
      } else {
        say(r.data.detail, true);
        read();
      }
    }).catch(function () { busy = false; say(root.dataset.tOffline, true); });
  }

  $("join-form").addEventListener("submit", function (e) {
    e.preventDefault();
    const form = e.target;
    const seat = form.querySelector("input[name=seat]:checked");
    request("POST", api + "/seats", { code: form.code.value, seat: seat ? seat.value : "" }).then(function (r) {
      if (!r.ok) { say(r.data.detail, true); return; }
      store.setItem(csrfKey, r.data.csrf);
      say("", false);
      read();
    });
  });

  $("word").addEventListener("input", function () {
    clearTimeout(verdictTimer);
    const word = $("word").value.trim();
    if (!word) { $("verdict").textContent = ""; return; }
    verdictTimer = setTimeout(function () {
      request("GET", api + "/verdict?word=" + encodeURIComponent(word)).then(function (r) {
        if ($("word").value.trim() !== word) { return; }  // typed on since: a newer verdict comes
        const box = $("verdict");
        box.textContent = "";
        const lines = r.ok ? r.data.said : [r.data.detail];
        lines.forEach(function (line, i) {
          const p = document.createElement("p");
          p.textContent = line;
          if (i === 0) { p.className = r.ok && r.data.playable ? "yes" : "no"; }
          box.appendChild(p);
        });
      });
    }, 150);
  });

  $("word-form").addEventListener("submit", function (e) {
    e.preventDefault();
    act({ action: "play", word: $("word").value.trim() });
  });
  $("bind-form").addEventListener("submit", function (e) {
    e.preventDefault();
    act({ action: "bind", word: $("bind-word").value.trim() });
  });
  $("roll-form").addEventListener("submit", function (e) {
    e.preventDefault();
    const body = { action: "roll" };
    if (view && view.dice !== "virtual") { body.roll = parseInt($("roll").value, 10); }
    act(body);
  });
  $("skip-button").addEventListener("click", function () { act({ action: "roll", skip: true }); });
  $("discard-form").addEventListener("submit", function (e) {
    e.preventDefault();
    const letters = $("letters").value.trim();
    act(letters ? { action: "discard", letters: letters } : { action: "discard" });
  });
  $("close-button").addEventListener("click", function () { act({ action: "bind_done" }); });
  $("undo-button").addEventListener("click", function () { act({ action: "undo" }); });
  function askHost(body) {
    if (!view) { return; }
    body.seen = view.version;
    request("POST", api + "/requests", body).then(function (r) {
      say(r.ok ? $("ask-undo").dataset.asked : r.data.detail, !r.ok);
    });
  }
  $("ask-undo").addEventListener("click", function () { askHost({ action: "undo" }); });
  $("ask-redo").addEventListener("click", function () { askHost({ action: "redo" }); });
  $("ask-leave").addEventListener("click", function () { askHost({ action: "leave" }); });
  $("amend-form").addEventListener("submit", function (e) {
    e.preventDefault();
    askHost({ action: "amend", roll: parseInt($("amend-roll").value, 10) });
  });

  // The board's event stream says when the game changed; the phone then reads its own view again.
  if (window.EventSource && root.dataset.stream) {
    const url = new URL(root.dataset.stream, window.location.href);
    url.searchParams.set("lang", lang);
    const source = new EventSource(url);
    source.onmessage = function () { if (view) { read(); } };
    source.onopen = function () { if (view) { read(); } };  // (re)connected: whatever was missed meanwhile
  }
  document.addEventListener("visibilitychange", function () { if (!document.hidden && view) { read(); } });
  if (store.getItem(csrfKey)) { read(); } else { $("join-form").hidden = false; }  // a seat taken before: its view
})();
