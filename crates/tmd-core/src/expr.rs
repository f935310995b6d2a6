//! User expressions in x over the registry: `x*exp(x)`, `sin(x)/x`, `exp(-x^2)`, `2^-3*pi*x`.
//!
//! Grammar (usual precedence; `^` binds tighter than unary minus, so `-x^2 = -(x^2)`):
//!
//! ```text
//! expr    := term (('+' | '-') term)*
//! term    := unary (('*' | '/') unary)*
//! unary   := ('-' | '+') unary | power
//! power   := primary (('^' | '**') integer)?      integer: [-+]digits or '(' [-+]digits ')'
//! primary := number | 'x' | 'pi' | 'e' | NAME '(' expr ')' | '(' expr ')'
//! ```
//!
//! Numbers are exact rationals (hex floats or decimals). Only integer powers are allowed: a
//! real power would need its own rigorous model. Evaluation is interval arithmetic
//! ([`crate::interval`]) at a given precision.

use crate::error::InputError;
use crate::interval::{point, Eval, Interval};
use crate::number::parse_number;
use crate::registry::{eval_rounded, Dir, Func};
use rug::{Float, Rational};

/// A parsed expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    X,
    Const(Rational),
    Pi,
    E,
    Neg(Box<Expr>),
    Add(Box<Expr>, Box<Expr>),
    Sub(Box<Expr>, Box<Expr>),
    Mul(Box<Expr>, Box<Expr>),
    Div(Box<Expr>, Box<Expr>),
    PowI(Box<Expr>, i32),
    Call(Func, Box<Expr>),
}

impl Expr {
    /// Parses an expression in x.
    pub fn parse(text: &str) -> Result<Expr, InputError> {
        let tokens = tokenize(text)?;
        let mut p = Parser {
            tokens,
            pos: 0,
            text,
            nesting: 0,
        };
        let e = p.expr()?;
        if p.pos < p.tokens.len() {
            return Err(p.error("unexpected trailing input"));
        }
        let depth = e.depth();
        if depth > MAX_DEPTH {
            e.dismantle();
            return Err(InputError::Expression(format!(
                "expression nested {depth} levels deep; at most {MAX_DEPTH} (a sum or product \
                 of more terms can be grouped in parentheses)"
            )));
        }
        Ok(e)
    }

    /// The children of a node.
    fn children(&self) -> Vec<&Expr> {
        match self {
            Expr::Neg(a) | Expr::PowI(a, _) | Expr::Call(_, a) => vec![a],
            Expr::Add(a, b) | Expr::Sub(a, b) | Expr::Mul(a, b) | Expr::Div(a, b) => vec![a, b],
            Expr::X | Expr::Const(_) | Expr::Pi | Expr::E => vec![],
        }
    }

    /// Levels of the tree, counted without recursion.
    pub fn depth(&self) -> usize {
        let mut deepest = 0;
        let mut stack = vec![(self, 1)];
        while let Some((e, d)) = stack.pop() {
            deepest = deepest.max(d);
            stack.extend(e.children().into_iter().map(|c| (c, d + 1)));
        }
        deepest
    }

    /// Drops a tree without recursion (a deep tree's own drop would overflow the stack).
    fn dismantle(self) {
        let mut stack = vec![self];
        while let Some(e) = stack.pop() {
            match e {
                Expr::Neg(a) | Expr::PowI(a, _) | Expr::Call(_, a) => stack.push(*a),
                Expr::Add(a, b) | Expr::Sub(a, b) | Expr::Mul(a, b) | Expr::Div(a, b) => {
                    stack.push(*a);
                    stack.push(*b);
                }
                Expr::X | Expr::Const(_) | Expr::Pi | Expr::E => {}
            }
        }
    }

    /// The single function this expression applies to x, if it is just `f(x)`.
    pub fn as_function(&self) -> Option<Func> {
        match self {
            Expr::Call(f, arg) if **arg == Expr::X => Some(*f),
            _ => None,
        }
    }

    /// An enclosure of the expression's value at x, working at `prec` bits.
    pub fn eval(&self, x: &Float, prec: u32) -> Eval {
        self.eval_over(&Interval::exact(x.clone()), prec)
    }

    /// An enclosure of the expression's values over every x of the interval `x` (interval
    /// arithmetic; `Undecided` where the functions' shapes do not give one). At an exact point
    /// this is [`Expr::eval`].
    pub fn eval_over(&self, x: &Interval, prec: u32) -> Eval {
        match self {
            Expr::X => Eval::Value(x.clone()),
            Expr::Const(q) => Eval::Value(Interval::rational(q, prec)),
            Expr::Pi => Eval::Value(Interval::pi(prec)),
            Expr::E => {
                let one = Float::with_val(2, 1);
                let lo = eval_rounded(Func::Exp, &one, prec, Dir::Down).0;
                let hi = eval_rounded(Func::Exp, &one, prec, Dir::Up).0;
                Eval::Value(Interval {
                    lo,
                    hi,
                    exact: false,
                    nonzero: true,
                })
            }
            Expr::Neg(a) => match a.eval_over(x, prec) {
                Eval::Pole { neg } => Eval::Pole {
                    neg: neg.map(|n| !n),
                },
                other => map1(other, |v| Eval::Value(v.neg())),
            },
            Expr::Add(a, b) => map2(a, b, x, prec, |u, v| u.add(v, prec)),
            Expr::Sub(a, b) => map2(a, b, x, prec, |u, v| u.sub(v, prec)),
            Expr::Mul(a, b) => map2(a, b, x, prec, |u, v| u.mul(v, prec)),
            Expr::Div(a, b) => map2(a, b, x, prec, |u, v| u.div(v, prec)),
            Expr::PowI(a, n) => map1(a.eval_over(x, prec), |v| v.powi(*n, prec)),
            Expr::Call(f, a) if **a == Expr::X && x.exact => point(*f, &x.lo, prec),
            Expr::Call(f, a) => map1(a.eval_over(x, prec), |v| v.apply(*f, prec)),
        }
    }
}

/// A pole inside a larger expression keeps its kind but not its sign, which the enclosing
/// operations would have to carry through (exp(-1/x) at +0 even has the limit 0).
fn unsigned_pole(e: Eval) -> Eval {
    match e {
        Eval::Pole { .. } => Eval::Pole { neg: None },
        other => other,
    }
}

fn map1(e: Eval, f: impl FnOnce(&Interval) -> Eval) -> Eval {
    match e {
        Eval::Value(v) => f(&v),
        other => unsigned_pole(other),
    }
}

fn map2(
    a: &Expr,
    b: &Expr,
    x: &Interval,
    prec: u32,
    f: impl FnOnce(&Interval, &Interval) -> Eval,
) -> Eval {
    let u = match a.eval_over(x, prec) {
        Eval::Value(u) => u,
        other => return unsigned_pole(other),
    };
    match b.eval_over(x, prec) {
        Eval::Value(v) => f(&u, &v),
        other => unsigned_pole(other),
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Number(Rational),
    Name(String),
    Op(char),
    Pow,
}

fn tokenize(text: &str) -> Result<Vec<(Token, usize)>, InputError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let err = |pos: usize, why: &str| {
        InputError::Expression(format!("'{text}' at column {}: {why}", pos + 1))
    };
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() || c == '.' {
            let hex = c == '0' && matches!(chars.get(i + 1), Some('x' | 'X'));
            if hex {
                i += 2;
            }
            let marker = if hex { 'p' } else { 'e' };
            while i < chars.len() {
                let d = chars[i].to_ascii_lowercase();
                let digit = if hex {
                    d.is_ascii_hexdigit()
                } else {
                    d.is_ascii_digit()
                };
                if digit || d == '.' {
                    i += 1;
                } else if d == marker {
                    // An exponent only if digits follow (so `2e` stays 2 times e... rejected later).
                    let mut j = i + 1;
                    if matches!(chars.get(j), Some('+' | '-')) {
                        j += 1;
                    }
                    if !chars.get(j).is_some_and(|c| c.is_ascii_digit()) {
                        break;
                    }
                    i = j;
                    while i < chars.len() && chars[i].is_ascii_digit() {
                        i += 1;
                    }
                    break;
                } else {
                    break;
                }
            }
            let lit: String = chars[start..i].iter().collect();
            let q = parse_number(&lit).map_err(|e| err(start, &e.to_string()))?;
            out.push((Token::Number(q), start));
        } else if c.is_ascii_alphabetic() || c == '_' {
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push((Token::Name(chars[start..i].iter().collect()), start));
        } else if c == '*' && chars.get(i + 1) == Some(&'*') {
            out.push((Token::Pow, start));
            i += 2;
        } else if c == '^' {
            out.push((Token::Pow, start));
            i += 1;
        } else if "+-*/()".contains(c) {
            out.push((Token::Op(c), start));
            i += 1;
        } else {
            return Err(err(start, &format!("unexpected character '{c}'")));
        }
    }
    if out.is_empty() {
        return Err(InputError::Expression("empty expression".into()));
    }
    Ok(out)
}

struct Parser<'a> {
    tokens: Vec<(Token, usize)>,
    pos: usize,
    text: &'a str,
    /// How deep the parser's recursion is (parentheses, calls, signs).
    nesting: usize,
}

/// The deepest expression tree accepted: evaluation, Taylor models and even dropping a tree
/// recurse over it, and a thread's stack holds a few thousand levels. Deeper expressions are
/// refused at parse time with one line, instead of a stack overflow later.
pub const MAX_DEPTH: usize = 1000;

impl Parser<'_> {
    fn error(&self, why: &str) -> InputError {
        let col = self
            .tokens
            .get(self.pos)
            .map(|t| t.1 + 1)
            .unwrap_or(self.text.chars().count() + 1);
        // A long expression is shown by its start: the column says where.
        let shown: String = if self.text.chars().count() > 60 {
            self.text.chars().take(40).chain("...".chars()).collect()
        } else {
            self.text.to_string()
        };
        InputError::Expression(format!("'{shown}' at column {col}: {why}"))
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos).map(|t| &t.0)
    }

    fn eat_op(&mut self, op: char) -> bool {
        if self.peek() == Some(&Token::Op(op)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Refuses a chain of operators longer than the deepest tree (its tree is that deep).
    fn chain_guard(&self, links: &mut usize, e: &mut Expr) -> Result<(), InputError> {
        *links += 1;
        if *links > MAX_DEPTH {
            std::mem::replace(e, Expr::X).dismantle();
            return Err(self.error(&format!(
                "more than {MAX_DEPTH} terms in a row; group them in parentheses"
            )));
        }
        Ok(())
    }

    fn expr(&mut self) -> Result<Expr, InputError> {
        let mut e = self.term()?;
        let mut links = 0;
        loop {
            self.chain_guard(&mut links, &mut e)?;
            if self.eat_op('+') {
                e = Expr::Add(Box::new(e), Box::new(self.term()?));
            } else if self.eat_op('-') {
                e = Expr::Sub(Box::new(e), Box::new(self.term()?));
            } else {
                return Ok(e);
            }
        }
    }

    fn term(&mut self) -> Result<Expr, InputError> {
        let mut e = self.unary()?;
        let mut links = 0;
        loop {
            self.chain_guard(&mut links, &mut e)?;
            if self.eat_op('*') {
                e = Expr::Mul(Box::new(e), Box::new(self.unary()?));
            } else if self.eat_op('/') {
                e = Expr::Div(Box::new(e), Box::new(self.unary()?));
            } else {
                return Ok(e);
            }
        }
    }

    fn unary(&mut self) -> Result<Expr, InputError> {
        // Every recursion of the parser passes here: its depth is bounded before the stack is.
        self.nesting += 1;
        if self.nesting > MAX_DEPTH {
            return Err(self.error(&format!("nested more than {MAX_DEPTH} levels deep")));
        }
        let e = self.signed();
        self.nesting -= 1;
        e
    }

    fn signed(&mut self) -> Result<Expr, InputError> {
        if self.eat_op('-') {
            return Ok(Expr::Neg(Box::new(self.unary()?)));
        }
        if self.eat_op('+') {
            return self.unary();
        }
        let base = self.primary()?;
        if self.peek() == Some(&Token::Pow) {
            self.pos += 1;
            let n = self.integer_exponent()?;
            return Ok(Expr::PowI(Box::new(base), n));
        }
        Ok(base)
    }

    fn integer_exponent(&mut self) -> Result<i32, InputError> {
        let paren = self.eat_op('(');
        let neg = if self.eat_op('-') {
            true
        } else {
            self.eat_op('+');
            false
        };
        let n = match self.peek() {
            Some(Token::Number(q)) if q.denom() == &1 => q.numer().to_i32(),
            _ => None,
        }
        .filter(|n| n.unsigned_abs() <= 1 << 16)
        .ok_or_else(|| self.error("only integer powers (|n| <= 65536) are supported"))?;
        self.pos += 1;
        if paren && !self.eat_op(')') {
            return Err(self.error("expected ')'"));
        }
        Ok(if neg { -n } else { n })
    }

    fn primary(&mut self) -> Result<Expr, InputError> {
        let Some(tok) = self.peek().cloned() else {
            return Err(self.error("unexpected end of expression"));
        };
        self.pos += 1;
        match tok {
            Token::Number(q) => Ok(Expr::Const(q)),
            Token::Op('(') => {
                let e = self.expr()?;
                if !self.eat_op(')') {
                    return Err(self.error("expected ')'"));
                }
                Ok(e)
            }
            Token::Name(name) => match name.as_str() {
                "x" => Ok(Expr::X),
                "pi" => Ok(Expr::Pi),
                "e" => Ok(Expr::E),
                _ => {
                    self.pos -= 1;
                    let func = Func::lookup(&name).ok_or_else(|| {
                        self.error(&format!("unknown function '{name}' (see `tmd functions`)"))
                    })?;
                    self.pos += 1;
                    if !self.eat_op('(') {
                        return Err(self.error(&format!("expected '(' after {name}")));
                    }
                    let arg = self.expr()?;
                    if !self.eat_op(')') {
                        return Err(self.error("expected ')'"));
                    }
                    Ok(Expr::Call(func, Box::new(arg)))
                }
            },
            _ => {
                self.pos -= 1;
                Err(self.error("expected a number, x, a constant, a function or '('"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, x: f64) -> Interval {
        match Expr::parse(text)
            .unwrap()
            .eval(&Float::with_val(64, x), 100)
        {
            Eval::Value(v) => v,
            other => panic!("{text} at {x}: {other:?}"),
        }
    }

    #[test]
    fn parses_and_evaluates_compositions() {
        let v = at("x*exp(x)", 1.0);
        let e = Float::with_val(200, 1).exp();
        assert!(v.lo < e && e < v.hi);
        assert!(at("-x^2 + 2*x", 3.0).exact);
        assert_eq!(at("-x^2 + 2*x", 3.0).lo, -3);
        assert_eq!(at("x**(-2)", 0.5).lo, 4);
        assert_eq!(at("0x1p-3 * 8 + cbrt(27)", 1.0).lo, 4);
        let s = at("sin(x)/x", 0.5);
        let r = Float::with_val(200, 0.5).sin() * 2u32;
        assert!(s.lo < r && r < s.hi);
        let p = at("sin(pi*x)", 1.0);
        assert!(p.lo <= 0 && p.hi >= 0 && !p.exact);
        assert_eq!(
            Expr::parse("exp(x)").unwrap().as_function(),
            Some(Func::Exp)
        );
        assert_eq!(Expr::parse("exp(2*x)").unwrap().as_function(), None);
    }

    #[test]
    fn undefined_points_are_reported() {
        let e = Expr::parse("sin(x)/x").unwrap();
        assert_eq!(e.eval(&Float::new(64), 64), Eval::Undefined);
        let e = Expr::parse("log(x)").unwrap();
        assert_eq!(e.eval(&Float::with_val(64, -1), 64), Eval::Undefined);
        assert_eq!(e.eval(&Float::new(64), 64), Eval::Pole { neg: Some(true) });
        let recip = Expr::parse("1/x").unwrap();
        assert_eq!(
            recip.eval(&Float::new(64), 64),
            Eval::Pole { neg: Some(false) }
        );
        assert_eq!(
            recip.eval(&-Float::new(64), 64),
            Eval::Pole { neg: Some(true) }
        );
        assert_eq!(
            Expr::parse("-1/x").unwrap().eval(&Float::new(64), 64),
            Eval::Pole { neg: Some(true) }
        );
        assert_eq!(
            Expr::parse("exp(1/x)").unwrap().eval(&Float::new(64), 64),
            Eval::Pole { neg: None }
        );
    }

    #[test]
    fn malformed_expressions_are_errors() {
        for bad in [
            "", "x*", "foo(x)", "exp x", "x^0.5", "x^y", "(x", "x)", "2 $ x", "sin()",
        ] {
            assert!(Expr::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn expressions_deeper_than_the_limit_are_refused_without_overflowing_the_stack() {
        let sum = |n: usize| vec!["x"; n].join("+");
        assert_eq!(Expr::parse(&sum(MAX_DEPTH)).unwrap().depth(), MAX_DEPTH);
        for text in [
            sum(MAX_DEPTH + 2),
            sum(200_000),
            format!("{}x{}", "(".repeat(100_000), ")".repeat(100_000)),
            format!("x*{}x", "-".repeat(100_000)),
            format!(
                "{}x{}",
                "exp(".repeat(MAX_DEPTH + 1),
                ")".repeat(MAX_DEPTH + 1)
            ),
        ] {
            let e = Expr::parse(&text).unwrap_err().to_string();
            assert!(e.contains(&MAX_DEPTH.to_string()), "{e}");
            assert!(e.len() < 200, "one short line: {e}");
        }
    }
}
