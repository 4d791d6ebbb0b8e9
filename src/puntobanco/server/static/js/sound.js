// Optional sound: off by default, the player's choice remembered (localStorage "pb.sound").
// Short tones made with WebAudio: no sound files to download.

const KEY = "pb.sound";
let context = null;

export function soundOn() {
  return localStorage.getItem(KEY) === "on";
}

export function setSound(on) {
  localStorage.setItem(KEY, on ? "on" : "off");
}

const TUNES = {
  chip: [[880, 0.05]],
  closed: [[330, 0.18]],
  win: [[660, 0.1], [880, 0.16]],
  lose: [[300, 0.12], [220, 0.18]],
};

/** Play one of the page's tones (chip, closed, win, lose) when the sound is on. */
export function play(name) {
  if (!soundOn()) return;
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return;
  try {
    context = context || new Context();
    let at = context.currentTime;
    for (const [frequency, seconds] of TUNES[name] || []) {
      const oscillator = context.createOscillator();
      const gain = context.createGain();
      oscillator.type = "sine";
      oscillator.frequency.value = frequency;
      gain.gain.setValueAtTime(0.0001, at);
      gain.gain.exponentialRampToValueAtTime(0.15, at + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, at + seconds);
      oscillator.connect(gain).connect(context.destination);
      oscillator.start(at);
      oscillator.stop(at + seconds + 0.02);
      at += seconds;
    }
  } catch {
    // no audio device: the page stays silent
  }
}
