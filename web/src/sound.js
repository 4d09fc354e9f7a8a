// Short sounds, made in the page with WebAudio (no sound files): a card placed, a refused move, a
// win. Off unless the player turns them on (the header's switch, kept in this browser): a page
// that starts making noise by itself is one people close. Nothing is made while off, not even the
// audio context. The switch and the context are the page's: an object it makes (``makeSound``) and
// lends the parts as `app.sound`, `app.soundOn`.

/** The page's sounds: {on, context} kept in the object, {soundOn, setSound, sound} to use them. */
export function makeSound() {
  const kept = { on: false, context: null };
  const audio = () => {
    if (kept.context) return kept.context;
    const Audio = globalThis.AudioContext ?? globalThis.webkitAudioContext;
    if (!Audio) return null;
    try {
      kept.context = new Audio();
    } catch {
      return null;
    }
    return kept.context;
  };
  return {
    kept,
    /** Whether the sounds are on. */
    soundOn: () => kept.on,
    /** Turn the sounds on or off (``true`` from a click: the audio context may start then). */
    setSound(wanted) {
      kept.on = Boolean(wanted);
      if (kept.on) audio()?.resume?.();
    },
    /** Play the sound ``kind`` ("place", "refuse", "win"), if the sounds are on. */
    sound(kind) {
      if (!kept.on || !SOUNDS[kind]) return;
      const ac = audio();
      if (!ac) return;
      if (ac.state === "suspended") ac.resume?.();
      for (const n of SOUNDS[kind]) note(ac, n);
    },
  };
}

/** One note: ``type`` wave at ``freq`` Hz (gliding to ``to``), ``at`` seconds from now for ``length``. */
function note(ac, { type = "triangle", freq, to = freq, at = 0, length = 0.08, volume = 0.12 }) {
  const start = ac.currentTime + at;
  const osc = ac.createOscillator();
  const gain = ac.createGain();
  osc.type = type;
  osc.frequency.value = freq;
  if (to !== freq) osc.frequency.exponentialRampToValueAtTime(to, start + length);
  gain.gain.setValueAtTime(volume, start);
  gain.gain.exponentialRampToValueAtTime(0.0001, start + length);
  osc.connect(gain).connect(ac.destination);
  osc.start(start);
  osc.stop(start + length + 0.02);
}

const SOUNDS = {
  // a card put down: a short tick, falling
  place: [{ freq: 880, to: 520, length: 0.06 }],
  // a refused move: two low buzzes
  refuse: [
    { type: "square", freq: 150, length: 0.07, volume: 0.05 },
    { type: "square", freq: 120, at: 0.09, length: 0.09, volume: 0.05 },
  ],
  // a win: a rising arpeggio, C E G C
  win: [523.25, 659.25, 783.99, 1046.5].map((freq, i) => ({ type: "sine", freq, at: i * 0.11, length: i === 3 ? 0.4 : 0.14, volume: 0.14 })),
};
