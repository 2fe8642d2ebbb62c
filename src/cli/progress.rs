//! A progress bar on stderr, shown only when stderr is a terminal and the merge is long.

use std::io::IsTerminal;
use std::sync::OnceLock;

use indicatif::{ProgressBar, ProgressState, ProgressStyle};

/// Inputs below this count finish too fast for a bar to help.
const MIN_INPUTS_FOR_BAR: usize = 16;

/// A rate of inputs per second as a person reads it: three significant digits at most below
/// 100 (`2.35/s`, `47.1/s`), whole numbers with thousands separators above (`1,766/s`).
pub fn rate(per_sec: f64) -> String {
    if !per_sec.is_finite() || per_sec <= 0.0 {
        return "0/s".into();
    }
    if per_sec < 10.0 {
        return format!("{per_sec:.2}/s");
    }
    if per_sec < 99.95 {
        return format!("{per_sec:.1}/s");
    }
    let digits = format!("{:.0}", per_sec.round());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out + "/s"
}

/// Progress of a merge, in inputs: a bar once the driver says how many inputs there are.
#[derive(Debug)]
pub struct Bar {
    disabled: bool,
    bar: OnceLock<Option<ProgressBar>>,
}

impl Bar {
    /// A bar, or nothing if `disabled`.
    pub fn new(disabled: bool) -> Self {
        Bar {
            disabled,
            bar: OnceLock::new(),
        }
    }

    fn get(&self) -> Option<&ProgressBar> {
        self.bar.get().and_then(Option::as_ref)
    }
}

impl pgo_merge::pipeline::Progress for Bar {
    fn start(&self, total: usize) {
        let show = !self.disabled && total >= MIN_INPUTS_FOR_BAR && std::io::stderr().is_terminal();
        let _ = self.bar.set(show.then(|| {
            let b = ProgressBar::new(total as u64);
            if let Ok(style) = ProgressStyle::with_template(
                "{elapsed_precise} [{bar:40}] {pos}/{len} inputs ({rate}, eta {eta})",
            ) {
                b.set_style(style.progress_chars("=> ").with_key(
                    "rate",
                    |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                        let _ = w.write_str(&rate(s.per_sec()));
                    },
                ));
            }
            b
        }));
    }

    fn set(&self, done: usize) {
        if let Some(b) = self.get() {
            b.set_position(done as u64);
        }
    }

    fn finish(&self) {
        if let Some(b) = self.get() {
            b.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::rate;

    #[test]
    fn rates_read_well() {
        assert_eq!(rate(1765.6877), "1,766/s");
        assert_eq!(rate(1_234_567.4), "1,234,567/s");
        assert_eq!(rate(999.6), "1,000/s");
        assert_eq!(rate(100.0), "100/s");
        assert_eq!(rate(99.96), "100/s");
        assert_eq!(rate(47.123), "47.1/s");
        assert_eq!(rate(2.3456), "2.35/s");
        assert_eq!(rate(0.0), "0/s");
        assert_eq!(rate(f64::NAN), "0/s");
    }
}
