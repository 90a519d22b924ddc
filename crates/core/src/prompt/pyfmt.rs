//! Python's float formatting, byte for byte: `repr(float)` and `format(x, ".Nf")`, and
//! `str(list)` — what the seed generator and Time-LLM print.

use std::fmt::{self, Write};

/// `repr(x)`: the shortest digits that round-trip, fixed notation for exponents in
/// [-4, 16), scientific (`1e-05`, `1.5e+16`) outside.
pub fn repr(x: f64) -> String {
    Repr(x).to_string()
}

/// `repr(x)` written straight into a formatter: no allocation (a Time-LLM prompt has three
/// numbers, and their strings were a tenth of its cost).
#[derive(Debug, Clone, Copy)]
pub struct Repr(pub f64);

impl fmt::Display for Repr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let x = self.0;
        if x.is_nan() {
            return f.write_str("nan");
        }
        if x.is_infinite() {
            return f.write_str(if x > 0.0 { "inf" } else { "-inf" });
        }
        // Rust's `{:e}` gives the same shortest round-trip digits: "-1.2345e-7".
        let mut sci = Stack::default();
        write!(sci, "{x:e}")?;
        let sci = sci.as_str();
        let (mantissa, exp) = sci.split_once('e').unwrap_or((sci, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let (sign, mantissa) = match mantissa.strip_prefix('-') {
            Some(m) => ("-", m),
            None => ("", mantissa),
        };
        // "d.ddd" → the digits "dddd" (one before the point).
        let mut digits = Stack::default();
        for part in mantissa.split('.') {
            digits.write_str(part)?;
        }
        let digits = digits.as_str();
        f.write_str(sign)?;
        if (-4..16).contains(&exp) {
            let point = exp + 1; // digits before the decimal point
            if point <= 0 {
                write!(f, "0.{}{digits}", zeros((-point) as usize))
            } else if point as usize >= digits.len() {
                write!(f, "{digits}{}.0", zeros(point as usize - digits.len()))
            } else {
                let (int, frac) = digits.split_at(point as usize);
                write!(f, "{int}.{frac}")
            }
        } else {
            let (head, tail) = digits.split_at(1);
            let esign = if exp < 0 { '-' } else { '+' };
            let point = if tail.is_empty() { "" } else { "." };
            write!(f, "{head}{point}{tail}e{esign}{:02}", exp.abs())
        }
    }
}

/// `n` zeros (`n` < 16: `repr` writes at most 15 in fixed notation).
fn zeros(n: usize) -> &'static str {
    &"000000000000000"[..n]
}

/// A formatting buffer on the stack, long enough for any `{:e}` of an f64
/// ("-2.2250738585072014e-308" is 24 bytes).
struct Stack {
    buf: [u8; 32],
    len: usize,
}

impl Default for Stack {
    fn default() -> Self {
        Stack {
            buf: [0; 32],
            len: 0,
        }
    }
}

impl Stack {
    fn as_str(&self) -> &str {
        // Only whole `&str`s are ever copied in, so the bytes are UTF-8.
        std::str::from_utf8(&self.buf[..self.len]).unwrap_or_default()
    }
}

impl Write for Stack {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        self.buf
            .get_mut(self.len..end)
            .ok_or(fmt::Error)?
            .copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// `format(x, f".{precision}f")`: correctly rounded from the exact binary value, ties to
/// even, as Python does.
pub fn fixed(x: f64, precision: usize) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    // A double has at most 1074 fractional binary digits, so its decimal expansion ends
    // by then: beyond, only zeros follow (and Rust's formatter stops at 65535).
    const EXACT: usize = 1100;
    if precision <= EXACT {
        return format!("{x:.precision$}");
    }
    let mut s = format!("{x:.EXACT$}");
    s.extend(std::iter::repeat_n('0', precision - EXACT));
    s
}

/// The largest precision `f(".Nf")` accepts: more digits than any prompt can use, and a
/// bound on what one number may cost.
pub const MAX_PRECISION: usize = 100_000;

/// `str(list)` of integers: `[0, 1, 95]`.
pub fn int_list(v: &[i64]) -> String {
    let items: Vec<String> = v.iter().map(|i| i.to_string()).collect();
    format!("[{}]", items.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_precisions_pad_with_zeros() {
        let s = fixed(0.1, 65536);
        assert_eq!(s.len(), 2 + 65536);
        assert!(s.starts_with("0.1000000000000000055511151231257827"));
        assert_eq!(&s[2..1102], &format!("{:.1100}", 0.1)[2..]);
        assert!(s[1102..].bytes().all(|b| b == b'0'));
    }

    #[test]
    fn repr_matches_python() {
        // Values checked against CPython 3.11's repr().
        let cases = [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (0.1, "0.1"),
            (123456.0, "123456.0"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (9999999999999998.0, "9999999999999998.0"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-1.234e-7, "-1.234e-07"),
            (2.5e-300, "2.5e-300"),
            (0.30000000000000004, "0.30000000000000004"),
            (-1.7049999237060547, "-1.7049999237060547"),
            (1e22, "1e+22"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (-2.2250738585072014e-308, "-2.2250738585072014e-308"),
            (0.001, "0.001"),
            (0.00012345, "0.00012345"),
            (123.0, "123.0"),
            (1e15, "1000000000000000.0"),
            (1234567890123456.7, "1234567890123456.8"),
            (12345678.9, "12345678.9"),
            (f64::NAN, "nan"),
            (f64::NEG_INFINITY, "-inf"),
        ];
        for (x, want) in cases {
            assert_eq!(repr(x), want, "repr({x:?})");
        }
    }

    #[test]
    fn fixed_rounds_like_python() {
        // format(x, '.2f') in CPython: exact binary value, ties to even.
        let cases = [
            (0.125, 2, "0.12"),
            (0.375, 2, "0.38"),
            (2.675, 2, "2.67"),
            (-0.001, 2, "-0.00"),
            (1.005, 2, "1.00"),
            (0.25, 1, "0.2"),
            (0.35, 1, "0.3"),
            (-2.5, 0, "-2"),
            (123.456, 1, "123.5"),
        ];
        for (x, p, want) in cases {
            assert_eq!(fixed(x, p), want, "format({x}, '.{p}f')");
        }
        assert_eq!(int_list(&[0, 1, 95, 24, 2]), "[0, 1, 95, 24, 2]");
        assert_eq!(int_list(&[]), "[]");
    }
}
