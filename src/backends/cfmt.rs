//! C `printf` number formats used by LLVM's tools (`%.Nf`, `%g`), so that our text output can
//! match theirs character for character. Rust's `{:.N}` rounds exactly like glibc (the exact
//! binary value, ties to even); `%g` is built on it.

/// `printf("%.{prec}f", v)`. A NaN prints as glibc prints it: `nan`, or `-nan` with the
/// sign bit set (the NaN an x86 division 0/0 makes).
pub fn fixed(v: f64, prec: usize) -> String {
    if v.is_nan() {
        return if v.is_sign_negative() { "-nan" } else { "nan" }.into();
    }
    format!("{v:.prec$}")
}

/// `printf("%.{prec}g", v)` (`prec` ≥ 1): the shorter of fixed and exponential notation with
/// `prec` significant digits, trailing zeros removed.
pub fn general(v: f64, prec: usize) -> String {
    let prec = prec.max(1);
    if v == 0.0 {
        return "0".into();
    }
    if !v.is_finite() {
        return if v.is_nan() {
            "nan".into()
        } else if v > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    // The exponent after rounding to `prec` significant digits.
    let e = format!("{:.*e}", prec - 1, v);
    let exp: i32 = e
        .rsplit_once('e')
        .and_then(|(_, x)| x.parse().ok())
        .unwrap_or(0);
    if exp < -4 || exp >= prec as i32 {
        let (mant, _) = e.split_once('e').unwrap_or((&e, ""));
        let mant = strip_zeros(mant);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mant}e{sign}{:02}", exp.abs())
    } else {
        let decimals = (prec as i32 - 1 - exp).max(0) as usize;
        strip_zeros(&format!("{v:.decimals$}")).to_string()
    }
}

fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_printf() {
        assert_eq!(fixed(60.227272, 2), "60.23");
        assert_eq!(fixed(f64::NAN, 3), "nan");
        assert_eq!(fixed(-f64::NAN, 3), "-nan");
        assert_eq!(fixed(f64::INFINITY, 2), "inf");
        assert_eq!(general(1.0, 6), "1");
        assert_eq!(general(99.9999, 6), "99.9999");
        assert_eq!(general(f64::from(100.0f32 * 999999.0 / 1e6), 6), "99.9999");
        assert_eq!(general(95.0, 6), "95");
        assert_eq!(general(0.0001, 6), "0.0001");
        assert_eq!(general(0.00001, 6), "1e-05");
        assert_eq!(general(1234567.0, 6), "1.23457e+06");
        assert_eq!(general(0.0, 6), "0");
    }
}
