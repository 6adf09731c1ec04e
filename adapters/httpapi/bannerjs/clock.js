// The runtime's own main-thread time (consentd.timing()): when it started, and how long its
// work took, counted once when calls nest.

var T0 = now(), busy = 0, depth = 1, shownAt = 0;

// now is the time since navigation in ms; every browser with Shadow DOM and fetch has it.
export function now() { return performance.now(); }

// timed wraps fn so that its run time counts as the runtime's main-thread time (once, when
// nested).
export function timed(fn) {
  return function () {
    var s = depth++ ? -1 : now();
    try { return fn.apply(this, arguments); } finally { if (!--depth && s >= 0) busy += now() - s; }
  };
}

// started ends the runtime's synchronous start, which counts as its time.
export function started() {
  depth = 0;
  busy += now() - T0;
}

// shown notes when the banner was first shown; it reports whether this is the first time.
export function shown() {
  var first = !shownAt;
  shownAt = shownAt || now();
  return first;
}

// timing is consentd.timing(): when the runtime started, when the banner was shown
// (performance.now() ms) and the main-thread time spent in the runtime so far.
export function timing() { return { start: T0, shown: shownAt, busy: busy }; }
