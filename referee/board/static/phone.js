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
  let nextTimer = null;
  let allowWord = "";    // the refused word the table may be asked to allow
  let anchor = null;     // the control the last action came from: its feedback goes under it

  // The feedback line sits right under the control that caused it (``anchor``), where the eyes are, and is
  // scrolled into what the screen shows above an on-screen keyboard.
  function say(text, bad, under) {
    if (under && under.nextElementSibling !== message) { under.insertAdjacentElement("afterend", message); }
    message.textContent = text || "";
    message.classList.toggle("bad", Boolean(bad));
    if (text && message.scrollIntoView) { message.scrollIntoView({ block: "nearest" }); }
  }
  function anchorOf(node) { return node && node.tagName === "BUTTON" && node.parentElement.tagName === "P" ? node.parentElement : node; }

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
    if ($("word-form").hidden) { $("allow-box").hidden = true; }
    show("discard-form", mine && (phase === "action" || phase === "last_words"));
    show("roll-form", mine && (phase === "sanity" || phase === "psychotherapy"));
    show("skip-button", mine && phase === "psychotherapy");
    const virtual = v.dice === "virtual";   // the referee rolls: nothing to type
    $("roll").hidden = virtual;
    $("roll-label").hidden = virtual;
    $("roll-button").textContent = virtual ? $("roll-button").dataset.tVirtual : $("roll-button").dataset.tPhysical;
    // Spell Binding: the others name a word or pass; the discarder's phone says whom the naming waits for.
    const waits = v.binding_waits_for || [];
    show("binding-wait", mine && phase === "spell_binding");
    $("binding-wait").textContent = waits.length ? $("binding-wait").dataset.tWaiting.replace("{players}", waits.join(", "))
      : $("binding-wait").dataset.tHost;
    show("bind-form", !v.over && phase === "spell_binding" && !mine && !v.acted_in_binding);
    show("undo-button", v.can_undo);
    show("ask-undo", !v.can_undo);
    show("over", v.over);     // what can still be done, and the next game when the board shows one
    const hosted = !$("no-next");
    show("next-game", v.over && (hosted || Boolean(v.next_game)));
    if (!hosted) { show("no-next", v.over && !v.next_game); }
    clearTimeout(nextTimer);
    if (v.over && !v.next_game && !hosted) { nextTimer = setTimeout(read, 5000); }  // a new game is no event of this one
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

  function act(body, from) {
    if (busy || !view) { return; }
    busy = true;
    anchor = anchorOf(from) || anchor;
    body.seen = view.version;
    request("POST", api + "/actions", body).then(function (r) {
      busy = false;
      if (r.ok) {
        say((r.data.notes || []).join(" "), false, visibleAnchor());
        render(r.data);
        $("word").value = ""; $("letters").value = ""; $("roll").value = ""; $("bind-word").value = "";
        $("verdict").textContent = "";
      } else {
        say(r.data.detail, true, visibleAnchor());
        read();
      }
    }).catch(function () { busy = false; say(root.dataset.tOffline, true, visibleAnchor()); });
  }
  // The control an answer goes under: the one that acted (hidden since, when the turn passed on, the line is
  // where it was: between the banner and the next control).
  function visibleAnchor() { return anchor || $("waiting"); }

  $("join-form").addEventListener("submit", function (e) {
    e.preventDefault();
    const form = e.target;
    const seat = form.querySelector("input[name=seat]:checked");
    request("POST", api + "/seats", { code: form.code.value, seat: seat ? seat.value : "" }).then(function (r) {
      if (!r.ok) { say(r.data.detail, true, form); return; }
      store.setItem(csrfKey, r.data.csrf);
      say("", false);
      read();
    });
  });

  $("word").addEventListener("input", function () {
    clearTimeout(verdictTimer);
    const word = $("word").value.trim();
    $("allow-box").hidden = true;
    if (!word) { $("verdict").textContent = ""; return; }
    verdictTimer = setTimeout(function () {
      request("GET", api + "/verdict?word=" + encodeURIComponent(word)).then(function (r) {
        if ($("word").value.trim() !== word) { return; }  // typed on since: a newer verdict comes
        const box = $("verdict");
        box.textContent = "";
        const lines = r.ok ? r.data.said : [r.data.detail];
        $("allow-box").hidden = !(r.ok && r.data.overrulable);
        allowWord = r.ok && r.data.overrulable ? word : "";
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
    act({ action: "play", word: $("word").value.trim() }, e.target);
  });
  $("bind-form").addEventListener("submit", function (e) {
    e.preventDefault();
    act({ action: "bind", word: $("bind-word").value.trim() }, e.target);
  });
  $("roll-form").addEventListener("submit", function (e) {
    e.preventDefault();
    const body = { action: "roll" };
    if (view && view.dice !== "virtual") { body.roll = parseInt($("roll").value, 10); }
    act(body, e.target);
  });
  $("skip-button").addEventListener("click", function () { act({ action: "roll", skip: true }, $("roll-form")); });
  $("discard-form").addEventListener("submit", function (e) {
    e.preventDefault();
    const letters = $("letters").value.trim();
    act(letters ? { action: "discard", letters: letters } : { action: "discard" }, e.target);
  });
  $("pass-button").addEventListener("click", function () { act({ action: "pass" }, $("bind-form")); });
  $("undo-button").addEventListener("click", function (e) { act({ action: "undo" }, e.target); });
  function askHost(body, from) {
    if (!view) { return; }
    body.seen = view.version;
    const under = anchorOf(from);
    request("POST", api + "/requests", body).then(function (r) {
      say(r.ok ? $("ask-undo").dataset.asked : r.data.detail, !r.ok, under);
    });
  }
  $("ask-undo").addEventListener("click", function (e) { askHost({ action: "undo" }, e.target); });
  $("ask-allow").addEventListener("click", function (e) {   // the roll comes after, as for any play
    if (!view || !allowWord) { return; }
    const under = anchorOf(e.target);
    request("POST", api + "/requests", { action: "allow", word: allowWord, seen: view.version }).then(function (r) {
      say(r.ok ? $("ask-allow").dataset.asked : r.data.detail, !r.ok, under);
    });
  });
  $("ask-redo").addEventListener("click", function (e) { askHost({ action: "redo" }, e.target); });
  $("ask-leave").addEventListener("click", function (e) { askHost({ action: "leave" }, e.target); });
  $("amend-form").addEventListener("submit", function (e) {
    e.preventDefault();
    askHost({ action: "amend", roll: parseInt($("amend-roll").value, 10) }, e.target);
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
