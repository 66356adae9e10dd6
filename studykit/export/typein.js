// studykit type-in check, run by the back template of the "studykit type-in" notetype.
//
// Anki compares typed text exactly; studykit grades numbers within the card's tolerance and
// expressions by value. This script mirrors studykit/quiz/grading.py for numbers (the same
// readable forms, the same bounds, the same tolerance rule) and checks an expression at
// sample points. Where scripts do not run, Anki's own `type:` comparison is all that shows.
// It is plain ES5 in one function scope: Anki may run it many times in one page, and the
// template must never contain a double brace, which Anki would read as a field.
var studykitTypein = (function () {
  "use strict";

  var MAX_ANSWER_LENGTH = 300;
  var MAX_LITERAL_DIGITS = 30;
  var MAX_LITERAL_ABS = 1e300;
  var MAX_EXPONENT = 1000;
  var MAX_DEPTH = 50;
  var TYPED = [["\u2212", "-"], ["\u00d7", "*"], ["\u00b7", "*"], ["^", "**"], ["\u00f7", "/"]];
  var FUNCTIONS = {
    log: [1, 2], ln: [1, 1], exp: [1, 1], sqrt: [1, 1], sin: [1, 1], cos: [1, 1],
    tan: [1, 1], asin: [1, 1], acos: [1, 1], atan: [1, 1], sinh: [1, 1], cosh: [1, 1],
    tanh: [1, 1], ceiling: [1, 1], floor: [1, 1], Abs: [1, 1], abs: [1, 1],
    min: [2, 32], max: [2, 32]
  };
  var CONSTANTS = { pi: Math.PI, E: Math.E };

  function Unreadable(message) {
    this.message = message;
  }

  function typedText(text) {
    var cleaned = text.trim();
    for (var i = 0; i < TYPED.length; i++) {
      cleaned = cleaned.split(TYPED[i][0]).join(TYPED[i][1]);
    }
    return cleaned;
  }

  // grading.read_commas: `0,26` is a decimal comma, `1,234,567` groups thousands, `4,096` is
  // refused as ambiguous; commas inside a longer expression are left for the parser to refuse.
  function readCommas(text) {
    var match = /^([-+]?)(\d+)((?:,\d+)+)$/.exec(text);
    if (match === null) {
      return text;
    }
    var sign = match[1], whole = match[2], rest = match[3];
    if (/^[1-9]\d{0,2}(?:,\d{3}){2,}$/.test(whole + rest)) {
      return text.split(",").join("");
    }
    var fraction = rest.slice(1);
    if (fraction.indexOf(",") >= 0) {
      throw new Unreadable("too many commas for one number");
    }
    if (fraction.length === 3 && whole !== "0") {
      throw new Unreadable("it could mean " + sign + whole + fraction + " or " + sign + whole +
        "." + fraction + ": type it without a comma");
    }
    return sign + whole + "." + fraction;
  }

  // Python's number literals: 12, 1_000, .5, 5., 1e-3, 0x1f, 0o17, 0b101.
  var NUMBER = new RegExp(
    "^(?:0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+|" +
    "(?:(?:\\d(?:_?\\d)*)?\\.\\d(?:_?\\d)*|\\d(?:_?\\d)*\\.?)(?:[eE][-+]?\\d(?:_?\\d)*)?)"
  );
  var NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

  function literal(text) {
    var plain = text.split("_").join("");
    var lower = plain.toLowerCase();
    var radix = { "0x": 16, "0o": 8, "0b": 2 }[lower.slice(0, 2)];
    if (radix !== undefined) {
      var digits = lower.slice(2);
      if (digits.length > MAX_LITERAL_DIGITS) {
        throw new Unreadable("number " + text + " has more than 30 digits");
      }
      var whole = parseInt(digits, radix);
      if (whole >= 1e30) {
        throw new Unreadable("number " + text + " has more than 30 digits");
      }
      return whole;
    }
    var isFloat = /[.e]/.test(lower);
    if (!isFloat && /^0\d/.test(plain) && /[1-9]/.test(plain)) {
      throw new Unreadable("leading zeros in a whole number are not allowed");
    }
    var mantissa = isFloat ? lower.split("e")[0] : lower;
    var value = Number(plain);
    if (mantissa.replace(/\D/g, "").length > MAX_LITERAL_DIGITS || (!isFloat && value >= 1e30)) {
      throw new Unreadable("number " + text + " has more than 30 digits");
    }
    if (!(Math.abs(value) <= MAX_LITERAL_ABS)) {
      throw new Unreadable("number " + text + " is too large; at most 1e300");
    }
    return value;
  }

  function tokenize(text) {
    var tokens = [];
    var i = 0;
    while (i < text.length) {
      var rest = text.slice(i);
      var space = /^\s+/.exec(rest);
      if (space !== null) {
        i += space[0].length;
        continue;
      }
      var number = NUMBER.exec(rest);
      if (number !== null && number[0] !== "") {
        var after = rest.charAt(number[0].length);
        if (/[A-Za-z0-9_.]/.test(after)) {
          throw new Unreadable("invalid syntax at `" + rest + "`");
        }
        tokens.push({ kind: "number", text: number[0], value: literal(number[0]) });
        i += number[0].length;
        continue;
      }
      var name = NAME.exec(rest);
      if (name !== null) {
        tokens.push({ kind: "name", text: name[0] });
        i += name[0].length;
        continue;
      }
      var op = rest.slice(0, 2) === "**" ? "**" : rest.charAt(0);
      if ("+-*/(),".indexOf(op) < 0 && op !== "**") {
        throw new Unreadable("`" + op + "` is not allowed here");
      }
      tokens.push({ kind: "op", text: op });
      i += op.length;
    }
    return tokens;
  }

  // Recursive descent with Python's precedence: + - < * / < unary + - < ** (right-assoc,
  // binding tighter than a unary minus on its left: -2**2 is -4).
  function parse(text, names) {
    var tokens = tokenize(text);
    var at = 0;

    function peek(op) {
      var token = tokens[at];
      return token !== undefined && token.kind === "op" && token.text === op;
    }
    function expect(op) {
      if (!peek(op)) {
        throw new Unreadable("invalid syntax: expected `" + op + "`");
      }
      at++;
    }
    function deep(depth) {
      if (depth > MAX_DEPTH) {
        throw new Unreadable("nested more than 50 levels deep");
      }
    }
    function sum(depth) {
      deep(depth);
      var node = product(depth + 1);
      while (peek("+") || peek("-")) {
        var op = tokens[at++].text;
        node = { op: op, args: [node, product(depth + 1)] };
      }
      return node;
    }
    function product(depth) {
      deep(depth);
      var node = unary(depth + 1);
      while (peek("*") || peek("/")) {
        var op = tokens[at++].text;
        node = { op: op, args: [node, unary(depth + 1)] };
      }
      return node;
    }
    function unary(depth) {
      deep(depth);
      if (peek("+") || peek("-")) {
        var op = tokens[at++].text;
        return { op: op === "-" ? "neg" : "pos", args: [unary(depth + 1)] };
      }
      return power(depth + 1);
    }
    function signedLiteral(node) {
      var sign = 1;
      while (node.op === "neg" || node.op === "pos") {
        sign = node.op === "neg" ? -sign : sign;
        node = node.args[0];
      }
      return node.op === "num" ? sign * node.value : null;
    }
    function power(depth) {
      deep(depth);
      var base = atom(depth + 1);
      if (peek("**")) {
        at++;
        var exponent = unary(depth + 1);
        var fixed = signedLiteral(exponent);
        if (fixed !== null && Math.abs(fixed) > MAX_EXPONENT) {
          throw new Unreadable("exponent too large; at most 1000");
        }
        return { op: "**", args: [base, exponent] };
      }
      return base;
    }
    function atom(depth) {
      deep(depth);
      var token = tokens[at++];
      if (token === undefined) {
        throw new Unreadable("the answer ends too early");
      }
      if (token.kind === "number") {
        return { op: "num", value: token.value };
      }
      if (token.kind === "op" && token.text === "(") {
        var inner = sum(depth + 1);
        expect(")");
        return inner;
      }
      if (token.kind === "name") {
        var name = token.text;
        if (peek("(")) {
          if (!Object.prototype.hasOwnProperty.call(FUNCTIONS, name)) {
            throw new Unreadable("only the listed functions can be called: `" + name + "`");
          }
          at++;
          var args = [sum(depth + 1)];
          while (peek(",")) {
            at++;
            args.push(sum(depth + 1));
          }
          expect(")");
          var arity = FUNCTIONS[name];
          if (args.length < arity[0] || args.length > arity[1]) {
            throw new Unreadable("`" + name + "` takes a different number of arguments");
          }
          return { op: "call", name: name, args: args };
        }
        if (Object.prototype.hasOwnProperty.call(CONSTANTS, name)) {
          return { op: "num", value: CONSTANTS[name] };
        }
        if (Object.prototype.hasOwnProperty.call(FUNCTIONS, name)) {
          throw new Unreadable("`" + name + "` is a function; call it, e.g. " + name + "(x)");
        }
        if (names.indexOf(name) < 0) {
          throw new Unreadable("unknown name `" + name + "`");
        }
        return { op: "name", name: name };
      }
      throw new Unreadable("invalid syntax at `" + token.text + "`");
    }

    if (tokens.length === 0) {
      throw new Unreadable("nothing to read");
    }
    var tree = sum(1);
    if (at < tokens.length) {
      throw new Unreadable("invalid syntax at `" + tokens[at].text + "`");
    }
    return tree;
  }

  function real(value) {
    if (typeof value !== "number" || !isFinite(value)) {
      throw new Unreadable("it has no finite real value");
    }
    return value;
  }

  var CALLS = {
    log: function (x, base) {
      return base === undefined ? Math.log(x) : Math.log(x) / Math.log(base);
    },
    ln: Math.log, exp: Math.exp, sin: Math.sin, cos: Math.cos,
    tan: Math.tan, asin: Math.asin, acos: Math.acos, atan: Math.atan, sinh: Math.sinh,
    cosh: Math.cosh, tanh: Math.tanh, ceiling: Math.ceil, floor: Math.floor, Abs: Math.abs,
    abs: Math.abs, min: Math.min, max: Math.max,
    sqrt: function (x) {
      return x < 0 ? NaN : Math.sqrt(x);
    }
  };

  function evaluate(node, values) {
    switch (node.op) {
      case "num":
        return node.value;
      case "name":
        return values[node.name];
      case "neg":
        return -evaluate(node.args[0], values);
      case "pos":
        return evaluate(node.args[0], values);
      case "+":
        return evaluate(node.args[0], values) + evaluate(node.args[1], values);
      case "-":
        return evaluate(node.args[0], values) - evaluate(node.args[1], values);
      case "*":
        return evaluate(node.args[0], values) * evaluate(node.args[1], values);
      case "/":
        var divisor = evaluate(node.args[1], values);
        return divisor === 0 ? NaN : evaluate(node.args[0], values) / divisor;
      case "**":
        var base = evaluate(node.args[0], values);
        var exponent = evaluate(node.args[1], values);
        return base === 0 && exponent < 0 ? NaN : Math.pow(base, exponent);
      case "call":
        var args = [];
        for (var i = 0; i < node.args.length; i++) {
          args.push(real(evaluate(node.args[i], values)));
        }
        return CALLS[node.name].apply(null, args);
    }
    throw new Unreadable("cannot evaluate");
  }

  function readNumber(text) {
    return real(evaluate(parse(readCommas(text), []), {}));
  }

  // grading.within: relative/absolute/significant-figure tolerance, edges included.
  function within(given, expected, tolerance) {
    var slack = 1e-12 * Math.max(1, Math.abs(expected));
    var error = Math.abs(given - expected);
    if (tolerance.kind === "abs") {
      return error <= tolerance.value + slack;
    }
    if (tolerance.kind === "rel") {
      return error <= tolerance.value * Math.abs(expected) + slack;
    }
    if (expected === 0) {
      return error <= slack;
    }
    var unit = Math.pow(10, Math.floor(Math.log10(Math.abs(expected))) - tolerance.value + 1);
    return error <= unit / 2 + slack;
  }

  function checkShape(typed) {
    if (typed.trim() === "") {
      throw new Unreadable("nothing was typed");
    }
    if (typed.length > MAX_ANSWER_LENGTH || typed.indexOf("#") >= 0 || /\n/.test(typed)) {
      throw new Unreadable("an answer is one line of at most 300 characters");
    }
  }

  // A verdict: correct true/false, or null when the answer could not be read (`message`).
  function gradeNumber(typed, check) {
    try {
      checkShape(typed);
      var given = readNumber(typedText(typed));
      return { correct: within(given, check.value, check.tolerance), value: given, message: "" };
    } catch (error) {
      if (error instanceof Unreadable) {
        return { correct: null, message: error.message };
      }
      throw error;
    }
  }

  function tokensOf(text) {
    var names = [];
    var found = text.match(/[A-Za-z_][A-Za-z0-9_]*/g) || [];
    for (var i = 0; i < found.length; i++) {
      if (!FUNCTIONS[found[i]] && !CONSTANTS[found[i]] && names.indexOf(found[i]) < 0) {
        names.push(found[i]);
      }
    }
    return names;
  }

  // Same expression: equal at sample points of its names (a wrong answer differs at one).
  function gradeExpression(typed, check) {
    try {
      checkShape(typed);
      var forms = [];
      var names = [];
      for (var f = 0; f < check.forms.length; f++) {
        var more = tokensOf(check.forms[f]);
        for (var m = 0; m < more.length; m++) {
          if (names.indexOf(more[m]) < 0) {
            names.push(more[m]);
          }
        }
      }
      for (var k = 0; k < check.forms.length; k++) {
        try {
          forms.push(parse(typedText(check.forms[k]), names));
        } catch (error) {
          if (!(error instanceof Unreadable)) {
            throw error;
          }
        }
      }
      var given = parse(typedText(typed), names);
      if (forms.length === 0) {
        return { correct: null, message: "this card's answer cannot be checked here" };
      }
      var agree = 0;
      for (var point = 0; point < 24 && agree < 6; point++) {
        var values = {};
        for (var n = 0; n < names.length; n++) {
          values[names[n]] = 0.25 + ((point * 7 + n * 13) % 24) / 8;
        }
        var want = evaluate(forms[0], values);
        var got = evaluate(given, values);
        if (!isFinite(want) && !isFinite(got)) {
          continue;
        }
        if (!isFinite(want) || !isFinite(got)) {
          return { correct: false, message: "" };
        }
        if (Math.abs(want - got) > 1e-9 * Math.max(1, Math.abs(want))) {
          return { correct: false, message: "" };
        }
        agree++;
      }
      if (agree === 0) {
        return { correct: null, message: "no sample point gives both a value" };
      }
      return { correct: true, message: "" };
    } catch (error) {
      if (error instanceof Unreadable) {
        return { correct: null, message: error.message };
      }
      throw error;
    }
  }

  // The check field: `numeric <value> <abs|rel|sig> <amount>` or `symbolic <form>` per line.
  function readCheck(text) {
    var lines = text.split("\n").map(function (line) {
      return line.trim();
    }).filter(function (line) {
      return line !== "";
    });
    var head = (lines[0] || "").split(/\s+/);
    if (head[0] === "numeric" && head.length === 4) {
      return {
        kind: "numeric",
        value: Number(head[1]),
        tolerance: { kind: head[2], value: Number(head[3]) }
      };
    }
    if (head[0] === "symbolic") {
      var forms = [];
      for (var i = 1; i < lines.length; i++) {
        forms.push(lines[i]);
      }
      return { kind: "symbolic", forms: forms };
    }
    return null;
  }

  function grade(typed, check) {
    return check.kind === "numeric" ? gradeNumber(typed, check) : gradeExpression(typed, check);
  }

  function decode(html) {
    return html
      .replace(/<[^>]*>/g, "")
      .replace(/&nbsp;/g, " ")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&quot;/g, "\"")
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, "&");
  }

  // What was typed, from Anki's comparison HTML: the good and bad spans before the arrow
  // (missed spans on that line are dashes Anki adds); a lone good span is an exact match;
  // no spans at all means nothing was typed.
  function typedFromComparison(html) {
    var arrow = html.search(/<br[^>]*>\s*<span id="?typearrow/);
    var line = arrow >= 0 ? html.slice(0, arrow) : html;
    var spans = /<span class="?(typeGood|typeBad|typeMissed)"?>([\s\S]*?)<\/span>/g;
    var typed = "";
    var any = false;
    var match;
    while ((match = spans.exec(line)) !== null) {
      any = true;
      if (match[1] !== "typeMissed") {
        typed += decode(match[2]);
      }
    }
    return any ? typed : "";
  }

  function described(check) {
    if (check.kind !== "numeric") {
      return check.forms.join(" or ");
    }
    var shown = String(Number(check.value.toPrecision(6)));
    var tolerance = check.tolerance;
    if (tolerance.kind === "abs") {
      return shown + " \u00b1 " + tolerance.value;
    }
    if (tolerance.kind === "rel") {
      return shown + " \u00b1 " + Number((tolerance.value * 100).toPrecision(6)) + " %";
    }
    return shown + " to " + tolerance.value + " significant figures";
  }

  // The verdict line: right or not with what is accepted, or why the answer was not read.
  function verdictText(typed, check) {
    var verdict = grade(typed, check);
    if (verdict.correct === null) {
      return { correct: null, text: "? Could not read " + JSON.stringify(typed) + ": " +
        verdict.message + " (accepted: " + described(check) + ")" };
    }
    var word = check.kind === "numeric" ? "accepted: " : "the same expression as ";
    return {
      correct: verdict.correct,
      text: (verdict.correct ? "\u2713 Right" : "\u2717 Not quite") + " (" + word +
        described(check) + ")"
    };
  }

  // The verdict for a whole rendered back (tests; the page itself goes through `show`).
  function verdictFromHtml(html) {
    var data = /<div id="?sk-check-data"?[^>]*>([\s\S]*?)<\/div>/.exec(html);
    var comparison = /<code id="?typeans"?>([\s\S]*?)<\/code>/.exec(html);
    if (data === null || comparison === null) {
      return null;
    }
    var check = readCheck(decode(data[1]));
    return check === null ? null : verdictText(typedFromComparison(comparison[1]), check);
  }

  function escaped(text) {
    return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }

  // Anki's comparison made again against `expected` (a computed card's variant other than
  // the one in the note's Answer field): what was typed, and what was expected.
  function comparisonHtml(typed, expected) {
    if (typed === expected) {
      return "<span class=typeGood>" + escaped(expected) + "</span>";
    }
    if (typed === "") {
      return escaped(expected);
    }
    return "<span class=typeBad>" + escaped(typed) + "</span><br><span id=typearrow>" +
      "&darr;</span><br><span class=typeMissed>" + escaped(expected) + "</span>";
  }

  // The verdict under Anki's comparison. The check comes from the hidden `sk-check-data`, or
  // is given (a computed card's variant), with the answer that variant expects.
  function show(doc, checkText, expected) {
    var box = doc.getElementById("sk-check");
    var comparison = doc.getElementById("typeans");
    if (box === null || comparison === null) {
      return;
    }
    var typed = typedFromComparison(comparison.innerHTML);
    if (typeof expected === "string") {
      comparison.innerHTML = comparisonHtml(typed, expected);
    }
    var text = checkText;
    if (typeof text !== "string") {
      var data = doc.getElementById("sk-check-data");
      text = data === null ? "" : data.textContent || "";
    }
    var check = readCheck(text);
    if (check === null) {
      return;
    }
    var verdict = verdictText(typed, check);
    var mark = doc.createElement("div");
    mark.className = "sk-verdict " + (verdict.correct === true ? "sk-right" :
      verdict.correct === false ? "sk-wrong" : "sk-unread");
    mark.textContent = verdict.text;
    while (box.firstChild) {
      box.removeChild(box.firstChild);
    }
    box.appendChild(mark);
    box.hidden = false;
  }

  return {
    grade: grade,
    readCheck: readCheck,
    verdictText: verdictText,
    verdictFromHtml: verdictFromHtml,
    typedFromComparison: typedFromComparison,
    comparisonHtml: comparisonHtml,
    show: show
  };
})();

if (typeof module !== "undefined" && module.exports) {
  module.exports = studykitTypein;
} else if (typeof document !== "undefined" && document.querySelector(".sk-variants") === null) {
  studykitTypein.show(document); // a computed card's variants script calls it with its variant
}
