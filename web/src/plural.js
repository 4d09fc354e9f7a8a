// A gettext Plural-Forms header read without eval: "nplurals=3; plural=(n==1 ? 0 : n%10>=2 && ...);"
// becomes a function n -> form index. The expression is C's: n, integers, ! % < > <= >= == !=
// && || ?: and parentheses, which is all gettext allows (Babel writes CLDR's rules in it).

const TOKEN = /\s*(\d+|n|&&|\|\||[<>!=]=|[-+*/%<>!?:()])/y;

function tokens(text) {
  const out = [];
  TOKEN.lastIndex = 0;
  let m;
  while (TOKEN.lastIndex < text.length && (m = TOKEN.exec(text))) out.push(m[1]);
  if (out.join("").length !== text.replace(/\s+/g, "").length) throw new Error(`bad plural expression: ${text}`);
  return out;
}

const BINARY = [["||"], ["&&"], ["==", "!="], ["<", ">", "<=", ">="], ["+", "-"], ["*", "/", "%"]];
const APPLY = {
  "||": (a, b) => Number(a || b),
  "&&": (a, b) => Number(a && b),
  "==": (a, b) => Number(a === b),
  "!=": (a, b) => Number(a !== b),
  "<": (a, b) => Number(a < b),
  ">": (a, b) => Number(a > b),
  "<=": (a, b) => Number(a <= b),
  ">=": (a, b) => Number(a >= b),
  "+": (a, b) => a + b,
  "-": (a, b) => a - b,
  "*": (a, b) => a * b,
  "/": (a, b) => Math.trunc(a / b),
  "%": (a, b) => a % b,
};

/** The expression as a function of n (a tree of closures, built once). */
export function compile(text) {
  const toks = tokens(text);
  let at = 0;
  const peek = () => toks[at];
  const take = (want) => {
    if (want !== undefined && toks[at] !== want) throw new Error(`bad plural expression: ${text}`);
    return toks[at++];
  };
  const ternary = () => {
    const test = binary(0);
    if (peek() !== "?") return test;
    take("?");
    const yes = ternary();
    take(":");
    const no = ternary();
    return (n) => (test(n) ? yes(n) : no(n));
  };
  const binary = (level) => {
    if (level === BINARY.length) return unary();
    let left = binary(level + 1);
    while (BINARY[level].includes(peek())) {
      const op = APPLY[take()];
      const l = left;
      const r = binary(level + 1);
      left = (n) => op(l(n), r(n));
    }
    return left;
  };
  const unary = () => {
    const tok = take();
    if (tok === "!") {
      const inner = unary();
      return (n) => Number(!inner(n));
    }
    if (tok === "(") {
      const inner = ternary();
      take(")");
      return inner;
    }
    if (tok === "n") return (n) => n;
    if (/^\d+$/.test(tok ?? "")) return () => Number(tok);
    throw new Error(`bad plural expression: ${text}`);
  };
  const fn = ternary();
  if (at !== toks.length) throw new Error(`bad plural expression: ${text}`);
  return fn;
}

/** A Plural-Forms header as n -> form index (none: English's, one form for 1, the other else). */
export function pluralRule(header) {
  const m = /plural\s*=\s*([^;]+)/.exec(header ?? "");
  if (!m) return (n) => (n === 1 ? 0 : 1);
  const nplurals = Number(/nplurals\s*=\s*(\d+)/.exec(header)?.[1] ?? 2);
  const fn = compile(m[1]);
  return (n) => Math.min(Math.max(0, Number(fn(Math.abs(Math.trunc(n))))), nplurals - 1);
}
