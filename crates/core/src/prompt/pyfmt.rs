//! Python's float formatting, byte for byte: `repr(float)` and `format(x, ".Nf")`, and
//! `str(list)` — what the seed generator and Time-LLM print.

/// `repr(x)`: the shortest digits that round-trip, fixed notation for exponents in
/// [-4, 16), scientific (`1e-05`, `1.5e+16`) outside.
pub fn repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    // Rust's `{:e}` gives the same shortest round-trip digits: "-1.2345e-7".
    let sci = format!("{x:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let sign = if negative { "-" } else { "" };
    if (-4..16).contains(&exp) {
        let point = exp + 1; // digits before the decimal point
        let body = if point <= 0 {
            format!("0.{}{}", "0".repeat((-point) as usize), digits)
        } else if point as usize >= digits.len() {
            format!("{}{}.0", digits, "0".repeat(point as usize - digits.len()))
        } else {
            format!(
                "{}.{}",
                &digits[..point as usize],
                &digits[point as usize..]
            )
        };
        format!("{sign}{body}")
    } else {
        let (head, tail) = digits.split_at(1);
        let frac = if tail.is_empty() {
            String::new()
        } else {
            format!(".{tail}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{head}{frac}e{esign}{:02}", exp.abs())
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
