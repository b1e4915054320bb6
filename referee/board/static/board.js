// The board updates itself from the server's event stream: no reload, no polling while idle.
// Every word it shows comes from the server in the page's language: the stream's updates, and the
// connection states in the data attributes of #live.
"use strict";
(function () {
  const board = document.getElementById("board");
  const announce = document.getElementById("announce");
  const live = document.getElementById("live");
  if (!board || !window.EventSource) { return; }
  let key = board.dataset.key;
  let source = null;
  // The stream speaks the page's language, whatever the browser or a cookie would choose.
  const stream = new URL(board.dataset.stream, window.location.href);
  stream.searchParams.set("lang", document.documentElement.lang);

  // On a TV the last actions and the words used are cut to the screen: a cut list fades out at its foot. The
  // table's facts are shown whole or not at all (there is room for them with few players).
  function markCut() {
    board.querySelectorAll(".recent-panel, .words").forEach(function (box) {
      box.classList.toggle("cut", box.scrollHeight > box.clientHeight + 1);
    });
    board.querySelectorAll(".table-panel").forEach(function (box) {
      box.classList.toggle("left-out", box.scrollHeight > box.clientHeight + 1);
    });
  }
  markCut();
  window.addEventListener("resize", markCut);

  function show(state, text) {
    live.dataset.state = state;
    live.textContent = text;
  }

  function connect() {
    source = new EventSource(stream.href);
    source.onopen = function () { show("live", live.dataset.liveText); };
    source.onmessage = function (event) {
      const update = JSON.parse(event.data);
      if (update.key === key) { return; }
      key = update.key;
      board.dataset.key = key;
      board.innerHTML = update.html;
      document.title = update.title + " · Unspeakable Words";
      announce.textContent = update.announce;
      markCut();
    };
    source.onerror = function () {
      show("lost", live.dataset.lostText);
      if (source.readyState === EventSource.CLOSED) {  // refused (too many pages): try again later
        setTimeout(connect, 5000);
      }
    };
  }
  connect();
})();
