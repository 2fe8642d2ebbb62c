//! Input weights: positive rationals parsed exactly from decimal text.

use std::fmt;
use std::str::FromStr;

/// A positive weight `num / den`, parsed exactly from text such as `3`, `0.25` or `1.5`.
///
/// Scaling a count `c` gives `round_half_up(c × num / den)`, computed in 128-bit arithmetic and
/// saturated to `u64::MAX`; integer weights therefore give exactly `c × W` as LLVM does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Weight {
    num: u64,
    den: u64,
}

impl Weight {
    /// Weight 1.
    pub const ONE: Weight = Weight { num: 1, den: 1 };

    /// An integer weight (≥ 1).
    pub fn integer(w: u64) -> Option<Weight> {
        (w >= 1).then_some(Weight { num: w, den: 1 })
    }

    /// True for weight 1.
    pub fn is_one(self) -> bool {
        self.num == self.den
    }

    /// True if the weight is a whole number.
    pub fn is_integer(self) -> bool {
        self.den == 1
    }

    /// LLVM scales a record it sees for the first time only when the weight is above 1.
    pub fn scales_new_records(self) -> bool {
        !self.is_one()
    }

    /// The weight rounded to a whole number (at least 1), used where the format stores an
    /// integer weight (temporal traces).
    pub fn rounded(self) -> u64 {
        self.scale(1).0.max(1)
    }

    /// `c × W`, rounded half up; the flag is true if the result saturated.
    #[inline]
    pub fn scale(self, c: u64) -> (u64, bool) {
        if self.den == 1 {
            return match c.checked_mul(self.num) {
                Some(v) => (v, false),
                None => (u64::MAX, true),
            };
        }
        let p = u128::from(c) * u128::from(self.num);
        let q = (p + u128::from(self.den / 2)) / u128::from(self.den);
        match u64::try_from(q) {
            Ok(v) => (v, false),
            Err(_) => (u64::MAX, true),
        }
    }

    /// This weight multiplied by the ratio `num / den` (both > 0), reduced; when the product
    /// does not fit 64-bit numerator and denominator it is rounded to the nearest ratio that
    /// does, and the flag is false.
    pub fn times(self, num: u128, den: u128) -> (Weight, bool) {
        if num == 0 || den == 0 {
            return (self, num == den);
        }
        let (a, b) = reduce(u128::from(self.num), den);
        let (c, d) = reduce(num, u128::from(self.den));
        let (mut n, mut m) = match (a.checked_mul(c), b.checked_mul(d)) {
            (Some(n), Some(m)) => reduce(n, m),
            _ => {
                // Only for totals beyond 2^64: keep the 64 leading bits of each side.
                let (n, m) = (a.max(1) as f64 * c as f64, b.max(1) as f64 * d as f64);
                let k = (n.max(m) / u64::MAX as f64).max(1.0);
                ((n / k).round() as u128, (m / k).round() as u128)
            }
        };
        let mut exact = true;
        while n > u128::from(u64::MAX) || m > u128::from(u64::MAX) {
            n = (n + 1) >> 1;
            m = (m + 1) >> 1;
            exact = false;
        }
        (
            Weight {
                num: (n as u64).max(1),
                den: (m as u64).max(1),
            },
            exact,
        )
    }

    /// `c × W + acc`, saturating; the flag is true if anything saturated.
    #[inline]
    pub fn scale_add(self, c: u64, acc: u64) -> (u64, bool) {
        let (s, o1) = self.scale(c);
        match s.checked_add(acc) {
            Some(v) => (v, o1),
            None => (u64::MAX, true),
        }
    }
}

fn gcd128(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// `a / b` in lowest terms.
fn reduce(a: u128, b: u128) -> (u128, u128) {
    let g = gcd128(a, b).max(1);
    (a / g, b / g)
}

impl Default for Weight {
    fn default() -> Self {
        Weight::ONE
    }
}

/// Why a weight could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WeightParseError(pub String);

impl std::fmt::Display for WeightParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "invalid weight {:?}: expected a positive number such as 2, 0.5 or 1.25 (at most 18 \
             digits)",
            self.0
        )
    }
}

impl std::error::Error for WeightParseError {}

impl FromStr for Weight {
    type Err = WeightParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || WeightParseError(s.to_string());
        let t = s.trim();
        let (int, frac) = match t.split_once('.') {
            Some((i, f)) => (i, f),
            None => (t, ""),
        };
        if (int.is_empty() && frac.is_empty())
            || !int.bytes().all(|b| b.is_ascii_digit())
            || !frac.bytes().all(|b| b.is_ascii_digit())
            || int.len() + frac.len() > 18
        {
            return Err(err());
        }
        let digits = format!("{int}{frac}");
        let num: u64 = digits.parse().map_err(|_| err())?;
        let den = 10u64.pow(frac.len() as u32);
        if num == 0 {
            return Err(err());
        }
        let g = gcd(num, den);
        Ok(Weight {
            num: num / g,
            den: den / g,
        })
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl fmt::Display for Weight {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den == 1 {
            write!(f, "{}", self.num)
        } else {
            // den divides a power of ten (it came from a decimal fraction): print exactly.
            let mut scale = 10u64;
            let mut places = 1usize;
            while !scale.is_multiple_of(self.den) && places < 18 {
                scale *= 10;
                places += 1;
            }
            let num = self.num.saturating_mul(scale / self.den);
            let int = num / scale;
            let frac = num % scale;
            write!(f, "{int}.{frac:0places$}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_scales_exactly() {
        let w: Weight = "3".parse().unwrap();
        assert_eq!(w.scale(7), (21, false));
        let w: Weight = "0.25".parse().unwrap();
        assert_eq!(w.scale(10), (3, false)); // 2.5 rounds up
        assert_eq!(w.scale(9), (2, false)); // 2.25 rounds down
        assert_eq!(w.to_string(), "0.25");
        let w: Weight = "1.5".parse().unwrap();
        assert_eq!(w.scale(u64::MAX), (u64::MAX, true));
        assert_eq!(w.to_string(), "1.5");
        assert_eq!(
            "2.0".parse::<Weight>().unwrap(),
            Weight::integer(2).unwrap()
        );
        for bad in [
            "",
            ".",
            "0",
            "0.0",
            "-1",
            "1e3",
            "abc",
            "1.2.3",
            "9999999999999999999",
        ] {
            assert!(bad.parse::<Weight>().is_err(), "{bad}");
        }
        assert_eq!(
            Weight::integer(2).unwrap().scale_add(u64::MAX / 2 + 1, 0),
            (u64::MAX, true)
        );
    }
}
