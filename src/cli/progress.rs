//! A progress bar on stderr, shown only when stderr is a terminal and the merge is long.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

/// Inputs below this count finish too fast for a bar to help.
const MIN_INPUTS_FOR_BAR: usize = 16;

/// Progress of a merge, in inputs.
#[derive(Debug)]
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A bar for `total` inputs, or nothing if disabled, not a terminal, or too few inputs.
    pub fn new(total: usize, disabled: bool) -> Self {
        let show = !disabled && total >= MIN_INPUTS_FOR_BAR && std::io::stderr().is_terminal();
        let bar = show.then(|| {
            let b = ProgressBar::new(total as u64);
            if let Ok(style) = ProgressStyle::with_template(
                "{elapsed_precise} [{bar:40}] {pos}/{len} inputs ({per_sec}, eta {eta})",
            ) {
                b.set_style(style.progress_chars("=> "));
            }
            b
        });
        Progress { bar }
    }

    /// Sets the number of inputs done.
    pub fn set(&self, done: usize) {
        if let Some(b) = &self.bar {
            b.set_position(done as u64);
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}
