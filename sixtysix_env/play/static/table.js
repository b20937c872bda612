// Sixty-Six in the browser: draws what the server says the player may see,
// and sends the player's moves. The server keeps the game; nothing here
// knows a card it was not shown.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const SVGNS = "http://www.w3.org/2000/svg";
  const SUIT_NAME = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
  const SUIT_SYMBOL = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
  const RANK_NAME = { 9: "9", J: "jack", Q: "queen", K: "king", T: "10", A: "ace" };
  const RED = { D: true, H: true };
  const params = new URLSearchParams(location.search);
  const FAST = params.has("fast"); // tests: shorter pauses
  const PAUSE = FAST ? 30 : 650; // before each of the computer's moves
  const TRICK_PAUSE = FAST ? 60 : 1250; // a finished trick stays on the table
  const STORE_KEY = "sixtysix-game";

  let game = null;
  let busy = false;
  let declare = true; // leading a king or queen declares its marriage when it may
  let summaryHidden = false;
  let shownHand = { number: null, cards: [] };
  let shownPoints = null;

  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const rankText = (r) => (r === "T" ? "10" : r);
  const label = (code) => rankText(code[0]) + SUIT_SYMBOL[code[1]];
  const cardWords = (code) => `the ${RANK_NAME[code[0]]} of ${SUIT_NAME[code[1]]}`;
  const who = (side) => (side === "you" ? "You" : "The computer");
  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

  function setBusy(b) {
    busy = b;
    document.body.dataset.busy = b ? "1" : "0";
  }

  // -- drawing cards ------------------------------------------------------------

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function suitIcon(suit, cls) {
    const svg = document.createElementNS(SVGNS, "svg");
    svg.setAttribute("viewBox", "0 0 100 100");
    svg.setAttribute("aria-hidden", "true");
    if (cls) svg.setAttribute("class", cls);
    const use = document.createElementNS(SVGNS, "use");
    use.setAttribute("href", "#suit-" + suit);
    svg.appendChild(use);
    return svg;
  }

  function crown() {
    const svg = document.createElementNS(SVGNS, "svg");
    svg.setAttribute("viewBox", "0 0 100 60");
    svg.setAttribute("class", "crown");
    const use = document.createElementNS(SVGNS, "use");
    use.setAttribute("href", "#crown");
    svg.appendChild(use);
    return svg;
  }

  // Pip layouts of the number cards: [x %, y %, upside down].
  const PIPS = {
    9: [[0, 0], [0, 33.3], [0, 66.7, 1], [0, 100, 1], [100, 0], [100, 33.3], [100, 66.7, 1],
      [100, 100, 1], [50, 50]],
    T: [[0, 0], [0, 33.3], [0, 66.7, 1], [0, 100, 1], [100, 0], [100, 33.3], [100, 66.7, 1],
      [100, 100, 1], [50, 16.7], [50, 83.3, 1]],
  };

  // A card face (code such as "KH"), or a card back when code is null.
  function cardEl(code, small) {
    const c = el("div", "card" + (small ? " small" : ""));
    if (!code) {
      c.classList.add("back");
      c.setAttribute("aria-label", "a card, face down");
      return c;
    }
    const r = code[0];
    const s = code[1];
    c.dataset.card = code;
    c.title = cardWords(code);
    c.setAttribute("aria-label", cardWords(code));
    if (RED[s]) c.classList.add("red");
    for (const pos of ["tl", "br"]) {
      const corner = el("div", "corner " + pos);
      corner.append(el("span", r === "T" ? "rank-ten" : "", rankText(r)), suitIcon(s));
      c.append(corner);
    }
    if (r === "A" || (small && PIPS[r])) {
      // Small cards keep one symbol in the middle: nine or ten pips would crowd them.
      const a = el("div", r === "A" ? "ace" : "ace plain");
      a.append(suitIcon(s));
      c.append(a);
    } else if (PIPS[r]) {
      const face = el("div", "face");
      for (const [x, y, down] of PIPS[r]) {
        const p = suitIcon(s, "pip" + (down ? " down" : ""));
        p.style.left = x + "%";
        p.style.top = y + "%";
        face.append(p);
      }
      c.append(face);
    } else {
      const face = el("div", "face");
      const court = el("div", "court");
      if (r !== "J") court.append(crown());
      court.append(el("span", "letter", r), suitIcon(s, "csuit"));
      face.append(court);
      c.append(face);
    }
    return c;
  }

  function fan(card, i, n, dir) {
    const mid = (n - 1) / 2;
    card.style.setProperty("--rot", `${(i - mid) * 3.2 * dir}deg`);
    card.style.marginTop = `${Math.abs(i - mid) * Math.abs(i - mid) * 1.6}px`;
  }

  // -- talking to the server ------------------------------------------------------

  async function api(method, path, body) {
    const opts = { method, headers: {} };
    // The server takes only JSON posts (a form post from another page is refused).
    if (body !== undefined || method === "POST") {
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(body === undefined ? {} : body);
    }
    try {
      const resp = await fetch(path, opts);
      let data = {};
      try { data = await resp.json(); } catch (e) { data = {}; }
      return { ok: resp.ok, status: resp.status, data };
    } catch (e) {
      return { ok: false, status: 0, data: { error: "The server cannot be reached." } };
    }
  }

  let toastTimer = null;
  function toast(text, error) {
    const t = $("toast");
    t.textContent = text;
    t.classList.toggle("error", !!error);
    t.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { t.hidden = true; }, error ? 5000 : 2600);
  }

  // -- drawing the table ------------------------------------------------------------

  function render(g) {
    game = g;
    const h = g.hand;
    const res = g.result;

    $("score-you").textContent = g.match.score.you;
    $("score-computer").textContent = g.match.score.computer;
    $("target").textContent = `first to ${g.match.target}`;
    $("opp-name").textContent = `(${g.opponent})`;

    // The computer's hand: face down, except the cards it has shown; all of
    // them once the hand is over.
    const ch = $("computer-hand");
    ch.replaceChildren();
    const faceUp = res ? res.computer_cards : h.computer_known;
    const n = res ? res.computer_cards.length : h.computer_cards;
    for (let i = 0; i < n; i++) {
      const c = cardEl(i < faceUp.length ? faceUp[i] : null, true);
      if (i < faceUp.length) c.classList.add("known");
      fan(c, i, n, -1);
      ch.append(c);
    }
    $("computer-tricks").textContent = plural(h.tricks.computer, "trick");

    renderStock(h);
    renderTable(h);
    renderHand(g);
    renderSpecials(h);
    renderLog(g);

    $("your-tricks").textContent = plural(h.tricks.you, "trick");
    const pts = $("your-points");
    let ptsText = plural(h.your_points, "point");
    if (h.your_marriage_points) {
      ptsText += ` (${h.your_card_points} + ${h.your_marriage_points} marriage)`;
    }
    pts.textContent = ptsText;
    pts.dataset.points = h.your_points;
    if (shownPoints !== null && h.your_points > shownPoints && shownHand.number === h.number) {
      pts.classList.remove("bump");
      void pts.offsetWidth; // restart the animation
      pts.classList.add("bump");
    }
    shownPoints = h.your_points;

    $("status").textContent = statusText(g);
    renderSummary(g);
    renderHint(g);
  }

  // The hint: only when its box is ticked, and only on the player's turn. The server
  // reads it from the player's own view (GET /api/games/ID/hint).
  let hintAsked = 0;
  async function renderHint(g) {
    const box = $("hint");
    const ask = ++hintAsked;
    if (!$("hints").checked || g.result || g.hand.to_move !== "you") {
      box.hidden = true;
      return;
    }
    const r = await api("GET", `/api/games/${g.game_id}/hint`);
    if (ask !== hintAsked) return; // a newer render asked again
    if (!r.ok) { box.hidden = true; return; }
    const cards = r.data.hint;
    if (!cards.length) {
      box.textContent = "Hint: every card's place is known now.";
    } else {
      const likely = cards.filter((c) => c.probability > 0.5).slice(0, 4);
      const shown = (likely.length ? likely : cards.slice(0, 1))
        .map((c) => `${label(c.card)} ${Math.round(100 * c.probability)}%`).join(", ");
      box.textContent = likely.length
        ? `Hint (read from the computer's moves): it likely holds ${shown}`
        : `Hint (read from the computer's moves): no unseen card is more likely than not; the likeliest: ${shown}`;
    }
    box.hidden = false;
  }

  function renderStock(h) {
    const st = $("stock");
    st.replaceChildren();
    const s = h.stock;
    if (s.face_down > 0) {
      const trump = cardEl(s.closed_by ? null : s.trump_card);
      trump.classList.add("trump-card");
      if (s.closed_by) trump.title = `the stock is closed; the trump card was ${cardWords(h.trump_card)}`;
      st.append(trump);
      const layers = Math.min(4, Math.ceil(s.face_down / 3));
      for (let i = 0; i < layers; i++) {
        const b = cardEl(null);
        b.classList.add("pile");
        b.style.left = `${18 - i * 2}px`;
        b.style.top = `${7 - i * 2}px`;
        st.append(b);
      }
      if (s.closed_by) {
        // A closed stock: the trump card is turned face down across it.
        const t = cardEl(null);
        t.classList.add("trump-card");
        st.append(t);
      }
    } else {
      st.append(el("div", "empty", "stock used up"));
    }
    let text;
    if (s.closed_by) text = `${s.face_down} cards, closed by ${s.closed_by === "you" ? "you" : "the computer"}`;
    else if (s.face_down > 0) text = `${s.size} cards in the stock`;
    else text = "no cards left to draw";
    $("stock-label").textContent = text;
    const tr = $("trumps");
    tr.replaceChildren(el("span", "", "Trumps"), suitIcon(h.trump_suit), el("span", "", h.trump_suit_name));
    tr.classList.toggle("red", !!RED[h.trump_suit]);
  }

  function renderTable(h) {
    const sc = $("slot-computer");
    const sy = $("slot-you");
    sc.classList.remove("won");
    sy.classList.remove("won");
    sc.replaceChildren();
    sy.replaceChildren();
    $("trick-note").textContent = "";
    if (h.table) {
      (h.table.by === "you" ? sy : sc).append(cardEl(h.table.card));
    } else if (h.phase === "over") {
      // Leave the last trick in view at the end of the hand.
      const tricks = h.events.filter((e) => e.type === "trick");
      const last = tricks[tricks.length - 1];
      if (last) {
        const mine = last.leader === "you" ? last.lead : last.follow;
        const theirs = last.leader === "you" ? last.follow : last.lead;
        sy.append(cardEl(mine));
        sc.append(cardEl(theirs));
        (last.winner === "you" ? sy : sc).classList.add("won");
      }
    }
  }

  function renderHand(g) {
    const h = g.hand;
    const hand = $("your-hand");
    hand.replaceChildren();
    // A king or queen whose marriage may be declared has two moves: declare it
    // (the default, as the game is played) or, with the "declare" switch off,
    // play the card plainly.
    const plain = {};
    const marry = {};
    for (const m of h.moves) {
      if (!m.card) continue;
      if (m.kind === "marriage") marry[m.card] = m;
      else plain[m.card] = m;
    }
    const myTurn = h.to_move === "you" && !busy;
    const before = shownHand.number === h.number ? new Set(shownHand.cards) : null;
    const cards = h.your_cards;
    cards.forEach((code, i) => {
      const c = cardEl(code);
      const m = (declare && marry[code]) || plain[code] || marry[code];
      if (m && myTurn) {
        c.classList.add("playable");
        c.dataset.action = m.action;
        c.tabIndex = 0;
        if (m.kind === "marriage") {
          c.classList.add("marriage");
          c.title = `Lead ${cardWords(code)} to declare the marriage: ${m.points} points`;
          c.append(el("span", "badge", `+${m.points}`));
        } else if (marry[code]) {
          c.title = `Lead ${cardWords(code)} without declaring its marriage`;
        }
        c.addEventListener("click", () => play(m.action, c));
        c.addEventListener("keydown", (ev) => {
          if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); play(m.action, c); }
        });
      } else if (h.to_move === "you") {
        c.classList.add("unplayable");
        c.title = "You cannot play this card now: follow suit, or trump if you cannot.";
      } else {
        c.classList.add("waiting");
      }
      if (before && !before.has(code)) c.classList.add("new");
      fan(c, i, cards.length, 1);
      hand.append(c);
    });
    shownHand = { number: h.number, cards: cards.slice() };
  }

  function renderSpecials(h) {
    const kinds = {};
    for (const m of h.moves) kinds[m.kind] = m;
    const ok = h.to_move === "you" && !busy;
    const ex = $("exchange");
    ex.hidden = !(ok && kinds.exchange);
    if (kinds.exchange && h.exchange) {
      ex.textContent = `Exchange ${label(h.exchange.give)} for ${label(h.exchange.take)}`;
    }
    $("close").hidden = !(ok && kinds.close);
    // The switch shows when a marriage could be declared and the card played plainly too.
    const both = h.moves.some(
      (m) => m.kind === "marriage" && h.moves.some((p) => p.kind === "play" && p.card === m.card));
    const d = $("declare");
    d.hidden = !(ok && both);
    d.setAttribute("aria-pressed", declare ? "true" : "false");
    d.textContent = declare ? "Marriages: declare" : "Marriages: play plainly";
  }

  function eventText(e) {
    if (e.type === "trick") {
      const other = e.leader === "you" ? "computer" : "you";
      const lead = `${e.leader === "you" ? "you" : "computer"} ${label(e.lead)}`;
      const follow = `${other} ${label(e.follow)}`;
      return `Trick ${e.number}: ${lead}, ${follow} \u2192 ${e.winner === "you" ? "you" : "computer"} +${e.points}`;
    }
    if (e.type === "marriage") {
      return `${who(e.by)} declare${e.by === "you" ? "" : "s"} ${e.points} in ${SUIT_NAME[e.suit]} (${label(e.led)} ${label(e.shown)})`;
    }
    if (e.type === "exchange") {
      return `${who(e.by)} exchange${e.by === "you" ? "" : "s"} ${label(e.nine)} for ${label(e.taken)}`;
    }
    if (e.type === "close") return `${who(e.by)} close${e.by === "you" ? "" : "s"} the stock`;
    return "";
  }

  function renderLog(g) {
    const log = $("log");
    log.replaceChildren();
    for (const e of g.hand.events) {
      const li = el("li", "", eventText(e));
      if (e.winner === "you" || e.by === "you") li.classList.add("mine");
      log.append(li);
    }
    // A lead waiting for its answer is no event yet: the log tells it too (the
    // computer's lead, when it leads a hand, comes before anything else).
    const t = g.hand.table;
    if (t) {
      const li = el("li", "lead", `${who(t.by)} led ${label(t.card)}.`);
      if (t.by === "you") li.classList.add("mine");
      log.append(li);
    } else if (!g.hand.events.length) {
      log.append(el("li", "", "Nothing played yet."));
    }
    const hist = $("history");
    hist.replaceChildren();
    for (const hd of g.match.hands) {
      const gp = hd.game_points;
      const text = hd.winner === null
        ? `Hand ${hd.number}: tie`
        : `Hand ${hd.number}: ${hd.winner === "you" ? "you" : "computer"} +${hd.winner === "you" ? gp.you : gp.computer}`;
      const li = el("li", hd.winner === "you" ? "mine" : "", text);
      li.title = hd.explain;
      hist.append(li);
    }
    if (!g.match.hands.length) hist.append(el("li", "", "First hand of the match."));
  }

  function statusText(g) {
    const h = g.hand;
    if (g.result) return g.result.headline;
    if (h.to_move !== "you") return "The computer is thinking\u2026";
    const strict = h.phase === "strict";
    if (h.table) {
      return `Your answer to ${label(h.table.card)}` + (strict ? ": follow suit, or trump if you cannot." : ": play any card.");
    }
    if (h.moves.some((m) => m.kind === "marriage")) {
      return declare
        ? "Your lead. Your king and queen glow: lead one to declare the marriage."
        : "Your lead. Marriages are switched off: a king or queen is played plainly.";
    }
    return "Your lead.";
  }

  function renderSummary(g) {
    const res = g.result;
    const ov = $("summary");
    $("show-summary").hidden = true;
    if (!res) {
      ov.hidden = true;
      summaryHidden = false;
      return;
    }
    const title = $("summary-title");
    const m = g.match;
    if (m.over) {
      title.textContent = m.winner === "you"
        ? `You win the match ${m.score.you} : ${m.score.computer}!`
        : `The computer wins the match ${m.score.computer} : ${m.score.you}.`;
    } else {
      title.textContent = res.headline;
    }
    title.classList.toggle("lost", m.over ? m.winner === "computer" : res.winner === "computer");
    $("summary-explain").textContent = m.over ? `${res.headline} ${res.explain}` : res.explain;
    for (const side of ["you", "computer"]) {
      $(`sum-${side}-cards`).textContent = res.card_points[side];
      const mp = res.marriage_points[side];
      $(`sum-${side}-marriages`).textContent = mp ? (res.tricks[side] ? mp : `${mp} (no trick)`) : "\u2013";
      $(`sum-${side}-tricks`).textContent = res.tricks[side];
      $(`sum-${side}-total`).textContent = res.totals[side];
      const box = $(`reveal-${side}`);
      box.replaceChildren();
      const cards = side === "you" ? res.your_cards : res.computer_cards;
      for (const code of cards) box.append(cardEl(code, true));
      if (!cards.length) box.append(el("span", "none", "none"));
    }
    $("summary-score").textContent = `Match: you ${m.score.you}, the computer ${m.score.computer} (first to ${m.target}).`;
    $("next-hand").hidden = m.over;
    $("summary-new").hidden = !m.over;
    ov.hidden = summaryHidden;
    $("show-summary").hidden = !summaryHidden;
  }

  // -- playing ---------------------------------------------------------------------------

  async function replay(steps) {
    const slots = { you: $("slot-you"), computer: $("slot-computer") };
    for (const st of steps) {
      if (st.by === "computer") await sleep(PAUSE);
      if (st.kind === "exchange" || st.kind === "close") {
        toast(st.text);
        continue;
      }
      if (slots[st.by].firstChild?.dataset.card !== st.card) {
        const c = cardEl(st.card);
        c.classList.add("arrive");
        slots[st.by].replaceChildren(c);
      }
      if (st.kind === "marriage") toast(st.text);
      if (st.trick) {
        const w = st.trick.winner;
        slots[w].classList.add("won");
        $("trick-note").textContent = `${w === "you" ? "You win" : "The computer wins"} the trick (+${st.trick.points})`;
        await sleep(TRICK_PAUSE);
        slots.you.replaceChildren();
        slots.computer.replaceChildren();
        slots.you.classList.remove("won");
        slots.computer.classList.remove("won");
        $("trick-note").textContent = "";
      }
    }
  }

  function freeze() {
    for (const c of document.querySelectorAll("#your-hand .card")) {
      c.classList.remove("playable", "marriage");
      c.classList.add("waiting");
    }
    $("exchange").hidden = true;
    $("close").hidden = true;
    $("declare").hidden = true;
  }

  // A move or a next hand the server refused: say why, and show the game as it was (a new
  // match where the server no longer knows this one).
  function refused(r) {
    toast(r.data.error || `The server answered ${r.status}.`, true);
    setBusy(false);
    if (r.status === 404) return newMatch();
    render(game);
  }

  async function play(action, cardNode) {
    if (busy || !game) return;
    setBusy(true);
    freeze();
    const code = action.startsWith("marry-") ? action.slice(6) : action;
    if (cardNode) {
      const c = cardEl(code);
      c.classList.add("arrive");
      $("slot-you").replaceChildren(c);
      cardNode.remove();
    }
    $("status").textContent = "The computer is thinking\u2026";
    const r = await api("POST", `/api/games/${game.game_id}/act`, { action });
    if (!r.ok) return refused(r);
    await replay(r.data.steps);
    setBusy(false);
    render(r.data);
  }

  async function nextHand() {
    if (busy || !game) return;
    setBusy(true);
    $("summary").hidden = true;
    summaryHidden = false;
    const r = await api("POST", `/api/games/${game.game_id}/next`);
    if (!r.ok) return refused(r);
    shownPoints = 0;
    // Show the fresh deal before the computer's opening moves.
    const fresh = r.data;
    renderBeforeSteps(fresh);
    await replay(fresh.steps);
    setBusy(false);
    render(fresh);
  }

  function renderBeforeSteps(g) {
    // The new hand without the card the computer has led yet: the replay puts it down.
    const copy = JSON.parse(JSON.stringify(g));
    if (copy.hand.table && copy.steps.length) copy.hand.table = null;
    render(copy);
    freeze();
  }

  async function newMatch() {
    if (busy) return;
    setBusy(true);
    summaryHidden = false;
    $("summary").hidden = true;
    const body = { opponent: $("opponent").value, rules: $("rules").value };
    const r = await api("POST", "/api/games", body);
    if (!r.ok) {
      toast(r.data.error || `The server answered ${r.status}.`, true);
      setBusy(false);
      return;
    }
    sessionStorage.setItem(STORE_KEY, r.data.game_id);
    shownHand = { number: null, cards: [] };
    shownPoints = null;
    renderBeforeSteps(r.data);
    await replay(r.data.steps);
    setBusy(false);
    render(r.data);
  }

  async function start() {
    setBusy(true);
    const o = await api("GET", "/api/options");
    if (!o.ok) {
      toast(o.data.error || "The server cannot be reached.", true);
      return;
    }
    const opp = $("opponent");
    for (const name of o.data.opponents) opp.append(new Option(name, name, false, name === o.data.default_opponent));
    const rules = $("rules");
    for (const name of o.data.rules) rules.append(new Option(name, name, false, name === o.data.default_rules));
    const gid = sessionStorage.getItem(STORE_KEY);
    if (gid) {
      const r = await api("GET", `/api/games/${encodeURIComponent(gid)}`);
      if (r.ok) {
        if (o.data.opponents.includes(r.data.opponent)) opp.value = r.data.opponent;
        if (o.data.rules.includes(r.data.rules)) rules.value = r.data.rules;
        setBusy(false);
        render(r.data);
        return;
      }
      sessionStorage.removeItem(STORE_KEY);
    }
    setBusy(false);
    await newMatch();
  }

  $("setup").addEventListener("submit", (ev) => { ev.preventDefault(); newMatch(); });
  $("exchange").addEventListener("click", () => play("exchange"));
  $("close").addEventListener("click", () => play("close"));
  $("declare").addEventListener("click", () => {
    declare = !declare;
    if (game) render(game);
  });
  $("hints").addEventListener("change", () => { if (game) renderHint(game); });
  $("next-hand").addEventListener("click", nextHand);
  $("summary-new").addEventListener("click", newMatch);
  $("view-table").addEventListener("click", () => {
    summaryHidden = true;
    $("summary").hidden = true;
    $("show-summary").hidden = false;
  });
  $("show-summary").addEventListener("click", () => {
    summaryHidden = false;
    $("summary").hidden = false;
    $("show-summary").hidden = true;
  });
  start();
})();
