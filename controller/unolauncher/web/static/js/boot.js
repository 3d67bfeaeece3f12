// Loading the page: if a script does not arrive (a flaky Wi-Fi drops one file), the page would wait on
// "connecting…" forever. Instead: reload to try again (twice, a little later each time), then say which file did
// not load, with a Try again button. A classic script, loaded before the modules so it sees their failures.
// It also registers the offline app shell (sw.js) once the page has started.
(function () {
  const KEY = "unolauncher.boot-tries";
  const MAX_RETRIES = 2;
  const WATCHDOG_MS = 15000; // no dashboard after this long: something hangs (a request that never ends)
  let done = false;

  function show(text, retrying) {
    let box = document.getElementById("boot-error");
    if (!box) {
      box = document.createElement("div");
      box.id = "boot-error";
      box.setAttribute("role", "alert");
      (document.body || document.documentElement).append(box);
    }
    box.replaceChildren(Object.assign(document.createElement("p"), { textContent: text }));
    if (!retrying) {
      const again = Object.assign(document.createElement("button"), { type: "button", textContent: "Try again" });
      again.className = "btn primary";
      again.addEventListener("click", () => {
        sessionStorage.removeItem(KEY);
        location.reload();
      });
      box.append(again);
    }
  }

  function failed(what) {
    if (done || window.unoDashboard) return; // the page started: a late failure is not a failed load
    done = true;
    const tries = Number(sessionStorage.getItem(KEY) || 0);
    if (tries < MAX_RETRIES) {
      sessionStorage.setItem(KEY, String(tries + 1));
      show(`${what} did not load — trying again…`, true);
      setTimeout(() => location.reload(), 1000 * (tries + 1));
      return;
    }
    show(`The page could not load ${what} (${tries + 1} tries). Check the Wi-Fi connection to the table, then try again.`, false);
  }

  window.unoBoot = {
    failed,
    started() {
      // main.js is running: a later reload starts with fresh tries; the app shell may be kept for offline reloads.
      if (done) return; // a file failed first (the MQTT library, say): its retry stands
      done = true;
      sessionStorage.removeItem(KEY);
      if ("serviceWorker" in navigator) navigator.serviceWorker.register("sw.js").catch(() => {});
    },
  };
  // A <script> or <link rel=modulepreload> that fails to load fires "error" on its element (it does not bubble:
  // listen in the capture phase).
  window.addEventListener("error", (event) => {
    const el = event.target;
    if (el && (el.tagName === "SCRIPT" || el.tagName === "LINK") && (el.src || el.href)) {
      failed(new URL(el.src || el.href, location.href).pathname.replace(/^\//, ""));
    }
  }, true);
  setTimeout(() => {
    if (!window.unoDashboard) failed("the page's scripts");
  }, WATCHDOG_MS);
})();
