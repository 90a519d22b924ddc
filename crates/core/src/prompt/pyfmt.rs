//! Python's float formatting, byte for byte: `repr(float)` and `format(x, ".Nf")`, and
//! `str(list)` — what the seed and Time-LLM print.

use std::fmt;

/// `repr(x)`: the shortest digits that round-trip, fixed notation for exponents in
/// [-4, 16), scientific (`1e-05`, `1.5e+16`) outside.
pub fn repr(x: f64) -> String {
    Repr(x).to_string()
}

/// `repr(x)` written straight into a formatter: no allocation per number written.
#[derive(Debug, Clone, Copy)]
pub struct Repr(pub f64);

impl fmt::Display for Repr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f)
    }
}

impl Repr {
    /// The text into any writer: into a `String` directly, each piece is an inlined copy
    /// rather than a call through a `Formatter`.
    pub fn write_to(self, f: &mut impl fmt::Write) -> fmt::Result {
        let x = self.0;
        if x.is_nan() {
            return f.write_str("nan");
        }
        if x.is_infinite() {
            return f.write_str(if x > 0.0 { "inf" } else { "-inf" });
        }
        // Where Python writes fixed notation (decimal exponent in [-4, 16): the bounds are
        // the doubles nearest 1e-4 and 1e16, so the shortest digits of every double below
        // one fall below it too), Żmij's own text is repr's, sign and "0.0" included:
        // copied as it is, never read back into digits.
        if x == 0.0 || (1e-4..1e16).contains(&x.abs()) {
            return f.write_str(zmij::Buffer::new().format_finite(x));
        }
        laid_out(x, f)
    }
}

/// `repr(x)` of a finite `x` laid out from its shortest digits and their exponent: for
/// every notation, and the check on the copied text of the fixed one.
fn laid_out(x: f64, f: &mut impl fmt::Write) -> fmt::Result {
    let mut buf = [0u8; 24];
    let (len, exp) = shortest(x.abs(), &mut buf);
    // The digits are ASCII, so this cannot fail.
    let digits = std::str::from_utf8(&buf[..len]).unwrap_or_default();
    if x.is_sign_negative() {
        f.write_str("-")?;
    }
    if (-4..16).contains(&exp) {
        let point = exp + 1; // digits before the decimal point
        if point <= 0 {
            f.write_str("0.")?;
            f.write_str(zeros((-point) as usize))?;
            f.write_str(digits)
        } else if point as usize >= digits.len() {
            f.write_str(digits)?;
            f.write_str(zeros(point as usize - digits.len()))?;
            f.write_str(".0")
        } else {
            let (int, frac) = digits.split_at(point as usize);
            f.write_str(int)?;
            f.write_str(".")?;
            f.write_str(frac)
        }
    } else {
        let (head, tail) = digits.split_at(1);
        f.write_str(head)?;
        if !tail.is_empty() {
            f.write_str(".")?;
            f.write_str(tail)?;
        }
        f.write_str(if exp < 0 { "e-" } else { "e+" })?;
        let e = exp.unsigned_abs();
        let out = [
            b'0' + (e / 100) as u8,
            b'0' + (e / 10 % 10) as u8,
            b'0' + (e % 10) as u8,
        ];
        // At least two digits, as Python writes them ("1e-05"); at most three (e-324).
        let skip = if e >= 100 { 0 } else { 1 };
        f.write_str(std::str::from_utf8(&out[skip..]).unwrap_or_default())
    }
}

/// The shortest digits that round-trip to `x` (finite, ≥ 0), without leading or
/// trailing zeros, into `out`, and the decimal exponent of the first: `x = d.ddd × 10^exp`.
/// Returns the digit count and `exp`; zero is `"0"` at exponent 0.
///
/// The digits are Żmij's (`zmij`: shortest, and the closest to `x` among the shortest,
/// as CPython's `repr` and Rust's own formatter choose them), read back from its text
/// (`"0.00123"`, `"123.0"`, `"1.5e-7"`, `"1e16"`), never through Rust's `{:e}` and string
/// splitting; Żmij's digits are Ryu's (BENCHMARKS.md, "Measurements behind the code").
fn shortest(x: f64, out: &mut [u8; 24]) -> (usize, i32) {
    if x == 0.0 {
        out[0] = b'0';
        return (1, 0);
    }
    let mut buf = zmij::Buffer::new();
    let text = buf.format_finite(x).as_bytes();
    let (mut len, mut before_point, mut seen_point) = (0usize, 0i32, false);
    let mut exp = 0i32;
    let mut rest = text.iter();
    for &b in rest.by_ref() {
        match b {
            b'0'..=b'9' => {
                // Leading zeros only move the point.
                if len == 0 && b == b'0' {
                    if seen_point {
                        before_point -= 1;
                    }
                    continue;
                }
                out[len] = b;
                len += 1;
                if !seen_point {
                    before_point += 1;
                }
            }
            b'.' => seen_point = true,
            _ => break, // 'e'
        }
    }
    let mut negative = false;
    for &b in rest {
        match b {
            b'-' => negative = true,
            b'0'..=b'9' => exp = exp * 10 + (b - b'0') as i32,
            _ => {}
        }
    }
    if negative {
        exp = -exp;
    }
    while len > 1 && out[len - 1] == b'0' {
        len -= 1;
    }
    (len, before_point + exp - 1)
}

/// `n` zeros (`n` < 16: `repr` writes at most 15 in fixed notation).
fn zeros(n: usize) -> &'static str {
    &"000000000000000"[..n]
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

/// `format(x, f".{precision}f")` written straight into a writer, as [`fixed`] gives it.
/// Prompts print a few numbers at 1 or 2 decimals each: those are rounded from `x · 10^p`
/// in integers, and only a product within 1e-6 of a tie (where the product's own rounding
/// could decide it) takes the exact path.
#[derive(Debug, Clone, Copy)]
pub struct Fixed(pub f64, pub usize);

impl fmt::Display for Fixed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f)
    }
}

impl Fixed {
    pub fn write_to(self, f: &mut impl fmt::Write) -> fmt::Result {
        let Fixed(x, p) = self;
        if let Some(n) = Self::rounded(x, p) {
            // The digits of n, at least p + 1 of them, with the point before the last p.
            let mut buf = [b'0'; 24];
            let mut at = buf.len();
            let mut n = n;
            let mut written = 0;
            while n > 0 || written <= p {
                at -= 1;
                buf[at] = b'0' + (n % 10) as u8;
                n /= 10;
                written += 1;
                if written == p {
                    at -= 1;
                    buf[at] = b'.';
                }
            }
            if x.is_sign_negative() {
                f.write_char('-')?;
            }
            // Only ASCII digits and a point were written.
            return f.write_str(std::str::from_utf8(&buf[at..]).map_err(|_| fmt::Error)?);
        }
        f.write_str(&fixed(x, p))
    }

    /// `|x| · 10^p` rounded to an integer, where that is certain: the product is below
    /// 1e9, so its rounding error (≤ 1.2e-7) cannot move it across the tie when it stands
    /// more than 1e-6 from it.
    // `!(y < 1e9)` on purpose: it is also true for NaN.
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    fn rounded(x: f64, p: usize) -> Option<u64> {
        const POW10: [f64; 10] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];
        let y = x.abs() * *POW10.get(p)?;
        // Also false for NaN and infinities.
        if !(y < 1e9) {
            return None;
        }
        let whole = y.trunc();
        let frac = y - whole;
        if (frac - 0.5).abs() <= 1e-6 {
            return None;
        }
        Some(whole as u64 + u64::from(frac > 0.5))
    }
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
    fn repr_matches_cpython_on_its_fixture() {
        // scripts/gen_repr_fixture.py: random doubles, the notation edges, and ties
        // near 2^53 (where Rust's `{:e}`, used before, picked the odd digit).
        let fixture = include_str!("../../../../tests/fixtures/repr/repr.txt");
        let mut checked = 0;
        for line in fixture.lines() {
            let (bits, want) = line.split_once(' ').expect("fixture line: bits repr");
            let x = f64::from_bits(u64::from_str_radix(bits, 16).expect("fixture bits"));
            assert_eq!(repr(x), want, "repr of bits {bits}");
            checked += 1;
        }
        assert!(checked > 4000, "{checked} fixture lines");
    }

    /// The fixed-notation text copied from Żmij against the layout of its digits, over
    /// the whole fixed range: every power of ten's neighbours, widened f32s (a batch's
    /// statistics), decimals and random magnitudes.
    #[test]
    fn copied_fixed_text_equals_the_laid_out_digits() {
        let mut next = crate::testing::xorshift(0x9e37_79b9_7f4a_7c15);
        let mut values = vec![
            0.0,
            -0.0,
            1e-4,
            1e16,
            9.999999999999999e-5,
            9999999999999998.0,
        ];
        for e in -5..=16 {
            let p = 10f64.powi(e);
            values.extend([
                p,
                f64::from_bits(p.to_bits() - 1),
                f64::from_bits(p.to_bits() + 1),
            ]);
        }
        for _ in 0..300_000 {
            let r = next();
            values.push(f32::from_bits(r as u32) as f64);
            values.push((r % 2_000_001) as f64 / 1000.0 - 1000.0);
            let unit = (r >> 11) as f64 / (1u64 << 53) as f64;
            values.push(unit * 10f64.powi((r % 23) as i32 - 6));
        }
        let mut copied = 0;
        for x in values.into_iter().flat_map(|x| [x, -x]) {
            if !x.is_finite() {
                continue;
            }
            let mut want = String::new();
            let _ = laid_out(x, &mut want);
            assert_eq!(repr(x), want, "repr of {x:e}");
            copied += usize::from(x == 0.0 || (1e-4..1e16).contains(&x.abs()));
        }
        assert!(copied > 1_000_000, "{copied} values in the copied range");
    }

    #[test]
    fn repr_round_trips_and_is_never_longer_than_the_std_shortest() {
        let mut next = crate::testing::xorshift(0x2545_f491_4f6c_dd1d);
        for _ in 0..200_000 {
            let x = f64::from_bits(next());
            if !x.is_finite() {
                continue;
            }
            let r = repr(x);
            assert_eq!(r.parse::<f64>().map(f64::to_bits), Ok(x.to_bits()), "{r}");
            // The significant digits, as many as Rust's own shortest formatter needs.
            let sig = |s: &str| {
                let m = s.split('e').next().unwrap_or("");
                let digits: String = m.chars().filter(char::is_ascii_digit).collect();
                digits.trim_matches('0').len()
            };
            let std = format!("{:e}", x);
            assert!(sig(&r) <= sig(&std).max(1), "{r} against {std}");
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
        for (x, p, want) in cases {
            assert_eq!(Fixed(x, p).to_string(), want, "Fixed({x}, {p})");
        }
        assert_eq!(int_list(&[0, 1, 95, 24, 2]), "[0, 1, 95, 24, 2]");
        assert_eq!(int_list(&[]), "[]");
    }

    #[test]
    fn the_fast_fixed_equals_the_exact_one() {
        // Values of every magnitude the fast path takes and beyond it, values next to
        // ties at each precision (k + 1/2) / 10^p and their neighbours, signed zeros.
        let mut next = crate::testing::xorshift(0x9E37_79B9_7F4A_7C15);
        let mut values = vec![0.0, -0.0, 0.5, -0.5, 1.5, 2.5, 1e9, -1e9, 999_999_999.5];
        for _ in 0..20_000 {
            let mantissa = (next() >> 11) as f64 / (1u64 << 53) as f64;
            let exp = (next() % 24) as i32 - 12;
            let sign = if next().is_multiple_of(2) { 1.0 } else { -1.0 };
            values.push(sign * mantissa * 10f64.powi(exp));
        }
        for p in 0..=9 {
            for k in 0..2_000u64 {
                let tie = (k as f64 + 0.5) / 10f64.powi(p);
                values.extend([tie, -tie, tie.next_up(), tie.next_down()]);
            }
        }
        for &v in &values {
            for p in 0..=11 {
                assert_eq!(
                    Fixed(v, p).to_string(),
                    fixed(v, p),
                    "format({v:e}, '.{p}f')"
                );
            }
        }
    }
}
