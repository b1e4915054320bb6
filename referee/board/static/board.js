// The board updates itself from the server's event stream: no reload, no polling while idle.
"use strict";
(function () {
  const board = document.getElementById("board");
  const announce = document.getElementById("announce");
  const live = document.getElementById("live");
  if (!board || !window.EventSource) { return; }
  let key = board.dataset.key;
  let source = null;

  function show(state, text) {
    live.dataset.state = state;
    live.textContent = text;
  }

  function connect() {
    source = new EventSource(board.dataset.stream);
    source.onopen = function () { show("live", "Live"); };
    source.onmessage = function (event) {
      const update = JSON.parse(event.data);
      if (update.key === key) { return; }
      key = update.key;
      board.dataset.key = key;
      board.innerHTML = update.html;
      document.title = update.title + " · Unspeakable Words";
      announce.textContent = update.announce;
    };
    source.onerror = function () {
      show("lost", "Reconnecting…");
      if (source.readyState === EventSource.CLOSED) {  // refused (too many pages): try again later
        setTimeout(connect, 5000);
      }
    };
  }
  connect();
})();
