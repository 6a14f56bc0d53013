// Sounds of the table, made with the Web Audio API (no files): a card laid, a card drawn, a
// slap, the deal, and the calls "Yaniv!" (a rising call) and "Assaf!" (a falling one). Quiet
// by default (a low master volume); the switch in the page's top bar mutes it and is kept in
// localStorage (prefs.sound). Mobile browsers start audio only from a touch: the context is
// made on the first pointer or key press, and nothing plays before it.
import { store } from "./store.js";

const VOLUME = 0.18; // the master gain: quiet beside other apps' notification sounds
let context = null;
let master = null;
let played = 0;

/** Whether sound is on (the stored choice; on unless muted). */
export function soundOn() {
  return store.prefs().sound !== false;
}

export function setSound(on) {
  store.setPrefs({ ...store.prefs(), sound: Boolean(on) });
  document.documentElement.dataset.sound = on ? "on" : "muted";
}

function unlock() {
  if (context) {
    if (context.state === "suspended") context.resume().catch(() => {});
    return;
  }
  const Context = globalThis.AudioContext || globalThis.webkitAudioContext;
  if (!Context) return;
  try {
    context = new Context();
  } catch {
    context = null;
    return;
  }
  master = context.createGain();
  master.gain.value = VOLUME;
  master.connect(context.destination);
  if (context.state === "suspended") context.resume().catch(() => {});
  document.documentElement.dataset.audio = "unlocked";
}

/** Listen for the first touch, click or key that lets the page make sound. */
export function listenForUnlock() {
  document.documentElement.dataset.sound = soundOn() ? "on" : "muted";
  for (const kind of ["pointerdown", "touchstart", "keydown"]) {
    window.addEventListener(kind, unlock, { capture: true, passive: true });
  }
}

let noiseBuffer = null;
function noise() {
  if (!noiseBuffer) {
    const length = Math.floor(context.sampleRate * 0.2);
    noiseBuffer = context.createBuffer(1, length, context.sampleRate);
    const data = noiseBuffer.getChannelData(0);
    let seed = 12345; // a fixed pseudo-random hiss: the same sound every time
    for (let i = 0; i < length; i += 1) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      data[i] = (seed / 1073741824 - 1) * (1 - i / length);
    }
  }
  return noiseBuffer;
}

/** A short filtered hiss: the sound of a card on the felt. */
function swish(at, { length = 0.07, freq = 2200, q = 0.8, gain = 0.6 } = {}) {
  const source = context.createBufferSource();
  source.buffer = noise();
  const filter = context.createBiquadFilter();
  filter.type = "bandpass";
  filter.frequency.value = freq;
  filter.Q.value = q;
  const env = context.createGain();
  env.gain.setValueAtTime(gain, at);
  env.gain.exponentialRampToValueAtTime(0.001, at + length);
  source.connect(filter).connect(env).connect(master);
  source.start(at);
  source.stop(at + length + 0.02);
}

function tone(at, freq, length, { type = "triangle", gain = 0.5, to = null } = {}) {
  const osc = context.createOscillator();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, at);
  if (to) osc.frequency.exponentialRampToValueAtTime(to, at + length);
  const env = context.createGain();
  env.gain.setValueAtTime(0.0001, at);
  env.gain.exponentialRampToValueAtTime(gain, at + 0.015);
  env.gain.exponentialRampToValueAtTime(0.001, at + length);
  osc.connect(env).connect(master);
  osc.start(at);
  osc.stop(at + length + 0.02);
}

const SOUNDS = {
  card: (at) => swish(at),
  draw: (at) => swish(at, { length: 0.11, freq: 1400, q: 0.5, gain: 0.45 }),
  slap: (at) => { swish(at, { length: 0.05, freq: 900, q: 0.6, gain: 0.9 });
    tone(at, 140, 0.09, { type: "sine", gain: 0.6, to: 70 }); },
  deal: (at) => { for (let i = 0; i < 5; i += 1) swish(at + i * 0.06, { gain: 0.4 }); },
  // "Ya-niv!": two rising notes and a bright third
  yaniv: (at) => { tone(at, 523.25, 0.14); tone(at + 0.13, 659.25, 0.14);
    tone(at + 0.26, 783.99, 0.3, { gain: 0.55 }); },
  // "A-ssaf!": a falling pair, lower and rougher
  assaf: (at) => { tone(at, 392, 0.16, { type: "sawtooth", gain: 0.25 });
    tone(at + 0.15, 293.66, 0.34, { type: "sawtooth", gain: 0.25, to: 220 }); },
};

/** Play a sound by name (see SOUNDS) if sound is on and the page may make sound. */
export function play(name, delay = 0) {
  if (!soundOn() || !context || !master || !(name in SOUNDS)) return false;
  if (context.state === "suspended") context.resume().catch(() => {});
  SOUNDS[name](context.currentTime + 0.01 + delay);
  played += 1;
  // what was played last, for a reader of the page's state (the browser tests)
  document.documentElement.dataset.lastSound = name;
  document.documentElement.dataset.sounds = String(played);
  return true;
}

/** The sounds of new events: a card laid, drawn, slapped, the deal, the round's call. */
export function soundsOf(events) {
  const names = [];
  for (const event of events) {
    let name = null;
    if (event.type === "deal") name = "deal";
    else if (event.type === "discard") name = "card";
    else if (event.type === "draw") name = "draw";
    else if (event.type === "slap") name = "slap";
    else if (event.type === "showdown") {
      name = event.result && event.result.kind === "yaniv" ? "yaniv" : "assaf";
    }
    if (name && !names.includes(name)) names.push(name);
  }
  return names;
}
