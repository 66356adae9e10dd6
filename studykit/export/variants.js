// studykit computed cards, run by both templates of the "studykit computed" notetype.
//
// A computed card is one Anki card (one schedule, as in studykit); its note's Variants field
// holds each baked variant's front, answer, back and type-in check. Each showing of the front
// draws one; the back shows the same one and grades the typed answer against it. The front
// keeps its draw where the back finds it: in a page variable (Anki desktop keeps the page
// between the sides) and in sessionStorage (AnkiDroid and AnkiMobile render the back anew).
// Where no storage works, both sides take the day's variant instead, so they still agree.
// Where scripts do not run at all, the note's own fields show: the first variant.
// Plain ES5 in one function scope; no double brace, which Anki would read as a field.
var studykitVariants = (function () {
  "use strict";

  var PREFIX = "studykit-variant:";
  var DAY_MS = 86400000;

  function hash(text) {
    var value = 7;
    for (var i = 0; i < text.length; i++) {
      value = (value * 31 + text.charCodeAt(i)) % 1000003;
    }
    return value;
  }

  // The day's variant: the same on both sides unless midnight falls between them.
  function dayVariant(key, count, now) {
    return (Math.floor(now / DAY_MS) + hash(key)) % count;
  }

  function stored(value, count) {
    if (typeof value !== "string" || !/^\d+$/.test(value)) {
      return null;
    }
    var index = parseInt(value, 10);
    return index < count ? index : null;
  }

  function read(storage, name) {
    try {
      return storage.getItem(name);
    } catch (error) {
      return null;
    }
  }

  function write(storage, name, value) {
    try {
      storage.setItem(name, value);
    } catch (error) {
      return;
    }
  }

  // Which variant to show. `side` "front" draws one (at random where `storage` can keep it,
  // else the day's) and keeps it in `picks` and `storage`; "back" reads it back.
  function choose(count, key, side, storage, picks, random, now) {
    if (count < 2) {
      return 0;
    }
    var name = PREFIX + key;
    if (side === "back") {
      var known = picks !== null ? stored(picks[name], count) : null;
      if (known === null && storage !== null) {
        known = stored(read(storage, name), count);
      }
      return known !== null ? known : dayVariant(key, count, now);
    }
    var index = storage !== null ? Math.floor(random() * count) % count : dayVariant(key, count, now);
    if (picks !== null) {
      picks[name] = String(index);
    }
    if (storage !== null) {
      write(storage, name, String(index));
    }
    return index;
  }

  function sessionStore() {
    try {
      var storage = window.sessionStorage;
      storage.setItem(PREFIX + "probe", "1");
      storage.removeItem(PREFIX + "probe");
      return storage;
    } catch (error) {
      return null;
    }
  }

  function pagePicks() {
    if (typeof window === "undefined") {
      return null;
    }
    if (typeof window.studykitPicks !== "object" || window.studykitPicks === null) {
      window.studykitPicks = {};
    }
    return window.studykitPicks;
  }

  function reveal(container, index) {
    var blocks = container.querySelectorAll(".sk-variant");
    for (var i = 0; i < blocks.length; i++) {
      blocks[i].hidden = i !== index;
    }
    container.hidden = false;
  }

  // Variant `index` of a rendered back (tests; the page itself goes through `show`): its
  // answer and check, read as `show` reads them, and Anki's comparison made against it.
  function backFor(html, index, typein) {
    var pattern = /<div class="?sk-variant"? data-sk-answer="([^"]*)" data-sk-check="([^"]*)"/g;
    var found = [];
    var match;
    while ((match = pattern.exec(html)) !== null) {
      found.push({ answer: attribute(match[1]), check: attribute(match[2]) });
    }
    var comparison = /<code id="?typeans"?>([\s\S]*?)<\/code>/.exec(html);
    var chosen = found[index];
    if (chosen === undefined || comparison === null) {
      return null;
    }
    var typed = typein.typedFromComparison(comparison[1]);
    var check = typein.readCheck(chosen.check);
    return {
      answer: chosen.answer,
      comparison: index === 0 ? comparison[1] : typein.comparisonHtml(typed, chosen.answer),
      verdict: check === null ? null : typein.verdictText(typed, check)
    };
  }

  function attribute(text) {
    return text.replace(/&quot;/g, "\"").replace(/&#x27;/g, "'").replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">").replace(/&amp;/g, "&");
  }

  function typeset(elements) {
    try {
      if (window.MathJax && typeof window.MathJax.typesetPromise === "function") {
        window.MathJax.typesetPromise(elements);
      }
    } catch (error) {
      return;
    }
  }

  // Show the chosen variant in place of the note's own fields; on the back, grade against it.
  function show(doc, typein) {
    var fronts = doc.querySelector(".sk-fronts");
    if (fronts === null) {
      return -1;
    }
    var blocks = fronts.querySelectorAll(".sk-variant");
    var card = fronts.querySelector(".sk-card");
    if (blocks.length === 0 || card === null) {
      return -1;
    }
    var backs = doc.querySelector(".sk-backs");
    var side = backs !== null ? "back" : "front";
    var key = card.getAttribute("data-sk-card") || "";
    var index = choose(blocks.length, key, side, sessionStore(), pagePicks(), Math.random,
      Date.now());
    reveal(fronts, index);
    var shown = [fronts];
    if (backs !== null) {
      reveal(backs, index);
      shown.push(backs);
    }
    var fixed = doc.querySelectorAll(".sk-fixed");
    for (var i = 0; i < fixed.length; i++) {
      fixed[i].hidden = true;
    }
    if (backs !== null && typein) {
      var block = blocks[index];
      // The first variant is the one Anki's own comparison was made with.
      var expected = index === 0 ? undefined : block.getAttribute("data-sk-answer") || "";
      typein.show(doc, block.getAttribute("data-sk-check") || "", expected);
    }
    typeset(shown);
    return index;
  }

  return { choose: choose, dayVariant: dayVariant, backFor: backFor, show: show };
})();

if (typeof module !== "undefined" && module.exports) {
  module.exports = studykitVariants;
} else if (typeof document !== "undefined") {
  studykitVariants.show(document, typeof studykitTypein !== "undefined" ? studykitTypein : null);
}
